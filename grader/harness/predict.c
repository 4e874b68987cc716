/* harness predict: the performance model's trace (emulator build only; harness.h). */
#include <cuda_runtime_api.h>
#include <cuemu.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/channel.h"
#include "../labs/lab.h"
#include "harness.h"

/*
 * The performance model's trace at the graded size: a seeded sample of each
 * launch's blocks runs traced and the others do not run at all, on inputs
 * that are never filled (the emulator's fresh device memory reads as zeros).
 * The device reports the predicted GPU's SM count, so that code that sizes
 * its grid by it launches what it would there. No result is computed.
 * computed: every block runs (the untraced ones without lockstep), for code
 * whose blocks wait for each other; the grader runs it at a smaller size.
 */
void run_predict(const struct lab *lab, const struct shape *s, uint64_t seed, int sms, int computed)
{
	uint32_t *d_in, *d_out;
	/* The graded size's buffers and the student's temporaries: more than the
	 * emulator's default 4 GiB may be needed, and unused memory is only
	 * reserved address space. Read once, by the first emulator call below. */
	setenv("CUEMU_MEMORY_MB", "16384", 1);
	cuemu_set_tracing(1);
	cuemu_set_sample_seed(seed);
	cuemu_set_skip_untraced(!computed);
	cuemu_set_device_sms(sms);
	cuemu_set_kernel_timeout(5);	/* a sampled block waiting for a skipped one never ends */
	cuemu_metrics_reset();
	kit_check(cudaMalloc((void **)&d_in, lab->in_count(s) * 4), "cudaMalloc (input)");
	kit_check(cudaMalloc((void **)&d_out, lab->out_count(s) * 4), "cudaMalloc (output)");
	send_json(MSG_BEGIN, "{\"seed\":\"%llu\"}", (unsigned long long)seed);
	lab_entry_call(d_in, d_out, s);
	cudaError_t sync = cudaDeviceSynchronize(), last = cudaGetLastError();
	cudaError_t e = sync != cudaSuccess ? sync : last;
	send_json(MSG_DONE, "{\"cuda_error\":%s%s%s}", e ? "\"" : "", e ? cudaGetErrorName(e) : "null",
		  e ? "\"" : "");
	char *metrics = cuemu_metrics_json();
	if (!metrics)
		kit_fail("predict", "the emulator produced no metrics");
	channel_send(CHANNEL_FD, MSG_METRICS, metrics, strlen(metrics));
	free(metrics);
}
