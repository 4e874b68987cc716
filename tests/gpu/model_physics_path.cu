/*
 * model_physics's tilepath section (see model_physics.cu for the output's
 * form): what stands between rows.*.sync, whose blocks move a 16x16 or 32x32
 * tile's bytes with its barrier, and the tiled transposes (transpose.*) that
 * run 7 to 9 points of copy slower with the same DRAM addresses. Every case
 * is one word a thread, loads across and stores down (a transpose's order),
 * on the 16384 x 16384 matrix of model_physics_rows.cu; T = 16 (256 threads,
 * runs of 64 bytes) or 32 (1024 threads, runs of 128 bytes).
 *
 *   tilepath.t<T>.rows.pct       rows.*.sync's case again (this run's baseline):
 *                                32-bit shift addressing, the words passed
 *                                through shared memory block-reversed
 *   tilepath.t<T>.exchange.pct   the same addressing, the words exchanged as a
 *                                transpose does: written to tile[row][lane],
 *                                read from tile[lane][row] (padded: no conflict)
 *   tilepath.t<T>.index.pct      the transposes' 2-D grid and 64-bit index
 *                                arithmetic, the words passed block-reversed
 *   tilepath.t<T>.tiled.pct      the tiled transpose (transpose.*'s kernel, padded)
 *   tilepath.t<T>.bounds.pct     the same with a lab file's bounds check on every
 *                                access (int rows and cols passed at run time)
 *   tilepath.t<T>.alu<C>.pct     the rows case with C dependent integer
 *                                multiply-adds on the path to its load address
 *                                (C = 16, 64, 128): a block's path in ns per
 *                                dependent instruction, from the slope
 */
#include "model_physics.h"

#define LG_SIDE 14
#define SIDE (1u << LG_SIDE)
static const size_t matrix_bytes = (size_t)4 << (2 * LG_SIDE);

/* Word index of row j, lane p of block b's T x T tile, blocks numbered along
 * the row (across) or down the column strip (down): model_physics_rows.cu's
 * word_at for one word a thread. */
template <int T>
__device__ __forceinline__ unsigned tile_word(unsigned b, unsigned j, unsigned p, int down)
{
	const unsigned lg_t = T == 16 ? 4 : 5, lg_n = LG_SIDE - lg_t;
	const unsigned inner = b & ((1u << lg_n) - 1), outer = b >> lg_n;
	const unsigned strip = down ? outer : inner, group = down ? inner : outer;
	return (((group << lg_t) + j) << LG_SIDE) + (strip << lg_t) + p;
}

/* EXCHANGE: a transpose's shared-memory exchange instead of the block
 * reversed; C: dependent multiply-adds on the path to the load's address
 * (zero = 0 at run time, so the address is unchanged). */
template <int T, bool EXCHANGE, int C>
__global__ void shift_tile(const unsigned *__restrict__ in, unsigned *__restrict__ out, unsigned zero)
{
	__shared__ unsigned stage[T][T + 1];
	const unsigned j = threadIdx.x / T, p = threadIdx.x % T;
	unsigned h = blockIdx.x;
#pragma unroll
	for (int c = 0; c < C; c++)
		h = h * h + threadIdx.x;	/* not affine: no folding */
	const unsigned ld = tile_word<T>(blockIdx.x, j, p, 0) + (h & zero);
	const unsigned st = tile_word<T>(blockIdx.x, j, p, 1);
	stage[j][p] = in[ld];
	__syncthreads();
	const unsigned back = T * T - 1 - threadIdx.x;
	out[st] = (EXCHANGE ? stage[p][j] : stage[back / T][back % T]) + 1u;
}

/* The tiled transpose's addressing, one word a thread; EXCHANGE: its
 * shared-memory exchange (else the block reversed); BOUNDS: a lab file's checks. */
template <int T, bool EXCHANGE, bool BOUNDS>
__global__ void index_tile(const unsigned *__restrict__ in, unsigned *__restrict__ out, int rows, int cols)
{
	__shared__ unsigned stage[T][T + 1];
	const int c0 = blockIdx.x * T, r0 = blockIdx.y * T;
	const int r = r0 + threadIdx.y, c = c0 + threadIdx.x;
	if (!BOUNDS || (r < rows && c < cols))
		stage[threadIdx.y][threadIdx.x] = in[(size_t)r * cols + c];
	__syncthreads();
	const int oc = c0 + threadIdx.y, orow = r0 + threadIdx.x;
	const unsigned back = T * T - 1 - (threadIdx.y * T + threadIdx.x);
	if (!BOUNDS || (oc < cols && orow < rows))
		out[(size_t)oc * rows + orow] = EXCHANGE ? stage[threadIdx.x][threadIdx.y] : stage[back / T][back % T];
}

enum tile_case { TC_ROWS, TC_EXCHANGE, TC_INDEX, TC_TILED, TC_BOUNDS, TC_ALU16, TC_ALU64, TC_ALU128, TC_COUNT };
static const char *const case_name[TC_COUNT] = { "rows", "exchange", "index", "tiled", "bounds",
						  "alu16", "alu64", "alu128" };

struct path_ctx { const unsigned *in; unsigned *out; enum tile_case which; };

template <int T>
static void run_case(const struct path_ctx *c)
{
	const unsigned blocks = SIDE / T * (SIDE / T);
	const dim3 grid(SIDE / T, SIDE / T), block(T, T);
	switch (c->which) {
	case TC_ROWS: shift_tile<T, false, 0><<<blocks, T * T>>>(c->in, c->out, 0); break;
	case TC_EXCHANGE: shift_tile<T, true, 0><<<blocks, T * T>>>(c->in, c->out, 0); break;
	case TC_INDEX: index_tile<T, false, false><<<grid, block>>>(c->in, c->out, SIDE, SIDE); break;
	case TC_TILED: index_tile<T, true, false><<<grid, block>>>(c->in, c->out, SIDE, SIDE); break;
	case TC_BOUNDS: index_tile<T, true, true><<<grid, block>>>(c->in, c->out, SIDE, SIDE); break;
	case TC_ALU16: shift_tile<T, false, 16><<<blocks, T * T>>>(c->in, c->out, 0); break;
	case TC_ALU64: shift_tile<T, false, 64><<<blocks, T * T>>>(c->in, c->out, 0); break;
	default: shift_tile<T, false, 128><<<blocks, T * T>>>(c->in, c->out, 0); break;
	}
}

static void do_path16(void *p) { run_case<16>((const struct path_ctx *)p); }
static void do_path32(void *p) { run_case<32>((const struct path_ctx *)p); }

void tile_path_sweep(double copy_gbps)
{
	unsigned *in, *out;

	CHECK(cudaMalloc((void **)&in, matrix_bytes));
	CHECK(cudaMalloc((void **)&out, matrix_bytes));
	CHECK(cudaMemset(in, 1, matrix_bytes));
	CHECK(cudaMemset(out, 0, matrix_bytes));
	for (int t = 16; t <= 32; t += 16)
		for (int w = 0; w < TC_COUNT; w++) {
			struct path_ctx c = { in, out, (enum tile_case)w };
			const float ms = time_ms(t == 16 ? do_path16 : do_path32, &c, 1);
			printf("tilepath.t%d.%s.pct=%.1f\n", t, case_name[w],
			       100.0 * 2.0 * (double)matrix_bytes / (ms * 1e6) / copy_gbps);
		}
	CHECK(cudaFree(in));
	CHECK(cudaFree(out));
}
