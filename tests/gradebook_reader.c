/* Reading a batch's gradebook.csv in the tests (see gradebook_reader.h). */
#include "gradebook_reader.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One record from p; returns the position after it, or NULL at the end. */
static const char *csv_record(const char *p, struct row *r)
{
	if (!*p)
		return NULL;
	memset(r, 0, sizeof(*r));
	for (int k = 0; k < FIELDS; k++) {
		size_t o = 0;
		if (*p == '"') {
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
				if (*p == '"')
					p++;
				if (o + 1 < sizeof(r->f[k]))
					r->f[k][o++] = *p;
			}
			if (*p == '"')
				p++;
		} else {
			for (; *p && *p != ',' && *p != '\r' && *p != '\n'; p++)
				if (o + 1 < sizeof(r->f[k]))
					r->f[k][o++] = *p;
		}
		if (*p == ',')
			p++;
		else
			break;
	}
	if (*p == '\r')
		p++;
	if (*p == '\n')
		p++;
	return p;
}

int read_gradebook(const char *out, struct row *rows, int max)
{
	char path[256], *text;
	snprintf(path, sizeof(path), "%s/gradebook.csv", out);
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	text = calloc(1, 1 << 20);
	size_t n = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	text[n] = '\0';
	struct row header;
	const char *p = csv_record(text, &header);
	cr_expect_str_eq(header.f[0], "student");
	cr_expect_str_eq(header.f[9], "verdict");
	int k = 0;
	while (p && k < max && (p = csv_record(p, &rows[k])))
		k++;
	free(text);
	return k;
}

const struct row *find_row(const struct row *rows, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(rows[i].f[0], name) == 0)
			return &rows[i];
	return NULL;
}
