/* Every chart one grade can have, drawn in turn (see chart.h). */
#include "chart/chart.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

int chart_grade(const struct grade *g, enum plot_kind kind, const char *out_dir,
		void (*said)(const char *msg, void *arg), void *arg)
{
	typedef int chart_fn(const struct grade *, enum plot_kind, const char *, char *, size_t);
	const struct {
		int wanted;
		chart_fn *draw;
	} charts[] = {
		{ g->n_bench > 0, chart_bandwidth },
		{ g->sweep.points != NULL, chart_occupancy },
		{ g->lab && g->lab->handout_steps != NULL, chart_active_threads },
		{ g->analysis != NULL, chart_coalescing },
	};
	char msg[512];
	int drawn = 0;
	for (size_t i = 0; i < sizeof(charts) / sizeof(charts[0]); i++) {
		if (!charts[i].wanted)
			continue;
		fflush(stdout);	/* PLOT_TERM: gnuplot writes on our stdout */
		int rc = charts[i].draw(g, kind, out_dir, msg, sizeof(msg));
		if (said)
			said(msg, arg);
		if (rc == CHART_NONE_DRAWN)
			break;
		drawn += rc == CHART_DRAWN;
	}
	return drawn;
}

void chart_remove_grade(const struct grade *g, const char *dir)
{
	char pattern[PATH_MAX];
	glob_t found;
	if (!g->lab)
		return;
	snprintf(pattern, sizeof(pattern), "%s/%s-*.*", dir, g->lab->id);
	if (glob(pattern, 0, NULL, &found) != 0)
		return;
	for (size_t i = 0; i < found.gl_pathc; i++)
		unlink(found.gl_pathv[i]);
	globfree(&found);
}

int chart_grade_svg(const struct grade *g, const char *dir, glob_t *found)
{
	char pattern[PATH_MAX];
	chart_remove_grade(g, dir);
	chart_grade(g, PLOT_SVG, dir, NULL, NULL);
	snprintf(pattern, sizeof(pattern), "%s/%s-*.svg", dir, g->lab->id);
	if (glob(pattern, 0, NULL, found) == 0)
		return 0;
	found->gl_pathc = 0;
	found->gl_pathv = NULL;
	return -1;
}
