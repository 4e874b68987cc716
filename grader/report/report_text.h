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

/* 1 when a report to f should be coloured: f is a terminal and the
 * environment has no NO_COLOR variable (set to anything, even ""). */
int report_use_colour(FILE *f);

/* Points without noise: 40 -> "40", 12.5 -> "12.5", 33.3333 -> "33.33"
 * (at most two decimals, trailing zeros dropped). Returns buf. */
const char *report_points(double v, char *buf, size_t len);

/* The command that grades the same submission on the same inputs again:
 * "./grade lab3 --seed 42", with --solution or a shell-quoted --submission
 * when g did not grade the student's own labs/ file. Returns buf. */
const char *report_repro_command(const struct grade *g, char *buf, size_t len);

#endif
