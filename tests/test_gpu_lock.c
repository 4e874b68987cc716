/*
 * A timed child holds the GPU alone only around its timed launches
 * (common/gpu_lock.h): the worker takes the lock shared for it and hands
 * it the lock and turn files (batch_gpu_lend, harness_door.c), the child
 * converts to exclusive and back by itself.
 *
 * The harness here is a stand-in built from the kit's own gpu_lock.c: it
 * "sets up" while shared, then twice takes the GPU alone for a while,
 * printing CLOCK_MONOTONIC intervals as it holds each, and reports what it
 * held in a MSG_TIMING frame as the real harness does. Several workers
 * (processes of their own, as in a batch) run one each at once, beside a
 * correctness run that holds the lock shared: no two exclusive holds may
 * meet, nor an exclusive one the correctness run, and the setups, which
 * are shared, must meet.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch/batch.h"
#include "steps/harness_door.h"
#include "steps/integrity.h"
#include "steps/rubric.h"
#include "sys/isolation.h"
#include "sys/kit_paths.h"
#include "test_support.h"

extern const struct lab lab3_transpose;

#define WORKERS 3
#define SETUP_MS 300
#define ALONE_MS 60
#define END_MS 400	/* the stand-in's end, after it let go */

static char dir[64];

static void setup(void)
{
	test_temp_dir(dir, sizeof(dir), "test-gpu-lend");
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(gpu_lock, .init = setup, .fini = teardown, .timeout = 60);

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The stand-in harness (named as the CUDA one, which the door lends the
 * lock to) in its own folder under dir, taking the lock as
 * grader/harness/gpu_share.c does. variant: "" plain; HANG: it takes the
 * GPU alone and never gives it back; LINGER: a thread of its own still
 * runs after its last report; CTOR: a constructor started a thread before
 * main. Its context's making is a nap, the GPU held shared; it touches
 * dir/SUB.reported after its last report, then naps as a process's end
 * does, still holding it. */
static void stand_in(const char *sub, const char *variant, char *exe, size_t len)
{
	char common[1024], folder[256], *src = NULL;
	kit_path(common, sizeof(common), "common");
	snprintf(folder, sizeof(folder), "%s/%s", dir, sub);
	cr_assert_eq(mkdir(folder, 0755), 0);
	cr_assert(asprintf(&src,
			   "#define %s 1\n"
			   "#include \"%s/gpu_lock.c\"\n"
			   "#include \"%s/channel.c\"\n"
			   "#include \"%s/channel_send.c\"\n"
			   "#include <pthread.h>\n"
			   "#include <stdio.h>\n"
			   "static void nap(int ms) { struct timespec t = { ms / 1000, (ms %% 1000) * 1000000L }; nanosleep(&t, NULL); }\n"
			   "static void *sleeper(void *a) { (void)a; nap(5000); return NULL; }\n"
			   "static void mark(const char *what) { char p[512]; snprintf(p, sizeof p, \"%s/%s.%%s\", what); FILE *f = fopen(p, \"w\"); if (f) fclose(f); }\n"
			   "#ifdef CTOR\n"
			   "__attribute__((constructor)) static void early(void) { pthread_t t; pthread_create(&t, NULL, sleeper, NULL); }\n"
			   "#endif\n"
			   "int main(void) {\n"
			   "	printf(\"threads %%d\\n\", gpu_lock_count_threads());\n"
			   "	struct gpu_lock l; gpu_lock_inherit(&l);\n"
			   "	if (l.lock_fd < 0) { printf(\"nolock\\n\"); return 0; }\n"
			   "	gpu_lock_shared(&l); mark(\"starting\"); nap(%d); gpu_lock_mark_threads(&l); mark(\"shared\");\n"
			   "	double start = now_ms(); nap(%d);\n"
			   "	printf(\"S %%.3f %%.3f\\n\", start, now_ms());\n"
			   "#ifdef HANG\n"
			   "	gpu_lock_alone(&l); printf(\"alone\\n\"); fflush(stdout); for (;;) nap(100);\n"
			   "#endif\n"
			   "	for (int k = 0; k < 2; k++) {\n"
			   "		gpu_lock_alone(&l); double a = now_ms(); nap(%d); double b = now_ms();\n"
			   "		gpu_lock_shared(&l); printf(\"A %%.3f %%.3f\\n\", a, b); nap(20);\n"
			   "	}\n"
			   "#ifdef LINGER\n"
			   "	pthread_t t; pthread_create(&t, NULL, sleeper, NULL);\n"
			   "#endif\n"
			   "	char json[256]; gpu_lock_check_threads(&l);\n"
			   "	int n = snprintf(json, sizeof json, \"{\\\"alone_wait_ms\\\":%%.3f,\\\"alone_ms\\\":%%.3f,\"\n"
			   "			 \"\\\"shared_wait_ms\\\":%%.3f,\\\"shared_ms\\\":%%.3f,\\\"pinned\\\":%%s}\",\n"
			   "			 l.wait_alone_ms, l.held_alone_ms, l.wait_shared_ms, gpu_lock_held_shared_ms(&l),\n"
			   "			 l.pinned ? \"true\" : \"false\");\n"
			   "	channel_send(CHANNEL_FD, MSG_TIMING, json, (uint64_t)n);\n"
			   "	mark(\"reported\");\n"
			   "	nap(%d);\n"
			   "	channel_send(CHANNEL_FD, MSG_END, NULL, 0);\n"
			   "	fflush(stdout); _exit(0);\n"
			   "}\n",
			   variant[0] ? variant : "PLAIN", common, common, common, dir, sub, SETUP_MS / 2,
			   SETUP_MS / 2, ALONE_MS, END_MS) > 0);
	compile_c_program(folder, "harness-cuda", src, exe, len);
	free(src);
}

static void slot_for_test(struct gpu_slot *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->lock_path, sizeof(s->lock_path), "%s/gpu.lock", dir);
	snprintf(s->turn_path, sizeof(s->turn_path), "%s/gpu.turn", dir);
	s->lock_fd = s->turn_fd = -1;
}

