/*
 * A batch's folders (see batch.h): the output folder, held by one batch at
 * a time and never inside the kit; the work folder under build/work/, held
 * while the batch runs; and the work folders of batches that died.
 */
#include "batch/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/kit_paths.h"

/* Work folders of batches that are gone (killed: they had no chance to
 * clean up). A live batch holds the flock on its folder's .lock. */
static void remove_stale_work(const char *work, const char *mine)
{
	char pattern[PATH_MAX + 16], lock[PATH_MAX + 16];
	glob_t g;
	snprintf(pattern, sizeof(pattern), "%s/batch-*", work);
	if (glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (strcmp(g.gl_pathv[i], mine) == 0)
			continue;
		snprintf(lock, sizeof(lock), "%s/.lock", g.gl_pathv[i]);
		int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
			remove_tree(g.gl_pathv[i]);
		if (fd >= 0)
			close(fd);
	}
	globfree(&g);
}

/* Our work folder's lock, held (by the open file) until the batch ends. */
static int hold_work_lock(const char *work_root)
{
	char lock[PATH_MAX + 16];
	snprintf(lock, sizeof(lock), "%s/.lock", work_root);
	int fd = open(lock, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : -1;
}

/* flock(fd, LOCK_EX | LOCK_NB), tried for up to tries * 50 ms. */
static int flock_within(int fd, int tries)
{
	for (int i = 0; i < tries; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	errno = EWOULDBLOCK;
	return -1;
}

/* One batch at a time writes into an output folder: a second one would
 * rebuild the gradebook from its own rows only, and one class's rows
 * would be lost. The lock is held (by the open file) until we exit.
 * A batch killed outright still holds it for the moment its workers take
 * to die (they inherited the open file), so a rerun waits up to 3 s. */
static int hold_out_lock(const char *out)
{
	char lock[PATH_MAX + 16];
	snprintf(lock, sizeof(lock), "%s/.batch.lock", out);
	int fd = open(lock, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && flock_within(fd, 60) == 0)
		return 0;
	if (fd >= 0 && errno == EWOULDBLOCK)
		fprintf(stderr, "grade: another batch is writing to %s now (it holds %s): wait for it to "
			"end, or give another --out\n", out, lock);
	else
		fprintf(stderr, "grade: cannot lock %s: %s\n", lock, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

int batch_setup_dirs(const struct options *o, struct batch_config *c)
{
	char out[PATH_MAX];
	struct stat st;
	if (stat(o->batch_dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "grade: --batch %s: not a folder\n", o->batch_dir);
		return 2;
	}
	if (o->out_dir) {
		snprintf(out, sizeof(out), "%s", o->out_dir);
	} else {
		size_t n = strlen(o->batch_dir);
		while (n > 1 && o->batch_dir[n - 1] == '/')
			n--;
		snprintf(out, sizeof(out), "%.*s-graded", (int)n, o->batch_dir);
	}
	if (make_dirs(out) < 0 || !realpath(out, c->out_dir) || !realpath(o->batch_dir, c->in_dir)) {
		fprintf(stderr, "grade: cannot create the output folder %s: %s\n", out, strerror(errno));
		return 4;
	}
	if (strcmp(c->out_dir, c->in_dir) == 0) {
		fprintf(stderr, "grade: --out must not be the batch's own folder\n");
		return 2;
	}
	char kit[PATH_MAX];
	if (realpath(kit_root(), kit) && strncmp(c->out_dir, kit, strlen(kit)) == 0 &&
	    (c->out_dir[strlen(kit)] == '/' || c->out_dir[strlen(kit)] == '\0')) {
		rmdir(c->out_dir);	/* only if this run made it, empty */
		fprintf(stderr, "grade: --out %s is inside the kit (%s): the kit is what every sandbox "
			"uses, and grades kept there would sit beside it; give a folder outside it\n",
			c->out_dir, kit);
		return 2;
	}
	/* A Slurm array task writes only its own students' folders, many tasks
	 * at once; the command that submitted them holds the folder's lock, and
	 * a later --collect takes it to write the gradebook. */
	if (!o->slurm.task_state && hold_out_lock(c->out_dir) < 0)
		return 4;
	char students[PATH_MAX + 16];
	snprintf(students, sizeof(students), "%s/students", c->out_dir);
	char work[PATH_MAX];
	kit_path(work, sizeof(work), "build/work");
	snprintf(c->work_root, sizeof(c->work_root), "%.3000s/batch-XXXXXX", work);
	if (make_dirs(students) < 0 || make_dirs(work) < 0 || !mkdtemp(c->work_root) ||
	    chmod(c->work_root, 0711) < 0 || hold_work_lock(c->work_root) < 0) {
		fprintf(stderr, "grade: cannot create %s or %s: %s\n", students, c->work_root,
			strerror(errno));
		return 4;
	}
	remove_stale_work(work, c->work_root);
	return 0;
}
