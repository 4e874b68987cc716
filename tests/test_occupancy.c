/* Lab 4's calculator check: the stored tables, their reading, the grader's
 * comparison and its messages, the harness's questions, the launch log. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/occupancy_table.h"
#include "steps/occupancy_check.h"
#include "steps/timing.h"

static void load_stored(const char *name, struct occ_table *t)
{
	char path[256], err[512] = "";
	snprintf(path, sizeof(path), "grader/labs/occupancy/%s.txt", name);
	cr_assert_eq(occ_table_load(path, t, err, sizeof(err)), 0, "%s", err);
}

static const struct occ_row *find(const struct occ_table *t, int threads, int regs, int shared)
{
	for (int i = 0; i < t->n_rows; i++)
		if (t->rows[i].k.threads_per_block == threads && t->rows[i].k.regs_per_thread == regs &&
		    t->rows[i].k.shared_per_block == shared)
			return &t->rows[i];
	return NULL;
}

Test(occupancy, stored_tables_hold_every_configuration)
{
	const char *names[] = { "sm_80", "sm_90" };
	int shared_per_sm[] = { 167936, 233472 };
	for (int i = 0; i < 2; i++) {
		struct occ_table t;
		struct occ_device preset;
		load_stored(names[i], &t);
		cr_expect_eq(t.n_rows, occ_config_n_threads * occ_config_n_regs * occ_config_n_shared);
		cr_expect_eq(t.dev.shared_per_sm, shared_per_sm[i]);
		cr_assert_eq(occ_device_preset(names[i], &preset), 0);
		cr_expect_eq(memcmp(&preset, &t.dev, sizeof(preset)), 0,
			     "%s: the table's device line is the kit's preset", names[i]);
		occ_table_free(&t);
	}
}

/* Cases worked by hand in the handout: what the granularities do. */
Test(occupancy, stored_sm90_answers_worked_cases)
{
	struct occ_table t;
	load_stored("sm_90", &t);
	/* 33 registers: 1056 per warp rounds up to 1280; 16384 / 1280 = 12 warps
	 * per sub-partition, 48 per SM, 6 blocks of 8 warps. */
	const struct occ_row *r = find(&t, 256, 33, 0);
	cr_assert(r);
	cr_expect_eq(r->r.blocks_per_sm, 6);
	cr_expect_eq(r->r.warps_per_sm, 48);
	cr_expect_float_eq(r->r.occupancy, 0.75, 1e-12);
	cr_expect_eq(r->r.limits, KIT_OCC_LIMIT_REGISTERS);
	/* 100 threads take 4 warps; 16 blocks fill the 64 slots. */
	r = find(&t, 100, 16, 0);
	cr_assert(r);
	cr_expect_eq(r->r.blocks_per_sm, 16);
	cr_expect_eq(r->r.limits, KIT_OCC_LIMIT_WARPS);
	/* 1024 threads of 255 registers cannot fit a block. */
	r = find(&t, 1024, 255, 0);
	cr_assert(r);
	cr_expect_eq(r->r.blocks_per_sm, 0);
	cr_expect_eq(r->r.limits, KIT_OCC_LIMIT_REGISTERS);
	/* One byte over what a block may opt in to. */
	r = find(&t, 128, 32, 232449);
	cr_assert(r);
	cr_expect_eq(r->r.blocks_per_sm, 0);
	cr_expect_eq(r->r.limits, KIT_OCC_LIMIT_SHARED);
	occ_table_free(&t);
}

/* Where the CUDA toolkit is, the stored tables are what cuda_occupancy.h says now. */
Test(occupancy, stored_tables_match_cuda_occupancy_h)
{
	const char *gen = "build/occupancy-table";
	if (access(gen, X_OK) != 0)
		cr_skip_test("%s is not built: no CUDA toolkit here (it needs cuda_occupancy.h)", gen);
	const char *names[] = { "sm_80", "sm_90" };
	for (int i = 0; i < 2; i++) {
		char cmd[512];
		snprintf(cmd, sizeof(cmd), "%s %s | cmp -s - grader/labs/occupancy/%s.txt", gen, names[i],
			 names[i]);
		cr_expect_eq(system(cmd), 0, "grader/labs/occupancy/%s.txt differs from cuda_occupancy.h: "
			     "make occupancy-tables", names[i]);
	}
}