/* How the next bench() isolates its child (NULL: not at all). */
static const struct isolation_policy *isolation;

/* harness_bench of the stand-in as a batch's worker runs it (lend: 1) or
 * as a single grade does (lend: 0). */
static int bench(const char *harness, struct gpu_slot *slot, int lend, double timeout_s,
		 struct harness_report *rep)
{
	static struct rubric r;
	memset(&r, 0, sizeof(r));
	r.test_timeout_s = r.bench_timeout_s = r.analysis_timeout_s = timeout_s;
	r.runs = 1;
	r.memory_mb = 512;
	r.disk_mb = 64;
	r.output_limit_bytes = 4096;
	struct run_context ctx = { .lab = &lab3_transpose, .rubric = &r, .harness = harness,
				   .work_dir = dir, .seed = 1, .isolation = isolation,
				   .share = { .phase = lend ? batch_gpu_phase : NULL,
					      .lend = lend ? batch_gpu_lend : NULL, .arg = slot } };
	struct shape s = { 2, { 32, 32 } };
	char err[256];
	struct bench_order one = { &s, 1, 0 };
	int rc = harness_bench(&ctx, harness, &one, rep, err, sizeof(err));
	cr_assert_eq(rc, 0, "%s", err);
	return rc;
}

/* A worker of its own: its child's output into dir/out-K, then its account. */
static pid_t worker(const char *harness, int k)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct gpu_slot slot;
		struct harness_report rep;
		struct gpu_account a;
		char path[128];
		slot_for_test(&slot);
		bench(harness, &slot, 1, 30, &rep);
		batch_gpu_account(&a);
		snprintf(path, sizeof(path), "%s/out-%d", dir, k);
		FILE *f = fopen(path, "w");
		if (!f)
			_exit(1);
		fprintf(f, "%sheld_alone_s %.3f timed_runs %d\n", rep.child.output, a.held_alone_s, a.timed_runs);
		fclose(f);
		_exit(rep.child.exited && rep.child.exit_status == 0 ? 0 : 2);
	}
	return pid;
}

