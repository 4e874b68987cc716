/* Expected hashes computed once for a shared seed (see seed_hashes.h). */
#include "steps/seed_hashes.h"

#include <string.h>

#include "output_digest.h"
#include "rng.h"
#include "steps/output_hash.h"
#include "steps/reference_times.h"

void seed_hashes_compute(struct seed_hashes *h, const struct lab *lab, const struct rubric *r,
			 enum backend backend, uint64_t seed, uint64_t salt)
{
	int n;
	const struct shape *shapes = reference_times_shapes(r, backend, &n);
	memset(h, 0, sizeof(*h));
	for (int i = 0; i < n && i < RUBRIC_MAX_SHAPES; i++) {
		h->shapes[i] = shapes[i];
		h->test_seed[i] = rng_test_seed(seed, salt, (unsigned)i);
		/* Not first in its process: the only way a size's digest comes. */
		if (output_sent_as_digest(lab->out_count(&shapes[i]), 0, backend == BACKEND_EMU))
			h->hashed[i] = output_hash_of_seed(lab, &shapes[i], h->test_seed[i], &h->hash[i]) == 0;
	}
	h->n = n < RUBRIC_MAX_SHAPES ? n : RUBRIC_MAX_SHAPES;
}

int seed_hashes_find(const struct seed_hashes *h, int index, uint64_t test_seed, const struct shape *s,
		     uint64_t *hash)
{
	if (!h || index < 0 || index >= h->n || !h->hashed[index] || h->test_seed[index] != test_seed ||
	    !shape_equal(&h->shapes[index], s))
		return 0;
	*hash = h->hash[index];
	return 1;
}
