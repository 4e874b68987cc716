/*
 * Lab 4's answers in the students' copy of the kit: each row of a table
 * keeps the digest of its answer, not the answer (common/occupancy_table.h),
 * so that the copy checks a calculator without holding a table to paste.
 * The digest is the first 16 bytes of SHA-256 over the table's salt, the
 * question and the answer, in hex.
 */
#ifndef GRADER_OCCUPANCY_DIGEST_H
#define GRADER_OCCUPANCY_DIGEST_H

#include "../../common/occupancy_table.h"

void occupancy_digest(const char *salt, const struct occ_kernel *k, const struct occ_result *r,
		      char out[OCC_DIGEST_HEX + 1]);

/* Whether got is the answer to row of t: its digest in a hashed table, its
 * fields in a plain one (limits '?' match any). */
int occupancy_row_matches(const struct occ_table *t, const struct occ_row *row, const struct occ_result *got);

/* Turns plain table t into a hashed one, with a fresh salt. Returns 0, or -1
 * when there is no randomness to draw the salt from. */
int occupancy_table_hash(struct occ_table *t);

#endif
