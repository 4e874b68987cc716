/*
 * model_physics's row sections (see model_physics.cu for the output's form):
 * what a copy costs when each block's bytes are short runs on many rows of a
 * 16384 x 16384 matrix of 4-byte words (64 KiB a row, 1 GiB read and 1 GiB
 * written a case), as a tiled transpose's blocks touch them.
 *
 *   rows.b<threads>.R<bytes>.k<words>.ld_<order>.st_<order>.pct
 *       A block of `threads` threads copies a tile of R contiguous bytes
 *       (R / 4 lanes side by side) on each of threads * 4 / R * k rows, word
 *       for word, to the same place in the output: each thread loads its k
 *       words (rows threads * 4 / R apart, all k in flight), then stores them.
 *       So a warp's request covers R bytes of each of 128 / R rows (R < 128)
 *       or 128 bytes of one (R >= 128). The order says where the next block
 *       goes: "across" the row (the blocks resident at once fill whole rows
 *       between them: a transpose's loads), or "down" to the next rows of the
 *       same column strip (the blocks resident at once touch R bytes of each
 *       of many rows, the rest of each row coming a whole column of blocks
 *       later: a transpose's stores). Loads and stores take their orders
 *       separately. k = 1 at 256 threads is a 16x16 tile's blocks (R = 64)
 *       or a 32x8 tile's with one word a thread (R = 128); at 1024 threads a
 *       32x32 tile's (R = 128). At a fixed R, k trades blocks for words a
 *       thread over the same bytes: a fixed cost per block falls as 1 / k,
 *       a cost of short runs does not.
 *   rows.b<threads>.R<bytes>.k<words>.ld_<order>.st_<order>.sync.pct
 *       The same with a barrier between the loads and the stores, the words
 *       passed through shared memory (each thread stores another's), as a
 *       tile does: the transposes' addressing and barrier without their
 *       shared-memory pattern.
 *   transpose.t<tile>x<rows>.<padded|unpadded>.pct
 *       The tiled transposes themselves, through shared memory, blocks of
 *       tile x rows threads (tile / rows words a thread): reference points.
 */
#include "model_physics.h"

#define LG_SIDE 14			/* 16384 words a row, 16384 rows */
#define SIDE (1u << LG_SIDE)
static const size_t matrix_bytes = (size_t)4 << (2 * LG_SIDE);

/* The word index of lane p of row j of block b's tile: tiles of 2^lg_w words
 * by 2^lg_rows rows, numbered along the row (across) or down the column
 * strip (down). Shifts and masks only: the kernel waits for memory, not for
 * address arithmetic. */
__device__ __forceinline__ unsigned word_at(unsigned b, unsigned j, unsigned p, unsigned lg_w,
					    unsigned lg_rows, int down)
{
	const unsigned lg_strips = LG_SIDE - lg_w, lg_groups = LG_SIDE - lg_rows;
	unsigned strip, group;
	if (down) {
		group = b & ((1u << lg_groups) - 1);
		strip = b >> lg_groups;
	} else {
		strip = b & ((1u << lg_strips) - 1);
		group = b >> lg_strips;
	}
	return ((((group << lg_rows) + j) << LG_SIDE)) + (strip << lg_w) + p;
}

template <int K, bool SYNC>
__global__ void row_runs(const unsigned *__restrict__ in, unsigned *__restrict__ out, unsigned lg_w,
			 unsigned lg_h, int ld_down, int st_down)
{
	extern __shared__ unsigned stage[];	/* K words a thread, SYNC only */
	const unsigned lg_rows = lg_h + (K == 1 ? 0 : K == 2 ? 1 : K == 4 ? 2 : 3);
	const unsigned j = threadIdx.x >> lg_w, p = threadIdx.x & ((1u << lg_w) - 1);
	const unsigned ld = word_at(blockIdx.x, j, p, lg_w, lg_rows, ld_down);
	const unsigned st = word_at(blockIdx.x, j, p, lg_w, lg_rows, st_down);
	unsigned v[K];
#pragma unroll
	for (int k = 0; k < K; k++)
		v[k] = in[ld + ((unsigned)k << (lg_h + LG_SIDE))];
	if (SYNC)	/* as a tile does: through shared memory, a barrier between */
		pass_through_shared<K>(stage, v);
#pragma unroll
	for (int k = 0; k < K; k++)
		out[st + ((unsigned)k << (lg_h + LG_SIDE))] = v[k] + 1u;
}

struct rows_ctx { const unsigned *in; unsigned *out; unsigned threads, lg_w, lg_h, k; int ld_down, st_down, sync; };

#define ROW_RUNS(K, S) row_runs<K, S><<<blocks, c->threads, S ? K * c->threads * 4 : 0>>>( \
	c->in, c->out, c->lg_w, c->lg_h, c->ld_down, c->st_down)

