/*
 * The HTML report: one self-contained page a student opens offline, with
 * no script from anywhere. It shows the grade's tests with their messages,
 * the charts (SVG files drawn beforehand by chart/, embedded as images so
 * that nothing in them can run), and the student's own source, each line
 * annotated with what the emulator measured there.
 */
#ifndef GRADER_REPORT_HTML_H
#define GRADER_REPORT_HTML_H

#include <stddef.h>

#include "steps/grade.h"

/* Writes the page for g to out_path, whole or not at all: its source
 * listing is g->source, svgs[0..n_svgs) the charts' files (missing ones
 * are left out). Returns 0, or -1 with one line in err. */
int report_html_write(const struct grade *g, const char *const *svgs, int n_svgs,
		      const char *out_path, char *err, size_t errlen);

#endif
