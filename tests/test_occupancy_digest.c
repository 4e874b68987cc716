/*
 * Lab 4's answers in the students' copy (grader/steps/occupancy_digest.h):
 * a hashed table holds no answer in plain text, checks the right answers
 * as the plain table does, refuses wrong ones without saying the answer,
 * and the copy mk/student_kit.sh makes holds no plain table and no source
 * of the kit's questioner of cuda_occupancy.h.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "occupancy_table.h"
#include "steps/occupancy_check.h"
#include "steps/occupancy_digest.h"
#include "sys/kit_paths.h"

static struct occ_table plain, hashed;

static void load_both(void)
{
	char path[PATH_MAX], err[512];
	kit_path(path, sizeof path, "grader/labs/occupancy/sm_90.txt");
	cr_assert_eq(occ_table_load(path, &plain, err, sizeof err), 0, "%s", err);
	cr_assert_eq(occ_table_load(path, &hashed, err, sizeof err), 0, "%s", err);
	cr_assert_eq(occupancy_table_hash(&hashed), 0);
}

static void free_both(void)
{
	occ_table_free(&plain);
	occ_table_free(&hashed);
}

Test(occupancy_digest, a_hashed_table_checks_without_telling, .init = load_both, .fini = free_both)
{
	char msg[2048];
	struct occ_result *got = calloc((size_t)plain.n_rows, sizeof *got);
	cr_assert_not_null(got);
	for (int i = 0; i < plain.n_rows; i++)
		got[i] = plain.rows[i].r;
	cr_expect_eq(occupancy_compare(&hashed, got, msg, sizeof msg), 0, "%s", msg);
	/* One answer off by a block, one with a limit left out. */
	got[100].blocks_per_sm += 1;
	got[200].limits = 0;
	cr_expect_eq(occupancy_compare(&hashed, got, msg, sizeof msg), 2, "%s", msg);
	cr_expect(!strstr(msg, "expected"), "the answer is told: %s", msg);
	cr_expect_eq(occupancy_compare(&plain, got, msg, sizeof msg), 2, "%s", msg);
	free(got);

	/* Written and read back: no answer in the text. */
	char path[] = "/tmp/test-occ-digest-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *f = fdopen(fd, "w");
	cr_assert_eq(occ_table_write(f, &hashed), 0);
	fclose(f);
	struct occ_table back;
	char err[512];
	cr_assert_eq(occ_table_load(path, &back, err, sizeof err), 0, "%s", err);
	cr_expect_str_eq(back.salt, hashed.salt);
	cr_expect_str_eq(back.rows[7].digest, hashed.rows[7].digest);
	cr_expect(occupancy_row_matches(&back, &back.rows[7], &plain.rows[7].r));
	occ_table_free(&back);
	unlink(path);
}

Test(occupancy_digest, the_student_kit_holds_no_plain_answers, .timeout = 300)
{
	char script[PATH_MAX], cmd[4 * PATH_MAX], dir[] = "/tmp/test-occ-kit-XXXXXX";
	if (access(kit_path(cmd, sizeof cmd, ".git"), F_OK) != 0)
		cr_skip_test("the kit is not a git checkout here: there is nothing to archive");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof cmd, "sh '%s' '%s/kit.tar.gz' >/dev/null && tar -xzf '%s/kit.tar.gz' -C '%s'",
		 kit_path(script, sizeof script, "mk/student_kit.sh"), dir, dir, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	/* No plain table's header anywhere, no questioner of cuda_occupancy.h. */
	snprintf(cmd, sizeof cmd, "grep -rlq 'threads,regs,shared,blocks,warps,limits' '%s/cuda-lab-kit/grader/labs'",
		 dir);
	cr_expect_neq(system(cmd), 0, "a plain table is in the students' copy");
	snprintf(cmd, sizeof cmd, "test -e '%s/cuda-lab-kit/grader/labs/occupancy/occ_cuda.c'", dir);
	cr_expect_neq(system(cmd), 0, "occ_cuda.c is in the students' copy");
	snprintf(cmd, sizeof cmd, "grep -q '^threads,regs,shared,digest$' '%s/cuda-lab-kit/grader/labs/occupancy/sm_90.txt'",
		 dir);
	cr_expect_eq(system(cmd), 0, "sm_90.txt is not a hashed table");
	remove_tree(dir);
}
