/*
 * System calls written as machine instructions (inline asm in host code):
 * they reach the kernel without any of the library functions the symbol
 * check judges, e.g. to end the process with the harness's own status after
 * writing frames of its own. The emulator refuses asm when it rewrites a
 * file; a GPU build compiles host asm as written, so its object is read.
 */
#ifndef GRADER_STEPS_DIRECT_SYSCALLS_H
#define GRADER_STEPS_DIRECT_SYSCALLS_H

#include <stddef.h>

struct isolation_policy;

/* Disassembles obj's code (objdump -d) and looks for a system call
 * instruction (syscall, sysenter, int $0x80). Returns 1 with the function
 * that holds one in where, 0 when there is none, -1 with err when objdump
 * could not read the object. */
int direct_syscall_find(const char *obj, const struct isolation_policy *tools, char *where, size_t len,
			char *err, size_t errlen);

#endif
