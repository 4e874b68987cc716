/* Test helpers (see test_support.h). */
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../common/guard.h"
#include "sys/kit_paths.h"

extern const struct lab lab3_transpose;

struct harness_report correct_report(const struct lab *lab, const struct shape *s, uint64_t seed,
				     uint32_t **span_out)
{
	size_t n_in = lab->in_count(s), n = lab->out_count(s);
	uint32_t *in = malloc(n_in * 4), *span = malloc((n + 2 * GUARD_WORDS) * 4);
	for (size_t i = 0; i < n + 2 * GUARD_WORDS; i++)
		span[i] = POISON_WORD;
	lab->fill_input(in, s, seed);
	lab->reference(in, span + GUARD_WORDS, s);
	free(in);
	struct harness_report rep;
	memset(&rep, 0, sizeof(rep));
	rep.began = rep.ended = 1;
	rep.done = json_pack("{s:n, s:f, s:b}", "cuda_error", "elapsed_ms", 1.0, "input_changed", 0);
	rep.output = span;
	rep.output_words = n + 2 * GUARD_WORDS;
	rep.outputs = 1;
	*span_out = span;
	return rep;
}

void add_bench_point(struct grade *g, size_t rows, size_t cols, double student, double reference,
		     double copy)
{
	struct bench_point *b = &g->bench[g->n_bench++];
	b->shape.rank = 2;
	b->shape.dim[0] = rows;
	b->shape.dim[1] = cols;
	b->bytes = 8.0 * rows * cols;
	b->student_gbps = student;
	b->reference_gbps = reference;
	b->copy_gbps = copy;
}

void emu_lab3_build(const char *file, struct rubric *r, char *work, struct build_result *b)
{
	char path[1024], err[512], log[8192], src[1024];
	kit_path(path, sizeof(path), "labs/lab3-transpose/lab.ini");
	cr_assert_eq(rubric_load(path, 2, r, err, sizeof(err)), 0, "%s", err);
	cr_assert(mkdtemp(work));
	struct device_info dev;
	memset(&dev, 0, sizeof(dev));
	cr_assert_eq(build_submission(&lab3_transpose, BACKEND_EMU, kit_path(src, sizeof(src), file), work,
				      &dev, NULL, 120, b, log, sizeof(log)), 0, "%s", log);
}