static const char *load_text(const char *text, struct occ_table *t)
{
	static char err[512];
	char path[64];
	snprintf(path, sizeof(path), "/tmp/occ-table-%d.txt", (int)getpid());
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
	err[0] = '\0';
	if (occ_table_load(path, t, err, sizeof(err)) == 0)
		occ_table_free(t);
	unlink(path);
	return err;
}

#define DEVICE_LINE                                                                                   \
	"device major=9 minor=0 warp_size=32 max_threads_per_block=1024 max_threads_per_sm=2048 "      \
	"max_blocks_per_sm=32 regs_per_sm=65536 regs_per_block=65536 shared_per_sm=233472 "             \
	"shared_per_block_optin=232448 shared_reserved_per_block=1024 max_regs_per_thread=255 "         \
	"reg_alloc_unit=256 sub_partitions=4 shared_alloc_unit=128\n"
#define HEADER "threads,regs,shared,blocks,warps,limits\n"

Test(occupancy, malformed_tables_name_the_line)
{
	struct occ_table t;
	cr_expect_str_eq(load_text("name x\n" DEVICE_LINE HEADER "256,33,0,6,48,registers\n", &t), "");
	cr_expect(strstr(load_text(DEVICE_LINE HEADER "256,33,0,6\n", &t), ":3: not a line"));
	cr_expect(strstr(load_text(DEVICE_LINE HEADER "256,33,0,6,48,luck\n", &t), ":3: not a line"));
	cr_expect(strstr(load_text(HEADER "256,33,0,6,48,warps\n", &t), ":2: not a line"),
		  "rows before the device line");
	cr_expect(strstr(load_text("device major=9\n" HEADER, &t), ":1: not a line"),
		  "a device line that leaves fields out");
	cr_expect(strstr(load_text(DEVICE_LINE HEADER, &t), "no configurations"));
}

Test(occupancy, limits_names_round_trip)
{
	char buf[64];
	unsigned l;
	cr_expect_str_eq(occ_limits_format(KIT_OCC_LIMIT_WARPS | KIT_OCC_LIMIT_SHARED, buf, sizeof(buf)), "warps+shared");
	cr_expect_eq(occ_limits_parse("warps+shared", &l), 0);
	cr_expect_eq(l, (unsigned)(KIT_OCC_LIMIT_WARPS | KIT_OCC_LIMIT_SHARED));
	cr_expect_eq(occ_limits_parse("?", &l), 0);
	cr_expect_eq(l, KIT_OCC_LIMITS_UNKNOWN);
	cr_expect_lt(occ_limits_parse("warps+", &l) + occ_limits_parse("", &l) + occ_limits_parse("regs", &l), 0);
	cr_expect_str_eq(occ_limits_format(0, buf, sizeof(buf)), "none");
	cr_expect_str_eq(occ_limits_format(0x30, buf, sizeof(buf)), "bits 0x30", "stray bits are shown");
}

/* A student who answers every question of t right. */
static struct occ_result *right_answers(const struct occ_table *t)
{
	struct occ_result *got = calloc((size_t)t->n_rows, sizeof(*got));
	cr_assert(got);
	for (int i = 0; i < t->n_rows; i++)
		got[i] = t->rows[i].r;
	return got;
}

Test(occupancy, compare_names_the_configuration_and_the_granularity)
{
	struct occ_table t;
	load_stored("sm_90", &t);
	struct occ_result *got = right_answers(&t);
	char msg[2048];
	cr_expect_eq(occupancy_compare(&t, got, msg, sizeof(msg)), 0);
	cr_expect_str_eq(msg, "");

	/* Registers rounded to 8 per thread but not to whole warps per sub-partition... */
	int at = (int)(find(&t, 256, 33, 0) - t.rows);
	got[at].blocks_per_sm = 8;
	got[at].warps_per_sm = 64;
	got[at].occupancy = 1.0;
	got[at].limits = KIT_OCC_LIMIT_WARPS;
	/* ... and one that is right but for the limits, and one with a NaN. */
	int tie = (int)(find(&t, 256, 32, 0) - t.rows);
	got[tie].limits = KIT_OCC_LIMIT_WARPS;
	int nan = (int)(find(&t, 1024, 255, 0) - t.rows);
	got[nan].occupancy = 0.0 / 0.0;
	cr_expect_eq(occupancy_compare(&t, got, msg, sizeof(msg)), 3);
	cr_expect(strstr(msg, "256 threads x 33 registers, 0 B shared: expected 6 blocks/SM, 48 warps "
			      "(75.0%), limited by registers; got 8 blocks/SM, 64 warps (100.0%), limited by warps"),
		  "%s", msg);
	cr_expect(strstr(msg, "reg_alloc_unit"), "the hint names the granularity: %s", msg);
	cr_expect(strstr(msg, "256 threads x 32 registers"), "a wrong limit is wrong: %s", msg);
	free(got);
	occ_table_free(&t);
}

