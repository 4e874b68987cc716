/* Canary checks (see guard.h). */
#include "guard.h"

size_t guard_first_changed(const uint32_t *guard, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (guard[i] != POISON_WORD)
			return i;
	return n;
}
