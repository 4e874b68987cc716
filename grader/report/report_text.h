/*
 * The report a student reads in the terminal: what was graded, a table of
 * the tests by group with the reason for each failure under it, the score,
 * and one line saying what to do next.
 */
#ifndef GRADER_REPORT_TEXT_H
#define GRADER_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "steps/grade.h"

/* Prints the report of g to out. colour != 0 adds ANSI colours to the
 * verdicts (green PASS, red FAIL, yellow not measured / skipped). */
void report_text(FILE *out, const struct grade *g, int colour);

/* 1 when a report should be coloured: it goes to a terminal, NO_COLOR is
 * unset or empty (no-color.org: only a non-empty value turns colour off),
 * and TERM is not "dumb" (a terminal that shows escapes as text). NULL:
 * the variable is unset. */
int report_colour_wanted(int is_terminal, const char *no_color, const char *term);

/* report_colour_wanted() for f and this process's environment. */
int report_use_colour(FILE *f);

/* Points without noise: 40 -> "40", 12.5 -> "12.5", 33.3333 -> "33.33"
 * (at most two decimals, trailing zeros dropped). Returns buf. */
const char *report_points(double v, char *buf, size_t len);

/* The command that grades the same submission on the same inputs again:
 * "./grade lab3 --seed 42", with --solution or a shell-quoted --submission
 * when g did not grade the student's own labs/ file. Returns buf. */
const char *report_repro_command(const struct grade *g, char *buf, size_t len);

#endif
