/* CPU references, in parallel on the machine's cores (parallel.h). */
#include "reference.h"

#include "parallel.h"

/* Below this many elements a piece is not worth a thread. */
#define GRAIN ((size_t)1 << 20)

/* ---- scans: piece sums, their prefix, then each piece from its offset ---- */

struct scan_job {
	const uint32_t *in;
	uint32_t *out;
	size_t n, pieces;
	int inclusive;
	uint32_t offset[PARALLEL_MAX_THREADS];	/* piece sums, then their exclusive prefix */
};

static size_t piece_begin(const struct scan_job *job, size_t p)
{
	return job->n * p / job->pieces;
}

static void sum_pieces(size_t begin, size_t end, void *arg)
{
	struct scan_job *job = arg;
	for (size_t p = begin; p < end; p++) {
		uint32_t sum = 0;
		for (size_t i = piece_begin(job, p); i < piece_begin(job, p + 1); i++)
			sum += job->in[i];
		job->offset[p] = sum;
	}
}

static void scan_pieces(size_t begin, size_t end, void *arg)
{
	struct scan_job *job = arg;
	for (size_t p = begin; p < end; p++) {
		uint32_t sum = job->offset[p];
		for (size_t i = piece_begin(job, p); i < piece_begin(job, p + 1); i++) {
			uint32_t x = job->in[i];
			job->out[i] = job->inclusive ? sum + x : sum;
			sum += x;
		}
	}
}

static void scan(const uint32_t *in, uint32_t *out, size_t n, int inclusive)
{
	struct scan_job job = { .in = in, .out = out, .n = n, .inclusive = inclusive };
	size_t threads = (size_t)parallel_threads();
	job.pieces = n / GRAIN < threads ? n / GRAIN : threads;
	if (job.pieces < 1)
		job.pieces = 1;
	if (job.pieces > 1)
		parallel_for(job.pieces, 1, sum_pieces, &job);
	uint32_t before = 0;
	for (size_t p = 0; p < job.pieces; p++) {
		uint32_t sum = job.pieces > 1 ? job.offset[p] : 0;
		job.offset[p] = before;
		before += sum;
	}
	parallel_for(job.pieces, 1, scan_pieces, &job);
}

void ref_scan_inclusive(const uint32_t *in, uint32_t *out, size_t n)
{
	scan(in, out, n, 1);
}

void ref_scan_exclusive(const uint32_t *in, uint32_t *out, size_t n)
{
	scan(in, out, n, 0);
}

/* ---- transpose: bands of tile rows, one piece each ---------------------- */

/*
 * 32 x 32 blocks, written along output rows: the 32 input rows read stay in
 * cache while each output row segment is written contiguously. (Walking the
 * block along input rows instead writes 32+ lines a power-of-two stride
 * apart, which all fall in one cache set: twice as slow.)
 */
#define TILE 32

struct transpose_job {
	const float *in;
	float *out;
	size_t rows, cols;
};

static void transpose_bands(size_t begin, size_t end, void *arg)
{
	const struct transpose_job *job = arg;
	const size_t rows = job->rows, cols = job->cols;
	for (size_t r0 = begin * TILE; r0 < end * TILE && r0 < rows; r0 += TILE) {
		size_t r1 = r0 + TILE < rows ? r0 + TILE : rows;
		for (size_t c0 = 0; c0 < cols; c0 += TILE) {
			size_t c1 = c0 + TILE < cols ? c0 + TILE : cols;
			for (size_t c = c0; c < c1; c++)
				for (size_t r = r0; r < r1; r++)
					job->out[c * rows + r] = job->in[r * cols + c];
		}
	}
}

void ref_transpose(const float *in, float *out, size_t rows, size_t cols)
{
	struct transpose_job job = { in, out, rows, cols };
	size_t bands = (rows + TILE - 1) / TILE;
	/* A band of tile rows is TILE * cols elements: at least GRAIN a piece. */
	size_t per_band = TILE * (cols ? cols : 1);
	parallel_for(bands, (GRAIN + per_band - 1) / per_band, transpose_bands, &job);
}
