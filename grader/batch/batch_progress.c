/*
 * What the instructor sees while a batch runs, on stderr: one line per
 * finished student, always; and on a terminal a live line under them,
 *
 *   [12/40] grading alice, bob · about 3m20s left
 *
 * redrawn in place (\r and erase-line), never left half-drawn under a
 * permanent line.
 */
#include "batch/batch.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "report/report_text.h"
#include "sys/clock.h"

void progress_init(struct progress *p, int total, int tty)
{
	memset(p, 0, sizeof(*p));
	p->total = total;
	p->tty = tty;
	p->start = now_s();
}

const char *progress_duration(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%lds", t);
	return buf;
}

/* The workers run in parallel: the pace is finished students per second
 * of wall clock, which already counts the parallelism. */
double progress_eta(const struct progress *p, double now)
{
	if (p->done == 0)
		return -1;
	return (now - p->start) / p->done * (p->total - p->done);
}

/* A line wider than the terminal wraps, and \r no longer goes back to its start. */
static int width(void)
{
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		return ws.ws_col - 1;
	return 79;
}

void progress_clear(struct progress *p)
{
	if (p->tty && p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = 0;
}

void progress_draw(struct progress *p, const char *const *running, int n_running)
{
	if (!p->tty)
		return;
	char line[512], left[64], took[32], name[64];
	int at = snprintf(line, sizeof(line), "[%d/%d] grading", p->done, p->total);
	for (int i = 0; i < n_running && at < 300; i++) {
		snprintf(name, sizeof(name), "%.40s", running[i]);
		batch_clean_text(name);
		at += snprintf(line + at, sizeof(line) - (size_t)at, "%s %s", i ? "," : "", name);
	}
	double eta = progress_eta(p, now_s());
	if (eta < 0)
		snprintf(left, sizeof(left), "estimating time left");
	else
		snprintf(left, sizeof(left), "about %s left", progress_duration(eta, took, sizeof(took)));
	size_t n = strlen(line);
	snprintf(line + n, sizeof(line) - n, " · %s", left);
	fprintf(stderr, "\r\033[K%.*s", width(), line);
	fflush(stderr);
	p->drawn = 1;
}

void progress_finished(struct progress *p, const struct summary *s)
{
	char score[32], max[32], took[32], name[BATCH_NAME_LEN];
	p->done++;
	progress_clear(p);
	snprintf(name, sizeof(name), "%s", s->student);
	batch_clean_text(name);
	fprintf(stderr, "[%d/%d] %s: %s/%s, %s (%s)\n", p->done, p->total, name,
		report_points(s->score, score, sizeof(score)),
		report_points(s->max_score, max, sizeof(max)), s->verdict,
		progress_duration(s->wall_s, took, sizeof(took)));
}
