/*
 * The rubric reader's own parts (rubric.c reads the file, rubric_values.c
 * the values of its keys): the parsing state both share. Not for other
 * callers: rubric.h is the interface.
 */
#ifndef GRADER_RUBRIC_PARSE_H
#define GRADER_RUBRIC_PARSE_H

#include <stdio.h>

#include "steps/rubric.h"

/* Parsing state: inih calls on_key() for each key in file order, and our
 * reader counts lines, so every error can name its line. */
struct parse {
	struct rubric *r;
	int rank;
	FILE *file;
	int line;
	char err[1024];		/* the first error, "" while there is none */
	char seen[64][48];	/* "section.key" already given, for duplicates */
	int n_seen;
	int gpu;		/* index of the [gpu "..."] section being read, or -1 */
	/* Where each band's upper edge was given, for the check of the pair. */
	int default_upper_line, reference_upper_line, gpu_upper_line[RUBRIC_MAX_BANDS];
	int gate_line;		/* where [performance] gate was given */
};

/* Each records the first error (file:line, key, what) in p->err and returns
 * 0 on a bad value, 1 on a good one (inih's convention). */
int rubric_error(struct parse *p, const char *key, const char *fmt, const char *value);
int parse_number(struct parse *p, const char *key, const char *value, double lo, double hi,
			double *out);
int parse_whole(struct parse *p, const char *key, const char *value, double lo, double hi, int *out);
int parse_shape_list(struct parse *p, const char *key, const char *value,
			    struct shape *list, int *n);
int parse_one_shape(struct parse *p, const char *key, const char *value, struct shape *s);
int parse_words(struct parse *p, const char *key, const char *value, char **list, int *n,
		       int max);

#endif
