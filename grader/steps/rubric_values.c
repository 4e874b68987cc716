/* The values of the rubric's keys: numbers, whole numbers, shapes, word
 * lists, each checked and its error named by line and key (rubric_parse.h). */
#include "steps/rubric_parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rubric_error(struct parse *p, const char *key, const char *fmt, const char *value)
{
	if (p->err[0] == '\0') {
		char what[256];
		snprintf(what, sizeof(what), fmt, value);
		snprintf(p->err, sizeof(p->err), "%.200s:%d: key '%.40s': %.200s", p->r->path, p->line, key, what);
	}
	return 0;
}

int parse_number(struct parse *p, const char *key, const char *value, double lo, double hi,
			double *out)
{
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || end == value || *end)
		return rubric_error(p, key, "expected a number, got '%s'", value);
	if (!isfinite(v))
		return rubric_error(p, key, "expected a finite number, got '%s'", value);
	if (v < lo || v > hi) {
		char range[128];
		snprintf(range, sizeof(range), "%%s is out of range (%g to %g)", lo, hi);
		return rubric_error(p, key, range, value);
	}
	*out = v;
	return 1;
}

int parse_whole(struct parse *p, const char *key, const char *value, double lo, double hi, int *out)
{
	double v;
	if (!parse_number(p, key, value, lo, hi, &v))
		return 0;
	if (v != (int)v)
		return rubric_error(p, key, "expected a whole number, got '%s'", value);
	*out = (int)v;
	return 1;
}

int parse_shape_list(struct parse *p, const char *key, const char *value,
			    struct shape *list, int *n)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", value);
	for (char *save, *tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		char err[256];
		if (*n >= RUBRIC_MAX_SHAPES)
			return rubric_error(p, key, "more than 32 sizes%s", "");
		if (shape_parse(tok, &list[*n], err, sizeof(err)) < 0)
			return rubric_error(p, key, "%s", err);
		if (list[*n].rank != p->rank)
			return rubric_error(p, key, p->rank == 2 ? "'%s': this lab's sizes are ROWSxCOLS"
							  : "'%s': this lab's sizes are single numbers",
				     tok);
		(*n)++;
	}
	return 1;
}

int parse_one_shape(struct parse *p, const char *key, const char *value, struct shape *s)
{
	int n = 0;
	struct shape list[RUBRIC_MAX_SHAPES];
	if (!parse_shape_list(p, key, value, list, &n))
		return 0;
	if (n != 1)
		return rubric_error(p, key, "expected one size, got '%s'", value);
	*s = list[0];
	return 1;
}

int parse_words(struct parse *p, const char *key, const char *value, char **list, int *n,
		       int max)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", value);
	for (char *save, *tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		if (*n >= max)
			return rubric_error(p, key, "too many entries%s", "");
		list[(*n)++] = strdup(tok);
	}
	return 1;
}

/* Scalar keys may appear once; list keys may continue on following lines. */
