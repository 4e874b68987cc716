/*
 * model_physics: the mechanisms behind the performance model's terms, each
 * measured alone on one GPU (docs/model.md, "The terms"). Prints key=value
 * lines on stdout; tests/gpu/model_heldout.sh builds and runs it under
 * `timeout` and keeps the table under $OUT.
 *
 * Every figure is the median of 11 runs timed with CUDA events after a
 * warm-up; DRAM figures flush the L2 first. "pct" is bytes read + written over
 * the time, as a percentage of a device-to-device cudaMemcpy of the same bytes
 * measured in this run (the grader's "% of copy").
 *
 * Sections (keys):
 *   copy.gbps               cudaMemcpy D2D of 256 MiB, read + write
 *   merge.store.L<l>.<near|far>.pct
 *                           a transpose-like store: each warp writes l
 *                           consecutive floats in each of 32/l rows (32/l
 *                           sectors per request for l <= 8). "near": the warps
 *                           that fill the rest of each sector run beside it
 *                           (same block); "far": a quarter of the grid later,
 *                           so the sector has left the L2 before it is full.
 *                           The loads are coalesced.
 *   merge.load.L<l>.<near|far>.pct   the same pattern on the loads, stores coalesced.
 *   req.<load|store>.S<s>.{sectors_per_ns,requests_per_ns}
 *                           L2-resident (16 MiB) requests touching s sectors
 *                           each, one per 128-byte line: the request and
 *                           sector throughput of the L1/L2 path without DRAM.
 *   chain.b<block>.shfl<k>.bar<m>.ns_per_elem
 *                           one element a thread of 2^26, k dependent shuffles
 *                           and m barriers per element: the cost of scan
 *                           ladders and barriers per element, DRAM aside.
 *   tile.b<threads>.k<k>.<sync|nosync>.pct
 *                           one-shot blocks that load k words a thread (all in
 *                           flight), then (sync) pass a barrier, then store:
 *                           what a run of loads closed by a barrier costs
 *   rows.*, transpose.*     short runs on many rows, and the tiled transposes:
 *                           model_physics_rows.cu says what each key is
 *   tilepath.*              what a tiled transpose's block does beyond rows.*.sync's
 *                           (its shared exchange, index arithmetic, bounds checks,
 *                           dependent instructions): model_physics_path.cu
 *   launch.back_to_back_us  empty launches back to back
 *
 *   model_physics [SECTION...]
 *
 * runs the sections named (merge req chain tile rows transpose tilepath
 * launch), or every one; copy.gbps always comes first. Built from
 * model_physics.cu, model_physics_rows.cu and model_physics_path.cu.
 */
#include <string.h>

#include "model_physics.h"

#define RUNS 11
static cudaEvent_t t0, t1;
static char *flush_buf;
static const size_t flush_bytes = (size_t)256 << 20;

