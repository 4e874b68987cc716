/*
 * Writes the kit's stored occupancy table for one device, from CUDA's own
 * calculator (cuda_occupancy.h), on a machine with the CUDA toolkit:
 *
 *   build/occupancy-table sm_90 > grader/labs/occupancy/sm_90.txt
 *
 * The live API on a GPU is the judge where there is one; these tables are
 * for where there is none, and the GPU run checks that they agree with it.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../../common/occupancy_table.h"
#include "occ_cuda.h"

int main(int argc, char **argv)
{
	struct occ_table t = { 0 };
	if (argc != 2 || occ_device_preset(argv[1], &t.dev) < 0) {
		fprintf(stderr, "usage: occupancy-table sm_80|sm_90\n");
		return 2;
	}
	snprintf(t.source, sizeof(t.source), "cuda_occupancy.h of CUDA %d.%d (cudaOccMaxActiveBlocksPerMultiprocessor)",
		 CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
	t.rows = calloc(OCC_TABLE_MAX_ROWS, sizeof(*t.rows));
	struct occ_kernel *k = calloc(OCC_TABLE_MAX_ROWS, sizeof(*k));
	if (!t.rows || !k)
		return 1;
	int n = occ_configs(occ_config_regs, occ_config_n_regs, k, OCC_TABLE_MAX_ROWS);
	for (int i = 0; i < n; i++) {
		t.rows[t.n_rows].k = k[i];
		if (occ_cuda_header(&t.dev, &k[i], &t.rows[t.n_rows].r) < 0) {
			fprintf(stderr, "cuda_occupancy.h refused %d threads, %d registers, %d B\n",
				k[i].threads_per_block, k[i].regs_per_thread, k[i].shared_per_block);
			return 1;
		}
		t.n_rows++;
	}
	printf("# Answers lab 4's occupancy calculator must give, from CUDA's own calculator.\n"
	       "# Regenerate: make occupancy-tables (needs the CUDA toolkit).\n");
	return occ_table_write(stdout, &t) < 0;
}