/* A correctness run's worker: the lock shared for hold_ms, its interval in dir/out-K. */
static pid_t checker(int k, int after_ms, int hold_ms)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct gpu_slot slot;
		char path[128];
		slot_for_test(&slot);
		struct timespec t = { 0, after_ms * 1000000L };
		nanosleep(&t, NULL);
		batch_gpu_phase(&slot, 0, 1);
		double a = now_ms();
		nanosleep(&(struct timespec){ hold_ms / 1000, (hold_ms % 1000) * 1000000L }, NULL);
		double b = now_ms();
		batch_gpu_phase(&slot, 0, 0);
		snprintf(path, sizeof(path), "%s/out-%d", dir, k);
		FILE *f = fopen(path, "w");
		if (!f)
			_exit(1);
		fprintf(f, "C %.3f %.3f\n", a, b);
		fclose(f);
		_exit(0);
	}
	return pid;
}

struct interval {
	char kind;	/* S shared setup, A alone, C a correctness run */
	int who;
	double from, to;
};

static int read_intervals(int k, struct interval *out, int at, int max, double *held_alone_s, int *timed_runs)
{
	char path[128], line[256];
	snprintf(path, sizeof(path), "%s/out-%d", dir, k);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	while (fgets(line, sizeof(line), f)) {
		struct interval v = { .who = k };
		if (sscanf(line, "%c %lf %lf", &v.kind, &v.from, &v.to) == 3 && strchr("SAC", v.kind)) {
			cr_assert_lt(at, max);
			out[at++] = v;
		} else if (held_alone_s) {
			sscanf(line, "held_alone_s %lf timed_runs %d", held_alone_s, timed_runs);
		}
	}
	fclose(f);
	return at;
}

static int meet(const struct interval *a, const struct interval *b)
{
	return a->from < b->to && b->from < a->to;
}

Test(gpu_lock, timed_runs_hold_the_gpu_alone_only_while_timing)
{
	char harness[512];
	stand_in("bench", "", harness, sizeof(harness));
	pid_t pids[WORKERS + 1];
	for (int k = 0; k < WORKERS; k++)
		pids[k] = worker(harness, k);
	/* Comes while the setups run: shared with them, between the timed holds. */
	pids[WORKERS] = checker(WORKERS, SETUP_MS / 3, SETUP_MS);
	for (int k = 0; k <= WORKERS; k++) {
		int status;
		cr_assert_eq(waitpid(pids[k], &status, 0), pids[k]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker %d", k);
	}
	struct interval v[64];
	int n = 0;
	for (int k = 0; k <= WORKERS; k++) {
		double held = 0;
		int timed = 0;
		n = read_intervals(k, v, n, 64, &held, &timed);
		if (k < WORKERS) {
			/* The child's own word on what it held alone, noted in the account. */
			cr_expect_eq(timed, 1, "worker %d", k);
			cr_expect_geq(held, 2 * ALONE_MS / 1e3 * 0.9, "worker %d held %.3f s alone", k, held);
		}
	}
	int alone = 0, shared_met = 0;
	for (int i = 0; i < n; i++) {
		alone += v[i].kind == 'A';
		for (int j = i + 1; j < n; j++) {
			if (v[i].who == v[j].who)
				continue;
			if (v[i].kind == 'A' || v[j].kind == 'A')
				cr_expect(!meet(&v[i], &v[j]), "%c of %d [%.1f, %.1f] met %c of %d [%.1f, %.1f]",
					  v[i].kind, v[i].who, v[i].from, v[i].to, v[j].kind, v[j].who, v[j].from,
					  v[j].to);
			else
				shared_met += meet(&v[i], &v[j]);
		}
	}
	cr_expect_eq(alone, 2 * WORKERS);
	/* Three setups and a correctness run started together, all shared. */
	cr_expect_geq(shared_met, 3, "shared holders met %d times", shared_met);
}

/* Killed while it held the GPU alone: the worker releases what its child
 * left held (the same open files), so the next timed run does not wait. */
Test(gpu_lock, a_child_killed_while_alone_leaves_nothing_held)
{
	char harness[512];
	stand_in("hang", "HANG", harness, sizeof(harness));
	struct gpu_slot slot;
	struct harness_report rep;
	slot_for_test(&slot);
	double t0 = now_ms();
	bench(harness, &slot, 1, 1, &rep);
	cr_expect(rep.child.timed_out);
	cr_expect(strstr(rep.child.output, "alone"), "%s", rep.child.output);
	/* The limit doubled: waits for the lock are on the child's clock. */
	cr_expect_geq(now_ms() - t0, 1900);
	harness_report_free(&rep);
	int lock = open(slot.lock_path, O_RDONLY), turn = open(slot.turn_path, O_RDONLY);
	cr_assert(lock >= 0 && turn >= 0);
	cr_expect_eq(flock(lock, LOCK_EX | LOCK_NB), 0, "the GPU is still held");
	cr_expect_eq(flock(turn, LOCK_EX | LOCK_NB), 0, "the turn is still held");
	close(lock);
	close(turn);
}

/* Whether nobody holds the GPU now: an exclusive hold taken and given
 * back at once, through an open file of the test's own. */
static int gpu_free_now(const struct gpu_slot *slot)
{
	int fd = open(slot->lock_path, O_RDONLY);
	cr_assert(fd >= 0, "%s", slot->lock_path);
	int got = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return got;
}

/* Waits (up to 20 s) for the stand-in's dir/SUB.WHAT. */
static void wait_for_mark(const char *sub, const char *what)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s.%s", dir, sub, what);
	for (int i = 0; i < 4000 && access(path, F_OK) != 0; i++)
		nanosleep(&(struct timespec){ 0, 5000000L }, NULL);
	cr_assert_eq(access(path, F_OK), 0, "%s never came", path);
}