static int cmpf(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

float time_ms(action f, void *ctx, int flush)
{
	float t[RUNS];
	f(ctx);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	for (int r = 0; r < RUNS; r++) {
		if (flush)
			CHECK(cudaMemset(flush_buf, r, flush_bytes));
		CHECK(cudaEventRecord(t0));
		f(ctx);
		CHECK(cudaEventRecord(t1));
		CHECK(cudaEventSynchronize(t1));
		CHECK(cudaEventElapsedTime(&t[r], t0, t1));
	}
	CHECK(cudaGetLastError());
	qsort(t, RUNS, sizeof t[0], cmpf);
	return t[RUNS / 2];
}

/* ---- partial-sector merging ---------------------------------------------- */
/* Element i of the coalesced side maps to out index perm(i): warp W, lane x.
 * Width w = max(l, 8) floats (a sector at least); gsz = w / l warps share the
 * sectors of one group of 32/l rows; pitch floats a row. */
__device__ __forceinline__ size_t perm(size_t i, unsigned l, size_t pitch, size_t n, int far)
{
	/* Every quantity is a power of two: shifts and masks only, so that the
	 * kernel waits for memory, not for 64-bit division. */
	const unsigned lg_l = __ffs(l) - 1, w = l > 8 ? l : 8, lg_w = __ffs(w) - 1;
	const unsigned lg_gsz = lg_w - lg_l, lg_G = 5 - lg_l;
	const unsigned lg_pitch = __ffsll((long long)pitch) - 1, lg_per_row = lg_pitch - lg_w;
	const unsigned lg_nwarps = __ffsll((long long)n) - 1 - 5, lg_groups = lg_nwarps - lg_gsz;
	const size_t W = i >> 5;
	const unsigned x = (unsigned)(i & 31), g = x >> lg_l, p = x & (l - 1);
	size_t T, k;
	if (far) {
		k = W >> lg_groups;
		T = W & (((size_t)1 << lg_groups) - 1);
	} else {
		k = W & (((size_t)1 << lg_gsz) - 1);
		T = W >> lg_gsz;
	}
	const size_t sc = T & (((size_t)1 << lg_per_row) - 1), rb = T >> lg_per_row;
	return (((rb << lg_G) + g) << lg_pitch) + (sc << lg_w) + (k << lg_l) + p;
}

__global__ void merge_store(const float *in, float *out, size_t n, unsigned l, size_t pitch, int far)
{
	const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[perm(i, l, pitch, n, far)] = in[i];
}

__global__ void merge_load(const float *in, float *out, size_t n, unsigned l, size_t pitch, int far)
{
	const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[perm(i, l, pitch, n, far)];
}

struct merge_ctx { const float *in; float *out; size_t n, pitch; unsigned l; int far, load; };

static void do_merge(void *p)
{
	struct merge_ctx *c = (struct merge_ctx *)p;
	unsigned blocks = (unsigned)((c->n + 255) / 256);
	if (c->load)
		merge_load<<<blocks, 256>>>(c->in, c->out, c->n, c->l, c->pitch, c->far);
	else
		merge_store<<<blocks, 256>>>(c->in, c->out, c->n, c->l, c->pitch, c->far);
}

/* ---- request throughput, L2-resident --------------------------------------- */
/* Each warp issues `iters` requests; lane x touches sector x % s of the
 * request, each sector in its own 128-byte line; the footprint is `span`
 * floats (L2-resident). */
__global__ void req_kernel(float *buf, size_t span, unsigned s, int iters, int store, float *sink)
{
	const unsigned x = threadIdx.x & 31;
	const size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	size_t base = (warp * 32 * 32) % span;
	float acc = 0.f;
	for (int it = 0; it < iters; it++) {
		const size_t a = (base + (size_t)(x % s) * 32 + (x / s) % 8) % span;
		if (store)
			buf[a] = (float)it;
		else
			acc += buf[a];
		base = (base + 32 * 32 * 64) % span;
	}
	if (!store && acc == 12345.f)
		*sink = acc;
}

struct req_ctx { float *buf, *sink; size_t span; unsigned s; int iters, store, blocks; };

static void do_req(void *p)
{
	struct req_ctx *c = (struct req_ctx *)p;
	req_kernel<<<c->blocks, 256>>>(c->buf, c->span, c->s, c->iters, c->store, c->sink);
}

/* ---- shuffle and barrier chains ---------------------------------------------- */
__global__ void chain(const unsigned *in, unsigned *out, size_t n, int shfl, int bars)
{
	extern __shared__ unsigned sm[];
	const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned v = i < n ? in[i] : 0u;
	for (int k = 0; k < shfl; k++) {
		unsigned u = __shfl_up_sync(0xffffffffu, v, 1u << (k % 5));
		v += (threadIdx.x & 31) >= (1u << (k % 5)) ? u : 0u;
	}
	for (int k = 0; k < bars; k++) {
		sm[threadIdx.x] = v;
		__syncthreads();
		v += sm[threadIdx.x ^ 1];
		__syncthreads();
	}
	if (i < n)
		out[i] = v;
}

struct chain_ctx { const unsigned *in; unsigned *out; size_t n; int block, shfl, bars; };

static void do_chain(void *p)
{
	struct chain_ctx *c = (struct chain_ctx *)p;
	chain<<<(unsigned)((c->n + c->block - 1) / c->block), c->block, c->block * 4>>>(
		c->in, c->out, c->n, c->shfl, c->bars);
}

/* ---- a run of loads closed by a barrier ------------------------------------- */
/* One-shot blocks of `threads` threads, each loading K consecutive-by-block
 * words (coalesced, all K in flight), then (sync) a barrier, then storing
 * them: a tile's load phase without the transpose. Without sync the same
 * kernel has no barrier: the difference is what a barrier-closed run costs. */
template <int K, bool SYNC>
__global__ void tile_phase(const unsigned *in, unsigned *out)
{
	__shared__ unsigned stage[K * 1024];
	const size_t base = (size_t)blockIdx.x * blockDim.x * K + threadIdx.x;
	unsigned v[K];
#pragma unroll
	for (int k = 0; k < K; k++)
		v[k] = in[base + (size_t)k * blockDim.x];
	if (SYNC)
		pass_through_shared<K>(stage, v);
#pragma unroll
	for (int k = 0; k < K; k++)
		out[base + (size_t)k * blockDim.x] = v[k] + 1u;
}

struct tile_ctx { const unsigned *in; unsigned *out; size_t n; int threads, k, sync; };

static void do_tile(void *p)
{
	struct tile_ctx *c = (struct tile_ctx *)p;
	unsigned grid = (unsigned)(c->n / ((size_t)c->threads * c->k));
	if (c->k == 1)
		c->sync ? tile_phase<1, true><<<grid, c->threads>>>(c->in, c->out)
			: tile_phase<1, false><<<grid, c->threads>>>(c->in, c->out);
	else
		c->sync ? tile_phase<4, true><<<grid, c->threads>>>(c->in, c->out)
			: tile_phase<4, false><<<grid, c->threads>>>(c->in, c->out);
}

__global__ void empty_kernel(void) {}

static void do_launches(void *p)
{
	(void)p;
	for (int k = 0; k < 1000; k++)
		empty_kernel<<<1, 32>>>();
}

struct copy_ctx { void *dst; const void *src; size_t bytes; };

static void do_copy(void *p)
{
	struct copy_ctx *c = (struct copy_ctx *)p;
	CHECK(cudaMemcpy(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice));
}

static const char *const sections[] = { "merge", "req", "chain", "tile", "rows", "transpose", "tilepath", "launch" };

/* Whether the command line names this section (or names none). */
static int wanted(int argc, char **argv, const char *section)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], section) == 0)
			return 1;
	return 0;
}

