/* A NULL-terminated list of strings (see strvec.h). */
#include "sys/strvec.h"

#include <stdlib.h>
#include <string.h>

void strvec_push(struct strvec *a, const char *s)
{
	if (a->failed)
		return;
	if (a->n + 2 > a->cap) {
		int cap = a->cap ? 2 * a->cap : 64;
		char **v = realloc(a->v, sizeof(char *) * (size_t)cap);
		if (!v) {
			a->failed = 1;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n] = strdup(s);
	if (!a->v[a->n]) {
		a->failed = 1;
		return;
	}
	a->v[++a->n] = NULL;
}

void strvec_free(char **v)
{
	for (int i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}
