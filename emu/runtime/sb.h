/* A growing string, for the metrics JSON (after Redis's sds, much smaller). */
#ifndef CUEMU_SB_H
#define CUEMU_SB_H

#include <stddef.h>

struct sb {
	char *buf;
	size_t len, cap;
	int oom;		/* an allocation failed: the text is incomplete */
};

void sb_printf(struct sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_puts(struct sb *s, const char *text);
void sb_json_string(struct sb *s, const char *text);	/* quoted and escaped */
/* Returns the text (caller frees), or NULL if an allocation failed. */
char *sb_take(struct sb *s);

#endif
