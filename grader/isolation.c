/* Bubblewrap isolation (see isolation.h). */
#include "isolation.h"

#include <stdlib.h>

int isolation_available(void)
{
	return 0;
}

char **isolation_wrap(char *const argv[], const struct sandbox_limits *lim)
{
	(void)argv;
	(void)lim;
	return NULL;
}

void isolation_free(char **wrapped)
{
	free(wrapped);
}