static void do_rows(void *p)
{
	const struct rows_ctx *c = (const struct rows_ctx *)p;
	const unsigned blocks = (unsigned)(((size_t)1 << (2 * LG_SIDE)) / ((size_t)c->threads * c->k));
	switch (c->k * 2 + (c->sync != 0)) {
	case 2: ROW_RUNS(1, false); break;
	case 3: ROW_RUNS(1, true); break;
	case 4: ROW_RUNS(2, false); break;
	case 5: ROW_RUNS(2, true); break;
	case 8: ROW_RUNS(4, false); break;
	case 9: ROW_RUNS(4, true); break;
	case 16: ROW_RUNS(8, false); break;
	default: ROW_RUNS(8, true); break;
	}
}

static unsigned lg2(unsigned x)
{
	unsigned l = 0;
	while ((1u << (l + 1)) <= x)
		l++;
	return l;
}

static double pct_of_copy(float ms, double copy_gbps)
{
	return 100.0 * 2.0 * (double)matrix_bytes / (ms * 1e6) / copy_gbps;
}

static void alloc_pair(unsigned **in, unsigned **out)
{
	CHECK(cudaMalloc((void **)in, matrix_bytes));
	CHECK(cudaMalloc((void **)out, matrix_bytes));
	CHECK(cudaMemset(*in, 1, matrix_bytes));
	CHECK(cudaMemset(*out, 0, matrix_bytes));
}

void rows_sweep(double copy_gbps)
{
	static const char *const order[] = { "across", "down" };
	const unsigned run_bytes[] = { 32, 64, 128, 256, 512 };
	/* k = 1 at 256 and 1024 threads (the tiles' block sizes), then 2 to 8
	 * words a thread at 256; with a barrier, 1 word at 256 and 1024 threads
	 * and 4 at 256. */
	const struct { unsigned threads, k; int sync; } shapes[] = {
		{ 256, 1, 0 }, { 1024, 1, 0 }, { 256, 2, 0 }, { 256, 4, 0 }, { 256, 8, 0 },
		{ 256, 1, 1 }, { 1024, 1, 1 }, { 256, 4, 1 },
	};
	unsigned *in, *out;

	alloc_pair(&in, &out);
	for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
		for (int ri = 0; ri < 5; ri++)
			for (int ld = 0; ld < 2; ld++)
				for (int st = 0; st < 2; st++) {
					const unsigned w = run_bytes[ri] / 4, threads = shapes[si].threads;
					struct rows_ctx c = { in, out, threads, lg2(w), lg2(threads / w), shapes[si].k,
							      ld, st, shapes[si].sync };
					const float ms = time_ms(do_rows, &c, 1);
					printf("rows.b%u.R%u.k%u.ld_%s.st_%s%s.pct=%.1f\n", threads, run_bytes[ri],
					       shapes[si].k, order[ld], order[st], shapes[si].sync ? ".sync" : "",
					       pct_of_copy(ms, copy_gbps));
				}
	CHECK(cudaFree(in));
	CHECK(cudaFree(out));
}

/* A lab 3 tiled transpose of the square matrix: TILE x TILE through shared
 * memory (PAD words on each row), blocks of TILE x ROWS threads. */
template <int TILE, int ROWS, int PAD>
__global__ void tiled(const unsigned *__restrict__ in, unsigned *__restrict__ out)
{
	__shared__ unsigned tile[TILE][TILE + PAD];
	const unsigned c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
#pragma unroll
	for (int k = threadIdx.y; k < TILE; k += ROWS)
		tile[k][threadIdx.x] = in[(size_t)(r0 + k) * SIDE + c0 + threadIdx.x];
	__syncthreads();
#pragma unroll
	for (int k = threadIdx.y; k < TILE; k += ROWS)
		out[(size_t)(c0 + k) * SIDE + r0 + threadIdx.x] = tile[threadIdx.x][k];
}

struct transpose_ctx { const unsigned *in; unsigned *out; int tile, rows, pad; };

static void do_transpose(void *p)
{
	const struct transpose_ctx *c = (const struct transpose_ctx *)p;
	const dim3 block(c->tile, c->rows), grid(SIDE / c->tile, SIDE / c->tile);
	if (c->tile == 16)
		c->pad ? tiled<16, 16, 1><<<grid, block>>>(c->in, c->out) : tiled<16, 16, 0><<<grid, block>>>(c->in, c->out);
	else if (c->rows == 32)
		c->pad ? tiled<32, 32, 1><<<grid, block>>>(c->in, c->out) : tiled<32, 32, 0><<<grid, block>>>(c->in, c->out);
	else
		c->pad ? tiled<32, 8, 1><<<grid, block>>>(c->in, c->out) : tiled<32, 8, 0><<<grid, block>>>(c->in, c->out);
}

void transpose_sweep(double copy_gbps)
{
	const struct { int tile, rows; } shapes[] = { { 16, 16 }, { 32, 32 }, { 32, 8 } };
	unsigned *in, *out;

	alloc_pair(&in, &out);
	for (int si = 0; si < 3; si++)
		for (int pad = 1; pad >= 0; pad--) {
			struct transpose_ctx c = { in, out, shapes[si].tile, shapes[si].rows, pad };
			printf("transpose.t%dx%d.%s.pct=%.1f\n", shapes[si].tile, shapes[si].rows,
			       pad ? "padded" : "unpadded", pct_of_copy(time_ms(do_transpose, &c, 1), copy_gbps));
		}
	CHECK(cudaFree(in));
	CHECK(cudaFree(out));
}
