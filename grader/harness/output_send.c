/*
 * A correctness size's output, back to the grader (harness.h's
 * output_send): whole, through two small pinned buffers, or as its digest
 * (common/output_digest.h).
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <string.h>

#include "../../common/channel.h"
#include "../../common/host_buffer.h"
#include "../../common/output_digest.h"
#include "device_hash.h"
#include "harness.h"

/*
 * The output span goes into its MSG_OUTPUT frame through two small pinned
 * buffers, not through a host buffer as large as the span: on an H100 a
 * gigabyte copied into fresh pageable memory took 0.3 s, most of it the
 * first touch of its pages, and a copy into pinned memory 20 ms. While
 * piece k is written into the channel, piece k + 1 is on its way into the
 * other buffer. Pinning costs 0.44 s a gigabyte, so the buffers are small,
 * made once per process and reused for every size.
 */
#define STAGE_BYTES ((size_t)16 << 20)

/* The two buffers, or NULL where pinned memory could not be had. */
static void **stage_buffers(void)
{
	static void *buf[2];
	static int tried;
	if (!tried) {
		tried = 1;
		cudaError_t e0 = cudaHostAlloc(&buf[0], STAGE_BYTES, cudaHostAllocDefault);
		cudaError_t e1 = e0 == cudaSuccess ? cudaHostAlloc(&buf[1], STAGE_BYTES, cudaHostAllocDefault) : e0;
		if (e1 != cudaSuccess) {
			if (e0 == cudaSuccess)
				cudaFreeHost(buf[0]);
			buf[0] = buf[1] = NULL;
			/* Not left for the next call's error check to blame on the student. */
			cudaGetLastError();
		}
	}
	return buf[0] ? buf : NULL;
}

static size_t smaller(size_t a, size_t b)
{
	return a < b ? a : b;
}

/*
 * bytes of device memory at d as one MSG_OUTPUT frame: the header with the
 * whole length, then the pieces as they come (channel.h). At most one copy
 * is in flight, into the buffer not being written, so a synchronisation of
 * the default stream waits for exactly that copy. Adds the time spent
 * waiting for copies to *copy_ms and writing to *write_ms. Returns -1, having
 * written nothing, where there are no pinned buffers.
 *
 * A copy that fails halfway does not stop the frame: the rest of it is
 * written from the buffers as they are, so that the framing holds and the
 * grader reads the failure (MSG_ERROR) that follows; with no MSG_DONE, the
 * output is never believed.
 */
static int send_output_staged(const void *d, size_t bytes, double *copy_ms, double *write_ms)
{
	void **buf = stage_buffers();
	if (!buf)
		return -1;
	const char *src = d;
	double t = harness_now_ms();
	cudaError_t e = cudaMemcpyAsync(buf[0], src, smaller(bytes, STAGE_BYTES), cudaMemcpyDeviceToHost, 0);
	channel_begin_frame(CHANNEL_FD, MSG_OUTPUT, (uint64_t)bytes);
	for (size_t at = 0, k = 0; at < bytes; at += STAGE_BYTES, k ^= 1) {
		size_t len = smaller(bytes - at, STAGE_BYTES), next = at + len;
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(0);	/* piece k is in buf[k] */
		if (e == cudaSuccess && next < bytes)
			e = cudaMemcpyAsync(buf[k ^ 1], src + next, smaller(bytes - next, STAGE_BYTES),
					    cudaMemcpyDeviceToHost, 0);
		double w = harness_now_ms();
		*copy_ms += w - t;
		channel_write_all(CHANNEL_FD, buf[k], len);
		t = harness_now_ms();
		*write_ms += t - w;
	}
	kit_check(e, "cudaMemcpyAsync (output)");
	return 0;
}

/* Without pinned memory: the whole span through one host buffer. */
static void send_output_whole(const void *d, size_t bytes, double *copy_ms, double *write_ms)
{
	double t = harness_now_ms();
	void *h = host_buffer_alloc(bytes);
	if (!h)
		kit_fail("host memory", "out of host memory");
	kit_check(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (output)");
	double w = harness_now_ms();
	channel_send(CHANNEL_FD, MSG_OUTPUT, h, (uint64_t)bytes);
	host_buffer_free(h, bytes);
	*copy_ms += w - t;
	*write_ms += harness_now_ms() - w;
}

/* The guards whole and the output's hash, made where the output is
 * (device_hash.h): nothing of a gigabyte crosses to the host. */
static void send_output_digest(const uint32_t *d_span, size_t n_out, double *copy_ms, double *write_ms)
{
	static struct output_digest dg;	/* 32 KiB: not on the stack */
	double t = harness_now_ms();
	kit_check(cudaMemcpy(dg.guard_before, d_span, sizeof(dg.guard_before), cudaMemcpyDeviceToHost),
		  "cudaMemcpy (guard)");
	kit_check(cudaMemcpy(dg.guard_after, d_span + GUARD_WORDS + n_out, sizeof(dg.guard_after),
			     cudaMemcpyDeviceToHost), "cudaMemcpy (guard)");
	uint64_t hash;
	kit_check(kit_device_hash(d_span + GUARD_WORDS, n_out, &hash), "the kit's hash of the output");
	dg.words = n_out;
	dg.hash = hash;
	double w = harness_now_ms();
	channel_send(CHANNEL_FD, MSG_OUTPUT_DIGEST, &dg, sizeof(dg));
	*copy_ms += w - t;
	*write_ms += harness_now_ms() - w;
}

void output_send(const uint32_t *d_span, size_t n_out, int first_in_process, double *copy_ms,
		 double *write_ms)
{
#ifdef KIT_EMU
	const int emulated = 1;
#else
	const int emulated = 0;
#endif
	size_t bytes = (GUARD_WORDS + n_out + GUARD_WORDS) * 4;
	/* The emulator's device memory is the process's own: pinned buffers
	 * would gain nothing there, and host memory a kernel may use keeps
	 * every later launch on one core (emu/README.md). */
	if (output_sent_as_digest(n_out, first_in_process, emulated))
		send_output_digest(d_span, n_out, copy_ms, write_ms);
	else if (emulated || send_output_staged(d_span, bytes, copy_ms, write_ms) < 0)
		send_output_whole(d_span, bytes, copy_ms, write_ms);
}

void output_send_prepare(void)
{
#ifndef KIT_EMU
	stage_buffers();
#endif
}
