/* A batch's gradebook.csv (RFC 4180), read back by the end-to-end tests. */
#ifndef TESTS_GRADEBOOK_READER_H
#define TESTS_GRADEBOOK_READER_H

#define FIELDS 10
#define MAX_ROWS 64

struct row {
	char f[FIELDS][512];
};

/* The rows of OUT/gradebook.csv (its header checked) into rows; their
 * count, or -1 when there is no gradebook. */
int read_gradebook(const char *out, struct row *rows, int max);

/* The row of student name, or NULL. */
const struct row *find_row(const struct row *rows, int n, const char *name);

#endif
