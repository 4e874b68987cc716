/* A part of a grade in a forked grader (see side.h). */
#include "steps/side.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "sys/clock.h"

#define SIDE_MAGIC "KITSIDE1"

/* What comes first through the pipe; the tests, then the emulator's
 * metrics (JSON) follow. The fork is this program: the typed parts travel
 * as they are. */
struct side_header {
	char magic[8];
	int32_t n_tests;
	int32_t n_steps;
	int32_t internal_error;		/* the grader could not do its part (grade.h) */
	char internal_message[512];
	struct prediction prediction;
	struct analysis_figures figures;
	struct bounds_fault bounds;
	double cpu_seconds;		/* the fork's, its children's included, when it reported */
	uint64_t analysis_len;
	double steps[GRADE_MAX_STEPS];
};

static int read_all(int fd, void *p, size_t len)
{
	char *c = p;
	while (len > 0) {
		ssize_t r = read(fd, c, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		len -= (size_t)r;
	}
	return 0;
}

static int report(int fd, const struct grade *g)
{
	char *analysis = g->analysis ? json_dumps(g->analysis, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	struct side_header h = { .n_tests = g->n_tests, .n_steps = g->n_steps,
				 .internal_error = g->internal_error, .prediction = g->prediction,
				 .figures = g->figures, .bounds = g->bounds,
				 .cpu_seconds = cpu_seconds_used() };
	memcpy(h.magic, SIDE_MAGIC, sizeof(h.magic));
	memcpy(h.internal_message, g->internal_message, sizeof(h.internal_message));
	h.analysis_len = analysis ? strlen(analysis) : 0;
	memcpy(h.steps, g->step_seconds, sizeof(h.steps));
	int rc = (g->analysis && !analysis) ||
		 channel_write_all(fd, &h, sizeof(h)) < 0 ||
		 channel_write_all(fd, g->tests, (size_t)g->n_tests * sizeof(g->tests[0])) < 0 ||
		 (analysis && channel_write_all(fd, analysis, h.analysis_len) < 0);
	free(analysis);
	return rc ? -1 : 0;
}

/* The fork's typed parts into g's, where the fork made them. */
static void take_parts(struct side_header *h, struct grade *g)
{
	if (h->prediction.made || h->prediction.error[0]) {
		g->prediction = h->prediction;
		g->prediction.error[sizeof(g->prediction.error) - 1] = '\0';
		g->prediction.why[sizeof(g->prediction.why) - 1] = '\0';
		g->prediction.gpu[sizeof(g->prediction.gpu) - 1] = '\0';
		g->prediction.bound[sizeof(g->prediction.bound) - 1] = '\0';
	}
	if (h->figures.shape[0]) {
		g->figures = h->figures;
		g->figures.shape[sizeof(g->figures.shape) - 1] = '\0';
	}
	if (h->bounds.found) {
		g->bounds = h->bounds;
		g->bounds.file[sizeof(g->bounds.file) - 1] = '\0';
		g->bounds.shape[sizeof(g->bounds.shape) - 1] = '\0';
	}
}

int side_start(struct side *s, const struct lab *lab, void (*part)(void *arg, struct grade *g),
	       void *arg)
{
	int p[2];
	s->pid = 0;
	s->fd = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	fflush(NULL);	/* nothing buffered is written twice */
	pid_t parent = getpid(), pid = fork();
	if (pid == 0) {
		/* A grader that dies takes its part along. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent)
			_exit(1);
		close(p[0]);
		struct grade g;
		grade_init(&g, lab);
		part(arg, &g);
		if (report(p[1], &g) < 0)
			_exit(1);
		/* Alive until joined, so that the grader reaps it there and
		 * nowhere else (reap): what it used is counted once. */
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	s->pid = pid;
	s->fd = p[0];
	return 0;
}

/* Ends the fork and reaps it. Killed only while it is our unreaped child:
 * the grader reaps the orphans its sandbox leaves (uid_reap_orphans), and
 * that may be a fork that died before it reported, and its pid someone
 * else's by now. */
static void reap(struct side *s)
{
	if (waitpid(s->pid, NULL, WNOHANG) == 0)
		kill(s->pid, SIGKILL);
	while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(s->fd);
	s->pid = 0;
	s->fd = -1;
}

/* Reads the fork's whole report into g's copy, or nothing. */
static int receive(int fd, struct grade *g, double *seconds, int n, double *cpu)
{
	struct side_header h;
	if (read_all(fd, &h, sizeof(h)) < 0 || memcmp(h.magic, SIDE_MAGIC, sizeof(h.magic)) != 0 ||
	    h.n_tests < 0 || h.n_tests > GRADE_MAX_TESTS - g->n_tests || h.n_steps < 0 ||
	    h.n_steps > GRADE_MAX_STEPS || h.analysis_len > ((uint64_t)1 << 32))
		return -1;
	struct test_result *tests = malloc((size_t)h.n_tests * sizeof(*tests) + 1);
	char *analysis = malloc(h.analysis_len + 1);
	json_t *a = NULL;
	int ok = tests && analysis && read_all(fd, tests, (size_t)h.n_tests * sizeof(*tests)) == 0 &&
		 read_all(fd, analysis, h.analysis_len) == 0;
	if (ok) {
		analysis[h.analysis_len] = '\0';
		a = h.analysis_len ? json_loads(analysis, 0, NULL) : NULL;
		ok = !h.analysis_len || a;
	}
	if (ok) {
		memcpy(&g->tests[g->n_tests], tests, (size_t)h.n_tests * sizeof(*tests));
		g->n_tests += h.n_tests;
		take_parts(&h, g);
		if (a) {
			json_decref(g->analysis);
			g->analysis = json_incref(a);
		}
		for (int i = 0; i < n; i++)
			seconds[i] = i < h.n_steps ? h.steps[i] : 0;
		*cpu = h.cpu_seconds >= 0 ? h.cpu_seconds : 0;
		if (h.internal_error) {
			g->internal_error = 1;
			h.internal_message[sizeof(h.internal_message) - 1] = '\0';
			snprintf(g->internal_message, sizeof(g->internal_message), "%s", h.internal_message);
		}
	}
	json_decref(a);
	free(tests);
	free(analysis);
	return ok ? 0 : -1;
}

int side_join(struct side *s, struct grade *g, double *seconds, int n, double *cpu)
{
	if (s->pid <= 0)
		return -1;
	int rc = receive(s->fd, g, seconds, n, cpu);
	reap(s);
	return rc;
}

void side_stop(struct side *s)
{
	if (s->pid > 0)
		reap(s);
}