/* The stand-in of variant lent the lock by a worker of its own; whether
 * the GPU was free while it made its context, while it worked, and after
 * its last report (it is still running then: END_MS); and whether the
 * worker's account counted it as pinned. */
static void free_in_each_part(const char *sub, const char *variant, int free_at[3], int pinned)
{
	char harness[512];
	stand_in(sub, variant, harness, sizeof(harness));
	pid_t pid = fork();
	if (pid == 0) {
		struct gpu_slot slot;
		struct harness_report rep;
		struct gpu_account a;
		slot_for_test(&slot);
		bench(harness, &slot, 1, 30, &rep);
		batch_gpu_account(&a);
		_exit(!rep.child.exited || rep.child.exit_status != 0 ? 2 : a.pinned_runs == 1 ? 3 : 0);
	}
	struct gpu_slot slot;
	slot_for_test(&slot);
	static const char *const parts[] = { "starting", "shared", "reported" };
	for (int i = 0; i < 3; i++) {
		wait_for_mark(sub, parts[i]);
		free_at[i] = gpu_free_now(&slot);
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == (pinned ? 3 : 0), "%s's worker: %d", sub,
		  WEXITSTATUS(status));
	cr_expect(gpu_free_now(&slot), "%s: the worker released what its child left held", sub);
}

/* A child holds the GPU shared from before it makes its context to its
 * end, which the worker's release after reaping it closes: the driver's
 * work of making and ending a context slows another process's timed
 * cudaMalloc nine-fold (docs/results/gpu-2026-11-28-machine-lock/). */
Test(gpu_lock, a_child_holds_the_gpu_from_its_context_to_its_end)
{
	int free_at[3];
	free_in_each_part("works", "", free_at, 0);
	cr_expect(!free_at[0], "free while the context was made");
	cr_expect(!free_at[1], "free while it worked");
	cr_expect(!free_at[2], "free while it ended");
}

/* A thread the student started, still running after the last report,
 * could launch work while another student is timed: the child is counted
 * as pinned (it never gives the GPU back between sizes either). */
Test(gpu_lock, a_thread_left_running_keeps_the_gpu_held)
{
	int free_at[3];
	free_in_each_part("linger", "LINGER", free_at, 1);
	cr_expect(!free_at[0]);
	cr_expect(!free_at[1]);
	cr_expect(!free_at[2], "let go with a thread of the student's running");
}

/* Student code run before main (a constructor) started a thread: the
 * child takes the GPU before it makes its context, and keeps it. */
Test(gpu_lock, a_thread_from_before_main_holds_the_gpu_from_the_start)
{
	int free_at[3];
	free_in_each_part("ctor", "CTOR", free_at, 1);
	cr_expect(!free_at[0], "free while a constructor's thread ran");
	cr_expect(!free_at[1]);
	cr_expect(!free_at[2]);
}

/* Under bubblewrap and a uid of its own, as a batch's children run, the
 * child still gets the two files (the lock stays the worker's to open),
 * and sees its own threads, without which it would hold the GPU from its
 * start to its end (gpu_lock.h). */
