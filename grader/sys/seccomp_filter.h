/*
 * The system calls no sandboxed child may make, as a seccomp program for
 * bubblewrap (--seccomp FD): ptrace and process_vm_readv/writev fail with
 * EPERM. Inside bwrap's pid namespace the child could otherwise attach to
 * the sandbox's own monitor (pid 1), stop it, and leave the grader waiting
 * for a run that has ended. The foreign ABIs that could name these calls
 * by other numbers (i386 on x86-64, x32) are refused whole: nothing graded
 * uses them.
 */
#ifndef GRADER_SECCOMP_FILTER_H
#define GRADER_SECCOMP_FILTER_H

/* A memory file holding the program, read from its start; -1 when this
 * machine's architecture has no program here (then no filter is used). */
int seccomp_filter_fd(void);

#endif
