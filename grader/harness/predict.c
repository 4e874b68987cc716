/* harness predict: the performance model's trace (emulator build only; harness.h). */
#include <cuda_runtime_api.h>
#include <cuemu.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/channel.h"
#include "../../common/rng.h"
#include "../labs/lab.h"
#include "harness.h"

/*
 * The performance model's trace is a correctness run: the same verb's call
 * (run_correct: inputs filled from the seed, the output poisoned, guarded and
 * sent back whole for the grader to judge), at a size and seed of the
 * emulator's correctness list, with the device reporting the same SM count as
 * in every other emulated run. Only a sample of each launch's blocks runs
 * traced (in warp lockstep), chosen by the seed and the kit's secret as the
 * analysis run's are; every other block runs too, untraced, so the result is
 * computed and checked. Nothing in it marks it as a run that only measures:
 * a file that launches something else at one size gains nothing, since the
 * grader scales these traces to the graded size rather than running it.
 */
void run_predict(const struct lab *lab, const struct shape *s, uint64_t seed)
{
	cuemu_set_sample_seed(seed ^ rng_secret());
	cuemu_set_tracing(1);
	cuemu_set_skip_untraced(0);
	cuemu_set_kernel_timeout(5);
	cuemu_metrics_reset();
	run_correct(lab, s, seed);
	char *metrics = cuemu_metrics_json();
	if (!metrics)
		kit_fail("predict", "the emulator produced no metrics");
	channel_send(CHANNEL_FD, MSG_METRICS, metrics, strlen(metrics));
	free(metrics);
}