/* Every name on the command line is a section's. */
static int sections_known(int argc, char **argv)
{
	const int known = (int)(sizeof sections / sizeof sections[0]);
	for (int i = 1; i < argc; i++) {
		int s = 0;
		while (s < known && strcmp(argv[i], sections[s]) != 0)
			s++;
		if (s == known) {
			fprintf(stderr, "model_physics: no section '%s' (merge req chain tile rows transpose tilepath launch)\n",
				argv[i]);
			return 0;
		}
	}
	return 1;
}

int main(int argc, char **argv)
{
	const size_t n = (size_t)1 << 26, bytes = n * 4;
	float *a, *b, *sink;
	cudaDeviceProp prop;

	if (!sections_known(argc, argv))
		return 2;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	printf("device.name=%s\n", prop.name);
	printf("device.sms=%d\ndevice.l2_bytes=%d\n", prop.multiProcessorCount, prop.l2CacheSize);
	CHECK(cudaEventCreate(&t0));
	CHECK(cudaEventCreate(&t1));
	CHECK(cudaMalloc((void **)&flush_buf, flush_bytes));
	CHECK(cudaMalloc((void **)&a, bytes));
	CHECK(cudaMalloc((void **)&b, bytes));
	CHECK(cudaMalloc((void **)&sink, 64));
	CHECK(cudaMemset(a, 0, bytes));
	CHECK(cudaMemset(b, 0, bytes));

	struct copy_ctx cc = { b, a, bytes };
	const double copy_gbps = 2.0 * bytes / (time_ms(do_copy, &cc, 1) * 1e6);
	printf("copy.gbps=%.1f\n", copy_gbps);

	const unsigned ls[] = { 1, 2, 4, 8, 16, 32 };
	for (int load = 0; load < 2 && wanted(argc, argv, "merge"); load++)
		for (int li = 0; li < 6; li++)
			for (int far = 0; far < 2; far++) {
				if (ls[li] >= 8 && far)
					continue;	/* a warp fills its own sectors: nothing to merge */
				struct merge_ctx mc = { a, b, n, 16384, ls[li], far, load };
				const float ms = time_ms(do_merge, &mc, 1);
				printf("merge.%s.L%u.%s.pct=%.1f\n", load ? "load" : "store", ls[li],
				       far ? "far" : "near", 100.0 * 2.0 * bytes / (ms * 1e6) / copy_gbps);
			}

	const unsigned ss[] = { 1, 2, 4, 8, 16, 32 };
	for (int store = 0; store < 2 && wanted(argc, argv, "req"); store++)
		for (int si = 0; si < 6; si++) {
			struct req_ctx rc = { a, sink, (size_t)4 << 20, ss[si], 256, store,
					      prop.multiProcessorCount * 8 };
			const float ms = time_ms(do_req, &rc, 0);
			const double reqs = (double)rc.blocks * 8 * rc.iters;
			printf("req.%s.S%u.requests_per_ns=%.3f\n", store ? "store" : "load", ss[si],
			       reqs / (ms * 1e6));
			printf("req.%s.S%u.sectors_per_ns=%.3f\n", store ? "store" : "load", ss[si],
			       reqs * ss[si] / (ms * 1e6));
		}

	const int blocks[] = { 256, 1024 };
	const int shfls[] = { 0, 5, 10, 20, 40 };
	const int barss[] = { 0, 1, 4, 10, 20 };
	for (int bi = 0; bi < 2 && wanted(argc, argv, "chain"); bi++) {
		for (int k = 0; k < 5; k++) {
			struct chain_ctx ch = { (const unsigned *)a, (unsigned *)b, n, blocks[bi], shfls[k], 0 };
			printf("chain.b%d.shfl%d.bar0.ns_per_elem=%.5f\n", blocks[bi], shfls[k],
			       time_ms(do_chain, &ch, 1) * 1e6 / n);
		}
		for (int k = 1; k < 5; k++) {
			struct chain_ctx ch = { (const unsigned *)a, (unsigned *)b, n, blocks[bi], 0, barss[k] };
			printf("chain.b%d.shfl0.bar%d.ns_per_elem=%.5f\n", blocks[bi], barss[k],
			       time_ms(do_chain, &ch, 1) * 1e6 / n);
		}
	}
	const int tile_threads[] = { 64, 128, 256, 512, 1024 };
	for (int ti = 0; ti < 5 && wanted(argc, argv, "tile"); ti++)
		for (int k = 1; k <= 4; k += 3)
			for (int sync = 0; sync < 2; sync++) {
				struct tile_ctx tc = { (const unsigned *)a, (unsigned *)b, n, tile_threads[ti], k, sync };
				const float ms = time_ms(do_tile, &tc, 1);
				printf("tile.b%d.k%d.%s.pct=%.1f\n", tile_threads[ti], k, sync ? "sync" : "nosync",
				       100.0 * 2.0 * bytes / (ms * 1e6) / copy_gbps);
			}
	if (wanted(argc, argv, "rows"))
		rows_sweep(copy_gbps);
	if (wanted(argc, argv, "transpose"))
		transpose_sweep(copy_gbps);
	if (wanted(argc, argv, "tilepath"))
		tile_path_sweep(copy_gbps);
	if (wanted(argc, argv, "launch"))
		printf("launch.back_to_back_us=%.3f\n", time_ms(do_launches, NULL, 0));
	return 0;
}
