/*
 * The rubric's gates, applied once every step has run: points that count
 * only when something else was shown first.
 *
 *  - Analysis points count only for a correct kernel (every correctness
 *    test of the kernel passed), as performance points already do: a
 *    skeleton or a crashing kernel has nothing worth analysing.
 *  - Performance points, too, count only for a correct kernel. The
 *    performance step scores none for a kernel that failed correctness
 *    before it; a kernel whose result turned out, at the analysis step, to
 *    depend on a race (findings.h) had its speed scored, and loses it here.
 *  - [performance] gate = NAME ...: the performance points count only when
 *    each named analysis check passed (lab 2: a scan that is not
 *    work-efficient earns no speed points in the work-efficiency lab). A
 *    check that did not run (the emulator could not build the file, the
 *    analysis was skipped) does not open the gate.
 */
#ifndef GRADER_GATES_H
#define GRADER_GATES_H

#include "steps/grade.h"

/* How the message of a performance test a gate kept shut begins (its
 * failure is FAILURE_GATE_SHUT). */
#define GATE_WHY "the performance points count only when"

void gates_apply(const struct rubric *r, int kernel_correct, struct grade *g);

#endif
