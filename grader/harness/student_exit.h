/*
 * exit() as the student's code sees it. The harness is linked with
 * --wrap=exit (steps/build.c): every exit() of the student's goes to
 * student_exit.c's __wrap_exit. In a correctness run it ends only the
 * size whose entry point called it (each size costs a CUDA context
 * otherwise); anywhere else it ends the process at once, as _exit would,
 * with HARNESS_STUDENT_EXIT (common/harness_report.h).
 */
#ifndef GRADER_HARNESS_STUDENT_EXIT_H
#define GRADER_HARNESS_STUDENT_EXIT_H

struct shape;

/*
 * Calls the entry point (lab_entry_call) on d_in, d_out and s. With
 * catching (the correctness verbs: correct, and the emulator's sizes), an exit() from it, on this thread and its own stack (not a CUDA
 * callback's thread, not an emulated kernel's fiber), ends only the call:
 * returns 1 with *status the status asked for, stdout and stderr flushed,
 * and the report channel cut back to where it was before the call, so
 * that nothing written into it during the call remains. Returns 0 when
 * the entry point returned. Any other exit() ends the process at once.
 */
int student_exit_call(int catching, const void *d_in, void *d_out, const struct shape *s,
		      int *status);

/* After a caught exit() whose process is sound for the next size: the
 * size's MSG_STUDENT_EXIT, with the status. */
void student_exit_report(int status);

/* The process ends as an exit() not caught ends it: a caught exit() that
 * left the CUDA context broken, or a channel that could not be cut back. */
void student_exit_end(void) __attribute__((noreturn));

#endif
