/*
 * Sharing the GPUs between a batch's workers.
 *
 * Worker k uses GPU k mod n (its children get CUDA_VISIBLE_DEVICES through
 * the sandbox's arguments: batch_worker_gpu). Before the workers start,
 * each GPU model gets the reference solution built and lab 4's occupancy
 * API asked, once. On each GPU, correctness runs may overlap -- they
 * are checked, not timed -- but a timed run must have the GPU alone, or
 * another student's kernel would eat its bandwidth. A readers-writer lock
 * made of two flock(2) files per GPU, named by its UUID, does it, across
 * processes, batches, grades alone (batch_gpu_alone) and kits of this
 * machine:
 *
 *   shared        turn EX, lock SH, turn UN  ...  lock UN
 *   alone         turn EX, lock EX           ...  lock UN, turn UN
 *
 * A child of a student's is handed the two files (batch_gpu_lend) and
 * takes the lock itself (common/gpu_lock.h): shared from before it makes
 * its CUDA context to its end, alone only around its timed launches. (A
 * child that made its context, or ended, or freed its buffers holding
 * nothing kept the driver busy beside other students' timed calls, and
 * slowed those that allocate: docs/results/gpu-2026-11-28-machine-lock/.)
 * The files
 * it gets are this worker's own open files, so that what the child leaves
 * held when it ends -- killed in the middle of a timed run, say, or
 * pinned because student code may still run in it -- the worker releases
 * after it. A run that waits for the lock holds `turn`, so shared runs
 * that come after it queue behind it instead of starving it. The
 * reference's timing, before the workers start, holds the GPU alone for
 * its whole child (batch_gpu_phase, timed).
 */
#include "batch/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "steps/build.h"
#include "steps/occupancy_check.h"
#include "steps/reference_times.h"
#include "sys/clock.h"
#include "sys/kit_paths.h"
#include "sys/lock_waiters.h"

