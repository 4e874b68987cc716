/* The hash of a lab's reference output (see output_hash.h). */
#include "steps/output_hash.h"

#include "bench_plan.h"
#include "host_buffer.h"
#include "parallel.h"
#include "rng.h"

struct placed_job {
	const struct lab *lab;
	const struct shape *shape;
	enum rng_kind kind;
	uint64_t key;
	uint64_t sum;
};

static size_t row_length(const struct shape *s)
{
	return s->rank == 2 ? s->dim[1] : s->dim[0];
}

size_t output_position(const struct lab *lab, const struct shape *s, size_t i)
{
	size_t cols = row_length(s);
	return lab->out_position(s, i / cols, i % cols);
}

/* Input words [begin, end), made from the key as lab_fill_input makes
 * them: the row and column step along, one division a piece. */
static void placed_piece(size_t begin, size_t end, void *arg)
{
	struct placed_job *j = arg;
	size_t cols = row_length(j->shape), row = begin / cols, col = begin % cols;
	uint64_t h = 0;
	for (size_t i = begin; i < end; i++) {
		size_t at = j->lab->out_position(j->shape, row, col);
		h += rng_hash_term(at, rng_word(j->kind, j->key, i));
		if (++col == cols) {
			col = 0;
			row++;
		}
	}
	__atomic_fetch_add(&j->sum, h, __ATOMIC_RELAXED);
}

static int hash_through_reference(const struct lab *lab, const struct shape *s, uint64_t seed, uint64_t *hash)
{
	size_t n_in = lab->in_count(s), n_out = lab->out_count(s);
	uint32_t *in = host_buffer_alloc(n_in * 4), *out = host_buffer_alloc(n_out * 4);
	int rc = -1;
	if (!in || !out)
		goto out;
	lab_fill_input(lab, in, s, seed);
	lab->reference(in, out, s);
	*hash = bench_output_hash(out, n_out);
	rc = 0;
out:
	host_buffer_free(in, n_in * 4);
	host_buffer_free(out, n_out * 4);
	return rc;
}

int output_hash_of_seed(const struct lab *lab, const struct shape *s, uint64_t seed, uint64_t *hash)
{
	if (!lab->out_position)
		return hash_through_reference(lab, s, seed, hash);
	struct placed_job j = { lab, s, lab->input, rng_key(seed), 0 };
	parallel_for(lab->in_count(s), (size_t)1 << 20, placed_piece, &j);
	*hash = j.sum;
	return 0;
}
