/*
 * Asks this GPU's CUDA occupancy API the questions of lab 4's calculator
 * check, and writes the answers as an occupancy table (common/occupancy_table.h):
 *
 *   build/harness/occupancy-api OUT.txt
 *
 * Kit code only: no student code is linked in, so the grader can believe it.
 * Register counts are real: each is a kernel compiled under __maxnreg__ that
 * wants more registers than it is given, and cudaFuncGetAttributes says what
 * it got. The limiting factors come from cuda_occupancy.h, on the rows where
 * it gives the same number of blocks as the runtime; elsewhere they are '?'.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/occupancy_table.h"
/* The students' copy of the kit has no cuda_occupancy.h questioner (mk/
 * student_kit.sh): there every limiting factor is '?'. */
#if __has_include("../labs/occupancy/occ_cuda.h")
#include "../labs/occupancy/occ_cuda.h"
#define HAVE_OCC_CUDA 1
#endif

#define VALUES 160

/* Keeps VALUES loads live at once, so ptxas needs every register it may have. */
template <int REGS>
__global__ void __maxnreg__(REGS) register_hog(const float *in, float *out, int stride)
{
	float v[VALUES];
#pragma unroll
	for (int i = 0; i < VALUES; i++)
		v[i] = in[threadIdx.x + i * stride];
	float s = 0;
#pragma unroll
	for (int i = 0; i < VALUES; i++)
		s += v[i] * v[VALUES - 1 - i] + v[(i * 7) % VALUES];
#pragma unroll
	for (int i = 0; i < VALUES; i++)
		out[threadIdx.x + i * stride] = v[i] + s;
}

typedef void (*kernel_fn)(const float *, float *, int);

/* A kernel for each register count of occ_config_regs but 16, which ptxas
 * does not go below on sm_90 (it gives 24). */
static const kernel_fn kernels[] = {
	register_hog<24>,  register_hog<32>,  register_hog<33>, register_hog<40>,
	register_hog<48>,  register_hog<56>,  register_hog<64>,  register_hog<72>, register_hog<80>,
	register_hog<96>,  register_hog<128>, register_hog<168>, register_hog<200>, register_hog<255>,
};
#define N_KERNELS (int)(sizeof(kernels) / sizeof(kernels[0]))

static int die(const char *what, cudaError_t e)
{
	fprintf(stderr, "occupancy-api: %s: %s\n", what, cudaGetErrorString(e));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: occupancy-api OUT.txt\n");
		return 2;
	}
	cudaDeviceProp p;
	cudaError_t e = cudaGetDeviceProperties(&p, 0);
	if (e != cudaSuccess)
		return die("cudaGetDeviceProperties", e);

	struct occ_table t;
	memset(&t, 0, sizeof(t));
	struct occ_device *d = &t.dev;
	snprintf(d->name, sizeof(d->name), "%.48s (sm_%d%d)", p.name, p.major, p.minor);
	d->major = p.major;
	d->minor = p.minor;
	if (occ_device_arch(p.major, p.minor, d) < 0) {
		fprintf(stderr, "occupancy-api: compute capability %d.%d is not known to the kit\n",
			p.major, p.minor);
		return 1;
	}
	d->warp_size = p.warpSize;
	d->max_threads_per_block = p.maxThreadsPerBlock;
	d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
	d->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
	d->regs_per_sm = p.regsPerMultiprocessor;
	d->regs_per_block = p.regsPerBlock;
	d->shared_per_sm = (int)p.sharedMemPerMultiprocessor;
	d->shared_per_block_optin = (int)p.sharedMemPerBlockOptin;
	d->shared_reserved_per_block = (int)p.reservedSharedMemPerBlock;

	int runtime = 0, driver = 0;
	cudaRuntimeGetVersion(&runtime);
	cudaDriverGetVersion(&driver);
	snprintf(t.source, sizeof(t.source),
		 "CUDA occupancy API (cudaOccupancyMaxActiveBlocksPerMultiprocessor) on %.100s, runtime %d, driver %d",
		 p.name, runtime, driver);

	int regs[N_KERNELS];
	for (int i = 0; i < N_KERNELS; i++) {
		cudaFuncAttributes a;
		if ((e = cudaFuncSetAttribute((const void *)kernels[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
					      d->shared_per_block_optin)) != cudaSuccess ||
		    (e = cudaFuncGetAttributes(&a, (const void *)kernels[i])) != cudaSuccess)
			return die("a probe kernel", e);
		regs[i] = a.numRegs;
	}

	t.rows = (struct occ_row *)calloc(OCC_TABLE_MAX_ROWS, sizeof(*t.rows));
	struct occ_kernel *k = (struct occ_kernel *)calloc(OCC_TABLE_MAX_ROWS, sizeof(*k));
	if (!t.rows || !k)
		return 1;
	int per_kernel = occ_config_n_threads * occ_config_n_shared;
	int n = occ_configs(regs, N_KERNELS, k, OCC_TABLE_MAX_ROWS), disagree = 0, refused = 0;
	for (int i = 0; i < n; i++) {
		struct occ_row *row = &t.rows[t.n_rows++];
		int blocks = 0;
		/* A block that cannot launch is an error to the runtime, and 0 blocks here. */
		if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)kernels[i / per_kernel],
								  k[i].threads_per_block,
								  (size_t)k[i].shared_per_block) != cudaSuccess) {
			blocks = 0;
			refused++;
			cudaGetLastError();
		}
		row->k = k[i];
		occ_result_set_blocks(d, k[i].threads_per_block, blocks, &row->r);
		row->r.limits = KIT_OCC_LIMITS_UNKNOWN;
#ifdef HAVE_OCC_CUDA
		struct occ_result header;
		if (occ_cuda_header(d, &k[i], &header) == 0 && header.blocks_per_sm == blocks)
			row->r.limits = header.limits;
		else
			disagree++;
#endif
	}

	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%.4000s.tmp%d", argv[1], (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		return 1;
	}
	fprintf(f, "# %s: %d SMs, each %d warps, %d registers, %d B of shared memory\n", p.name,
		p.multiProcessorCount, d->max_threads_per_sm / d->warp_size, d->regs_per_sm, d->shared_per_sm);
	fprintf(f, "# %d configurations; the runtime refused %d (0 blocks); cuda_occupancy.h disagreed on %d\n",
		n, refused, disagree);
	fprintf(f, "# registers of the probe's kernels:");
	for (int i = 0; i < N_KERNELS; i++)
		fprintf(f, " %d", regs[i]);
	fprintf(f, "\n");
	int bad = occ_table_write(f, &t) < 0;
	if (fclose(f) != 0 || bad || rename(tmp, argv[1]) != 0) {
		perror(argv[1]);
		unlink(tmp);
		return 1;
	}
	fprintf(stderr, "occupancy-api: %d configurations on %s; cuda_occupancy.h disagreed on %d\n", n, p.name,
		disagree);
	return 0;
}
