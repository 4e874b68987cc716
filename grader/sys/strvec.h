/* A growing, NULL-terminated list of copied strings: an argv or an envp
 * made for a child. */
#ifndef GRADER_STRVEC_H
#define GRADER_STRVEC_H

struct strvec {
	char **v;		/* NULL-terminated once anything was pushed */
	int n, cap;
	int failed;		/* out of memory: the list is incomplete */
};

/* Appends a copy of s; on failure sets a->failed and does nothing more. */
void strvec_push(struct strvec *a, const char *s);

/* Frees a list made by strvec_push (v may be NULL). */
void strvec_free(char **v);

#endif
