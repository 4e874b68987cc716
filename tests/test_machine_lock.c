/*
 * One GPU lock for the whole machine (batch_lock_dir, batch_gpu_alone): a
 * grade alone, a batch's worker and another checkout's grade wait for one
 * another's timed runs on the same GPU. Two grades timed at once on one
 * H200 each measured about half of what one alone does (lab 1's answer
 * key: 8.5% of copy against 18.8%), and lost performance points for it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch/batch.h"
#include "sys/kit_paths.h"
#include "test_support.h"

static char dir[64];

static void setup(void)
{
	test_temp_dir(dir, sizeof(dir), "test-machine-lock");
	setenv("KIT_LOCK_DIR", dir, 1);
}

static void teardown(void)
{
	unsetenv("KIT_LOCK_DIR");
	remove_tree(dir);
}

TestSuite(machine_lock, .init = setup, .fini = teardown, .timeout = 30);

static struct device_info gpu(const char *uuid)
{
	struct device_info d;
	memset(&d, 0, sizeof(d));
	d.present = 1;
	snprintf(d.name, sizeof(d.name), "NVIDIA H200");
	snprintf(d.uuid, sizeof(d.uuid), "%s", uuid);
	return d;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

Test(machine_lock, a_gpu_is_named_by_its_uuid)
{
	struct device_info d = gpu("GPU-52776547-794e-6f39-1c7c-2d7630302ccc"), none = gpu("");
	struct gpu_slot a, b;
	batch_gpu_alone(&d, &a);
	batch_gpu_alone(&none, &b);
	char want[256];
	snprintf(want, sizeof(want), "%s/gpu-GPU-52776547-794e-6f39-1c7c-2d7630302ccc.lock", dir);
	cr_expect_str_eq(a.lock_path, want);
	snprintf(want, sizeof(want), "%s/gpu-default.lock", dir);
	cr_expect_str_eq(b.lock_path, want, "a GPU whose probe gave no UUID");
}

/* Without KIT_LOCK_DIR: the machine's folder, open to every user. */
Test(machine_lock, every_kit_on_the_machine_uses_one_folder)
{
	char got[4096];
	unsetenv("KIT_LOCK_DIR");
	batch_lock_dir(got, sizeof(got));
	cr_expect_str_eq(got, GPU_LOCK_DIR);
	struct stat st;
	cr_assert_eq(stat(got, &st), 0, "%s", strerror(errno));
	cr_expect(S_ISDIR(st.st_mode));
	if (st.st_uid == geteuid())
		cr_expect_eq(st.st_mode & 07777, 01777, "mode %o: other users' graders cannot use it",
			     (unsigned)(st.st_mode & 07777));
}

/* Two graders, each with its own open files of the same GPU's lock: while
 * one times, the other's shared run waits, and goes on once it is done. */
Test(machine_lock, a_grade_alone_waits_for_another_ones_timed_run)
{
	struct device_info d = gpu("GPU-0000aaaa-0000-0000-0000-000000000001");
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct gpu_slot timed;
		batch_gpu_alone(&d, &timed);
		batch_gpu_phase(&timed, 1, 1);
		if (write(ready[1], "x", 1) != 1)
			_exit(2);
		struct timespec t = { 0, 400 * 1000000L };
		nanosleep(&t, NULL);
		batch_gpu_phase(&timed, 1, 0);
		_exit(0);
	}
	char c;
	cr_assert_eq(read(ready[0], &c, 1), 1);
	struct gpu_slot checked;
	batch_gpu_alone(&d, &checked);
	double asked = now_s();
	batch_gpu_phase(&checked, 0, 1);
	double waited = now_s() - asked;
	batch_gpu_phase(&checked, 0, 0);
	batch_gpu_close(&checked);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_expect_gt(waited, 0.3, "the shared run went on after %.3f s, while the other grade timed", waited);
	close(ready[0]);
	close(ready[1]);
}

/* Another user's lock files, in a sticky folder: opened all the same (the
 * kernel refuses O_CREAT on them where fs.protected_regular is set). Needs
 * root to make a file of another user's. */
Test(machine_lock, another_users_lock_files_are_opened)
{
	if (geteuid() != 0)
		cr_skip_test("needs root, to make files of another user's");
	struct device_info d = gpu("GPU-0000bbbb-0000-0000-0000-000000000002");
	struct gpu_slot s;
	cr_assert_eq(chmod(dir, 01777), 0);
	batch_gpu_alone(&d, &s);
	const char *paths[] = { s.lock_path, s.turn_path };
	for (int i = 0; i < 2; i++) {
		int fd = open(paths[i], O_WRONLY | O_CREAT | O_EXCL, 0644);
		cr_assert_geq(fd, 0, "%s", strerror(errno));
		cr_assert_eq(fchown(fd, 65534, 65534), 0);
		close(fd);
	}
	int fds[2] = { -1, -1 };
	cr_expect_eq(batch_gpu_lend(&s, 1, fds, NULL), 0, "the grade could not open the machine's GPU lock");
	cr_expect(fds[0] >= 0 && fds[1] >= 0);
	batch_gpu_close(&s);
}
