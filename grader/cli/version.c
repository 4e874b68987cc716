/* The build's commit (see version.h). */
#include "cli/version.h"

/* The Makefile passes it when building this file (build/kit-commit). */
#ifndef KIT_COMMIT
#define KIT_COMMIT "unknown"
#endif

const char *kit_commit(void)
{
	return KIT_COMMIT[0] ? KIT_COMMIT : "unknown";
}