Test(gpu_lock, an_isolated_child_gets_the_lock)
{
	char harness[512], err[512];
	stand_in("isolated", "", harness, sizeof(harness));
	struct isolation_policy p = { .force = 1, .writable = dir };
	if (isolation_ready(&p, dir, err, sizeof(err)) < 0)
		cr_skip_test("no isolation here: %s", err);
	chmod(dir, 0755);
	struct gpu_slot slot;
	struct harness_report rep;
	slot_for_test(&slot);
	isolation = &p;
	bench(harness, &slot, 1, 20, &rep);
	isolation = NULL;
	cr_expect(rep.child.exited && rep.child.exit_status == 0, "%s", rep.child.output);
	cr_expect(strstr(rep.child.output, "A "), "%s", rep.child.output);
	cr_expect(strstr(rep.child.output, "threads 1"), "%s", rep.child.output);
	cr_expect(!strstr(rep.child.output, "nolock"), "%s", rep.child.output);
	harness_report_free(&rep);
}

/* A run given no share (the emulator's) hands no lock: the harness takes
 * none. A grade alone on a GPU is given the machine's (test_machine_lock.c). */
Test(gpu_lock, a_run_given_no_share_hands_no_lock)
{
	char harness[512];
	stand_in("single", "", harness, sizeof(harness));
	struct harness_report rep;
	bench(harness, NULL, 0, 10, &rep);
	cr_expect(strstr(rep.child.output, "nolock"), "%s", rep.child.output);
	harness_report_free(&rep);
}

/* A file that calls flock (to give the timed run's lock up early, say) is
 * refused by the symbol check, in every lab. */
Test(gpu_lock, a_file_calling_flock_is_refused)
{
	static const char *const labs[] = { "lab1-naive-scan", "lab2-blelloch-scan", "lab3-transpose",
					    "lab4-occupancy" };
	static const int ranks[] = { 1, 1, 2, 1 };
	char src[128], obj[128], cmd[512], ini[1024], err[512];
	snprintf(src, sizeof(src), "%s/unlock.c", dir);
	snprintf(obj, sizeof(obj), "%s/unlock.o", dir);
	FILE *f = fopen(src, "w");
	cr_assert_not_null(f);
	fputs("#include <sys/file.h>\n"
	      "void transpose(const float *i, float *o, int r, int c)\n"
	      "{ (void)i; (void)o; (void)r; (void)c; flock(6, LOCK_UN); }\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gcc -c %s -o %s", src, obj);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	for (size_t i = 0; i < sizeof(labs) / sizeof(labs[0]); i++) {
		struct rubric r;
		struct grade g;
		char rel[128];
		snprintf(rel, sizeof(rel), "labs/%s/lab.ini", labs[i]);
		cr_assert_eq(rubric_load(kit_path(ini, sizeof(ini), rel), ranks[i], &r, err, sizeof(err)), 0, "%s", err);
		grade_init(&g, NULL);
		cr_expect_eq(integrity_check(&r, BACKEND_CUDA, obj, NULL, &g), 0, "%s", labs[i]);
		cr_expect(strstr(g.tests[0].message, "calls a forbidden function: flock"), "%s: %s", labs[i],
			  g.tests[0].message);
		rubric_free(&r);
	}
	/* Nor through the kit's own functions, which do it for the harness. */
	f = fopen(src, "w");
	cr_assert_not_null(f);
	fputs("struct gpu_lock;\nvoid gpu_lock_shared(struct gpu_lock *l);\n"
	      "void transpose(const float *i, float *o, int r, int c)\n"
	      "{ (void)i; (void)o; (void)r; (void)c; gpu_lock_shared((struct gpu_lock *)0); }\n", f);
	fclose(f);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	struct rubric r;
	struct grade g;
	cr_assert_eq(rubric_load(kit_path(ini, sizeof(ini), "labs/lab3-transpose/lab.ini"), 2, &r, err,
				 sizeof(err)), 0, "%s", err);
	grade_init(&g, NULL);
	cr_expect_eq(integrity_check(&r, BACKEND_CUDA, obj, NULL, &g), 0);
	cr_expect(strstr(g.tests[0].message, "gpu_lock_shared"), "%s", g.tests[0].message);
	rubric_free(&r);
}
