/* Data-parallel loops (see parallel.h). */
#include "parallel.h"

#include <pthread.h>
#include <sched.h>

int parallel_threads(void)
{
	cpu_set_t set;
	int n = 1;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	if (n < 1)
		n = 1;
	return n > PARALLEL_MAX_THREADS ? PARALLEL_MAX_THREADS : n;
}

struct piece {
	parallel_fn fn;
	void *arg;
	size_t begin, end;
};

static void *run_piece(void *p)
{
	struct piece *w = p;
	w->fn(w->begin, w->end, w->arg);
	return NULL;
}

int parallel_for(size_t n, size_t grain, parallel_fn fn, void *arg)
{
	if (n == 0)
		return 0;
	if (grain < 1)
		grain = 1;
	size_t pieces = (size_t)parallel_threads();
	if (pieces > (n + grain - 1) / grain)
		pieces = (n + grain - 1) / grain;
	if (pieces <= 1) {
		fn(0, n, arg);
		return 1;
	}
	struct piece work[PARALLEL_MAX_THREADS];
	pthread_t tid[PARALLEL_MAX_THREADS];
	int started[PARALLEL_MAX_THREADS];
	for (size_t i = 0; i < pieces; i++) {
		work[i] = (struct piece){ fn, arg, n * i / pieces, n * (i + 1) / pieces };
		/* Piece 0 is the caller's own. */
		started[i] = i > 0 && pthread_create(&tid[i], NULL, run_piece, &work[i]) == 0;
	}
	for (size_t i = 0; i < pieces; i++)
		if (!started[i])
			run_piece(&work[i]);
	for (size_t i = 1; i < pieces; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
	return (int)pieces;
}