static void slot_init(struct gpu_slot *s, const char *visible, const struct device_info *d,
		      const char *lock_dir)
{
	char id[64];
	memset(s, 0, sizeof(*s));
	snprintf(s->visible, sizeof(s->visible), "%s", visible);
	s->dev = *d;
	/* Named by the GPU's UUID, which is the same whatever CUDA_VISIBLE_DEVICES
	 * numbers it: file-name safe characters only. */
	snprintf(id, sizeof(id), "%s", d->uuid[0] ? d->uuid : visible[0] ? visible : "default");
	for (char *p = id; *p; p++)
		if (!(*p == '-' || *p == '_' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z')))
			*p = '_';
	snprintf(s->lock_path, sizeof(s->lock_path), "%.3000s/gpu-%s.lock", lock_dir, id);
	snprintf(s->turn_path, sizeof(s->turn_path), "%.3000s/gpu-%s.turn", lock_dir, id);
	s->lock_fd = s->turn_fd = -1;
}

void batch_lock_dir(char *buf, size_t len)
{
	const char *env = getenv("KIT_LOCK_DIR");
	if (env && *env) {
		snprintf(buf, len, "%s", env);
		make_dirs(buf);
	} else {
		snprintf(buf, len, "%s", GPU_LOCK_DIR);
		/* Sticky and open to all, as /tmp is: every user's grader opens its files. */
		if (mkdir(buf, 01777) == 0)
			chmod(buf, 01777);
	}
}

void batch_gpu_alone(const struct device_info *dev, struct gpu_slot *out)
{
	char dir[PATH_MAX];
	batch_lock_dir(dir, sizeof(dir));
	slot_init(out, "", dev, dir);
}

void batch_gpu_close(struct gpu_slot *s)
{
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	if (s->turn_fd >= 0)
		close(s->turn_fd);
	s->lock_fd = s->turn_fd = -1;
}

/* Probes the GPU that CUDA_VISIBLE_DEVICES=visible shows; 1 if there is one. */
static int probe_one(const char *visible, struct device_info *d)
{
	device_probe(d, visible);
	return d->present;
}

const char *batch_worker_gpu(const struct gpu_slot *slot)
{
	if (slot && slot->visible[0])
		return slot->visible;
	return getenv("CUDA_VISIBLE_DEVICES");
}

int batch_gpus(const struct device_info *dev, const char *lock_dir, struct gpu_slot *out, int max)
{
	if (!dev->present)
		return 0;
	const char *env = getenv("CUDA_VISIBLE_DEVICES");
	char list[256];
	int n = 0;
	struct device_info d;
	if (env && *env) {
		snprintf(list, sizeof(list), "%s", env);
		char *save;
		for (char *tok = strtok_r(list, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
			if (probe_one(tok, &d))
				slot_init(&out[n++], tok, &d, lock_dir);
	} else {
		for (int i = 0; i < max; i++) {
			char id[16];
			snprintf(id, sizeof(id), "%d", i);
			if (!probe_one(id, &d))
				break;
			slot_init(&out[n++], id, &d, lock_dir);
		}
	}
	if (n == 0)	/* the probe saw one as the grader started: use it as it is */
		slot_init(&out[n++], "", dev, lock_dir);
	return n;
}

static void lock(int fd, int op)
{
	if (fd >= 0)
		while (flock(fd, op) < 0 && errno == EINTR)
			;
}

/* path opened for flock, made readable by all where it is not there yet.
 * A file that is there is opened without O_CREAT: in a sticky folder the
 * kernel refuses O_CREAT on another user's file (fs.protected_regular). */
static int open_lock_file(const char *path)
{
	int fd = -1;
	for (int tries = 0; tries < 2 && fd < 0; tries++) {
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)
			break;
		fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			fchmod(fd, 0644);	/* whatever the umask: others open it too */
		else if (errno != EEXIST)
			break;
	}
	return fd;
}

/* Each worker opens the files itself: flock belongs to the open file, and
 * a descriptor inherited from the parent would be one lock for everyone. */
static void open_locks(struct gpu_slot *s)
{
	if (s->lock_fd >= 0)
		return;
	s->lock_fd = open_lock_file(s->lock_path);
	s->turn_fd = open_lock_file(s->turn_path);
	if (s->lock_fd < 0 || s->turn_fd < 0)
		fprintf(stderr, "grade: cannot open the GPU lock %s: %s; timings may overlap\n",
			s->lock_path, strerror(errno));
}

/* This worker's waits for the GPU and its holds of it (a worker grades one
 * student: batch_gpu_account), and its children's contexts' making and
 * ending, as they said it (account.contexts of them). */
static struct gpu_account account;
static double asked_at, got_at;
static struct child_context *contexts;
static int contexts_room;

/* A child's context, where it said one: information for the pace line
 * only, so one that finds no memory is left out. */
static void note_context(const struct gpu_hold *said)
{
	if (said->context_s < 0)
		return;
	if (account.contexts == contexts_room) {
		int room = contexts_room ? 2 * contexts_room : 64;
		struct child_context *more = realloc(contexts, sizeof(*more) * (size_t)room);
		if (!more)
			return;
		contexts = more;
		contexts_room = room;
	}
	contexts[account.contexts++] = (struct child_context){ { said->context_at_s, said->context_s },
							       { said->end_at_s, said->end_s } };
}

/* The turn, said on stderr first where a stopped process (a grade someone
 * suspended with Ctrl-Z) holds the GPU: this wait is then a person's. */
static void take_turn(const struct gpu_slot *s)
{
	char holders[512];
	int fds[2] = { s->lock_fd, s->turn_fd };
	if (s->turn_fd < 0 || flock(s->turn_fd, LOCK_EX | LOCK_NB) == 0)
		return;
	if (lock_holders_describe(getpid(), fds, 2, holders, sizeof(holders)) > 0)
		fprintf(stderr, "grade: waiting for the GPU, held by %s; the grade goes on once it is resumed or ended\n",
			holders);
	lock(s->turn_fd, LOCK_EX);
}

void batch_gpu_phase(void *arg, int timed, int begin)
{
	struct gpu_slot *s = arg;
	open_locks(s);
	if (begin) {
		asked_at = now_s();
		take_turn(s);
		double turned_at = now_s();
		lock(s->lock_fd, timed ? LOCK_EX : LOCK_SH);
		if (!timed)
			lock(s->turn_fd, LOCK_UN);
		got_at = now_s();
		*(timed ? &account.wait_alone_s : &account.wait_shared_s) += got_at - asked_at;
		if (timed)
			account.drain_s += got_at - turned_at;
	} else {
		lock(s->lock_fd, LOCK_UN);
		if (timed)
			lock(s->turn_fd, LOCK_UN);
		*(timed ? &account.held_alone_s : &account.held_shared_s) += now_s() - got_at;
		*(timed ? &account.timed_runs : &account.shared_runs) += 1;
	}
}

int batch_gpu_lend(void *arg, int begin, int fds[2], const struct gpu_hold *said)
{
	struct gpu_slot *s = arg;
	open_locks(s);
	if (s->lock_fd < 0 || s->turn_fd < 0)
		return -1;
	fds[0] = s->lock_fd;
	fds[1] = s->turn_fd;
	if (begin)
		return 0;
	/* The child's, if it ended holding them: the same open files. */
	lock(s->turn_fd, LOCK_UN);
	lock(s->lock_fd, LOCK_UN);
	account.wait_shared_s += said->wait_shared_s;
	account.held_shared_s += said->held_shared_s;
	account.wait_alone_s += said->wait_alone_s;
	account.held_alone_s += said->held_alone_s;
	account.drain_s += said->drain_s;
	*(said->timed ? &account.timed_runs : &account.shared_runs) += 1;
	account.pinned_runs += said->pinned;
	note_context(said);
	return 0;
}

void batch_gpu_account(struct gpu_account *out)
{
	*out = account;
}

const struct child_context *batch_gpu_contexts(void)
{
	return contexts;
}

/* ---- before the workers start ---------------------------------------------------- */

/* Lab 4: each GPU model's occupancy API asked once for the whole batch, by
 * the kit's probe on that GPU; a student whose grade could not use it asks
 * again in its own grade. */
static void ask_occupancy_apis(struct batch_config *c)
{
	char err[512];
	if (c->backend != BACKEND_CUDA || !c->lab->has_calculator || c->r->occupancy_points <= 0)
		return;
	for (int i = 0; i < c->n_gpus; i++) {
		struct gpu_slot *g = &c->gpus[i];
		for (int k = 0; k < i && !g->occupancy_table[0]; k++)
			if (strcmp(c->gpus[k].dev.name, g->dev.name) == 0)
				snprintf(g->occupancy_table, sizeof(g->occupancy_table), "%s",
					 c->gpus[k].occupancy_table);
		if (g->occupancy_table[0])
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%.4000s/occupancy-gpu%d.txt", c->work_root, i);
		if (occupancy_live_table(path, NULL, batch_worker_gpu(g), err, sizeof(err)) == 0)
			snprintf(g->occupancy_table, sizeof(g->occupancy_table), "%s", path);
		else
			fprintf(stderr, "grade: %s\n", err);
	}
}

/* Without bubblewrap nothing is hidden: code that gets past the symbol
 * check (see the hostile fixtures) reads whatever other users may read. */

/* The reference's correctness times, the base of each size's time limit
 * (steps/reference_times.h), measured once per GPU model (or once in the
 * emulator) into the kit's cache, where every worker reads them. */
static void measure_reference_times(struct batch_config *c)
{
	struct reference_times t;
	struct run_context ctx = { .lab = c->lab, .rubric = c->r, .work_dir = c->work_root, .salt = c->salt };
	if (c->backend == BACKEND_EMU) {
		reference_times_get(&ctx, BACKEND_EMU, c->dev, NULL, 1, &t);
		return;
	}
	for (int i = 0; i < c->n_gpus; i++) {
		struct gpu_slot *g = &c->gpus[i];
		int seen = 0;
		for (int k = 0; k < i; k++)
			seen |= strcmp(c->gpus[k].dev.name, g->dev.name) == 0;
		if (seen || !g->reference_harness[0])
			continue;
		/* A copy of the slot: its lock files are not the workers' (as
		 * batch_reference.c's timing). */
		struct gpu_slot locks = *g;
		locks.lock_fd = locks.turn_fd = -1;
		ctx.gpu = g->visible[0] ? g->visible : NULL;
		ctx.share = (struct gpu_share){ .phase = batch_gpu_phase, .arg = &locks };
		reference_times_get(&ctx, BACKEND_CUDA, &g->dev, g->reference_harness, 0, &t);
		if (locks.lock_fd >= 0)
			close(locks.lock_fd);
		if (locks.turn_fd >= 0)
			close(locks.turn_fd);
	}
}

void batch_prepare_gpus(struct batch_config *c)
{
	batch_references(c);
	measure_reference_times(c);
	ask_occupancy_apis(c);
}
