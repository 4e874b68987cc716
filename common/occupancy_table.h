/*
 * The kit's side of lab 4's calculator check: device descriptions, and
 * tables of answers from the CUDA occupancy API.
 *
 * A table is text, one configuration a line, so that a reader can check a
 * failed case by eye and a diff shows what a new toolkit changed:
 *
 *   # any comment
 *   source CUDA occupancy API (cudaOccupancyMaxActiveBlocksPerMultiprocessor) on ...
 *   name sm_90 (H100 SXM)
 *   device major=9 minor=0 warp_size=32 ... shared_alloc_unit=128
 *   threads,regs,shared,blocks,warps,limits
 *   256,33,0,6,48,registers
 *
 * limits is the occ_limit names joined by '+', or '?' where the source gave
 * the number of blocks but not why.
 *
 * The students' copy of the kit (mk/student_kit.sh) holds the tables hashed:
 * a line "salt HEX" before the rows, the header
 * "threads,regs,shared,digest", and each row's answer replaced by its
 * digest (grader/steps/occupancy_digest.h), which checks an answer without
 * saying it.
 */
#ifndef KIT_OCCUPANCY_TABLE_H
#define KIT_OCCUPANCY_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "occupancy.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OCC_TABLE_MAX_ROWS 8192
#define KIT_OCC_LIMITS_UNKNOWN 0x80000000u

#define OCC_DIGEST_HEX 32

struct occ_row {
	struct occ_kernel k;
	struct occ_result r;		/* r.limits may be KIT_OCC_LIMITS_UNKNOWN */
	char digest[OCC_DIGEST_HEX + 1];	/* a hashed table's row: r is unknown; else "" */
};

struct occ_table {
	char salt[OCC_DIGEST_HEX + 1];	/* a hashed table's; "" for a plain one */
	char source[256];
	struct occ_device dev;
	struct occ_row *rows;
	int n_rows;
};

/* "sm_80" (A100) or "sm_90" (H100 SXM): the devices the kit keeps tables for.
 * Returns 0, or -1 for a name it does not know. */
int occ_device_preset(const char *name, struct occ_device *d);

/* The limits that cudaDeviceProp does not hold, for compute capability
 * major.minor, as the CUDA occupancy calculator has them. Returns 0, or -1
 * for an architecture it does not know. */
int occ_device_arch(int major, int minor, struct occ_device *d);

/* The configurations the kit asks about: every thread count, register count
 * and shared size below, crossed. regs may be the registers the probe's
 * kernels really got. Returns how many were written (at most max). */
extern const int occ_config_threads[], occ_config_regs[], occ_config_shared[];
extern const int occ_config_n_threads, occ_config_n_regs, occ_config_n_shared;
int occ_configs(const int *regs, int n_regs, struct occ_kernel *out, int max);

/* r's blocks_per_sm, warps_per_sm and occupancy, for blocks of `threads`
 * threads (limits left alone). */
void occ_result_set_blocks(const struct occ_device *d, int threads, int blocks, struct occ_result *r);

int occ_table_load(const char *path, struct occ_table *t, char *err, size_t errlen);
int occ_table_write(FILE *f, const struct occ_table *t);
void occ_table_free(struct occ_table *t);

const char *occ_limits_format(unsigned limits, char *buf, size_t len);
int occ_limits_parse(const char *text, unsigned *limits);

/* "256 threads x 33 registers, 0 B shared" */
const char *occ_kernel_format(const struct occ_kernel *k, char *buf, size_t len);
/* "7 blocks/SM, 56 warps (87.5%), limited by registers" */
const char *occ_result_format(const struct occ_result *r, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