Test(occupancy, unknown_limits_are_not_held_against_the_student)
{
	struct occ_table t;
	load_stored("sm_80", &t);
	struct occ_result *got = right_answers(&t);
	char msg[1024];
	for (int i = 0; i < t.n_rows; i++) {
		got[i].limits = KIT_OCC_LIMIT_BLOCKS;
		t.rows[i].r.limits = KIT_OCC_LIMITS_UNKNOWN;
	}
	cr_expect_eq(occupancy_compare(&t, got, msg, sizeof(msg)), 0, "%s", msg);
	free(got);
	occ_table_free(&t);
}

Test(occupancy, questions_file_holds_the_device_and_every_kernel)
{
	struct occ_table t;
	load_stored("sm_90", &t);
	char path[64], err[256];
	snprintf(path, sizeof(path), "/tmp/occ-questions-%d.bin", (int)getpid());
	cr_assert_eq(occupancy_write_questions(path, &t, err, sizeof(err)), 0, "%s", err);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq((size_t)st.st_size, 8 + sizeof(struct occ_device) + sizeof(int) +
						 (size_t)t.n_rows * sizeof(struct occ_kernel));
	FILE *f = fopen(path, "rb");
	char magic[8];
	cr_assert(f && fread(magic, 1, 8, f) == 8);
	fclose(f);
	cr_expect_eq(memcmp(magic, "KITOCC1\n", 8), 0, "the magic the harness checks");
	unlink(path);
	cr_expect_lt(occupancy_write_questions("/nonexistent/dir/q.bin", &t, err, sizeof(err)), 0);
	cr_expect(strstr(err, "/nonexistent/dir/q.bin"));
	occ_table_free(&t);
}

Test(occupancy, the_launch_with_the_highest_occupancy_is_the_one_judged)
{
	json_t *t = json_loads("["
			       "{\"kernel\":\"small\",\"grid\":132,\"threads\":256,\"dynamic_shared\":116736,"
			       "\"registers\":48,\"blocks_per_sm\":1,\"occupancy\":0.125},"
			       "{\"kernel\":\"tail\",\"grid\":4,\"threads\":1024,\"dynamic_shared\":0,"
			       "\"registers\":16,\"blocks_per_sm\":2,\"occupancy\":1.0},"
			       "{\"kernel\":\"junk\",\"occupancy\":\"high\"}]", 0, NULL);
	cr_assert(t);
	char desc[224];
	cr_expect_float_eq(launches_max_occupancy(t, desc, sizeof(desc)), 1.0, 1e-12);
	cr_expect_str_eq(desc, "tail: 4 blocks of 1024 threads, 0 B dynamic shared, 16 registers: 2 blocks/SM");
	json_decref(t);
	t = json_loads("[]", 0, NULL);
	cr_expect_lt(launches_max_occupancy(t, desc, sizeof(desc)), 0, "no launch seen");
	json_decref(t);
	cr_expect_lt(launches_max_occupancy(NULL, desc, sizeof(desc)), 0, "an old harness, or a tampered one");
}

/* A kernel may beat the copy timed beside it (a 16-byte-a-thread copy did,
 * by 0.4% on an H100), never the DRAM's peak; without a peak, a margin
 * above the copy. */
Test(timing, the_ceiling_is_the_memory_not_the_copy)
{
	cr_expect_not(timing_above_ceiling(3016, 3005, 3352), "100.4%% of copy, under the peak");
	cr_expect(timing_above_ceiling(3400, 3005, 3352), "above the peak");
	cr_expect_not(timing_above_ceiling(3300, 3005, 0), "9.8%% above copy, no peak known");
	cr_expect(timing_above_ceiling(3400, 3005, 0), "13%% above copy, no peak known");
	cr_expect(timing_above_ceiling(3400, 3005, 2000), "a peak below the copy is not believed either");
	cr_expect(timing_above_ceiling(0.0 / 0.0, 3005, 3352), "not a number");
	cr_expect(timing_above_ceiling(0, 3005, 3352), "nothing measured");
}
