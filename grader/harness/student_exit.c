/* exit() from the student's code (see student_exit.h). */
#include "student_exit.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/channel.h"
#include "../../common/harness_report.h"
#include "../labs/lab.h"

/* The call under way, where an exit() from it is caught; statics, not
 * locals: they are read after the jump back. */
static jmp_buf back;
static volatile int armed;
static volatile int asked;
static const char *volatile call_thread;	/* the address of this thread's `here` */
static volatile uintptr_t call_stack;	/* the frame of student_exit_call */
static size_t stack_room;		/* how deep the calling thread's stack may go */
static off_t channel_mark;		/* the channel's end before the call */
static _Thread_local char here;

void student_exit_end(void)
{
	_exit(HARNESS_STUDENT_EXIT);
}

/* Whether exit() was called from the entry point's own thread, on its own
 * stack, below student_exit_call's frame. Another thread (a CUDA host
 * callback) or another stack (the emulator's fiber of a kernel thread)
 * cannot be jumped back from: the process ends. The main stack is at most
 * RLIMIT_STACK deep, and nothing else is mapped within that of its top. */
static int on_call_stack(void)
{
	uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
	return armed && call_thread == &here && frame < call_stack && call_stack - frame < stack_room;
}

/*
 * The wrapped exit(). Whatever status was asked for, a process it ends
 * ends with HARNESS_STUDENT_EXIT, never one of the harness's own: the
 * grader then believes no frame written after the entry point was called
 * (harness_report.h). No destructor or atexit handler of the student's
 * runs, caught or not.
 */
void __wrap_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status)
{
	fflush(stdout);
	fflush(stderr);
	if (on_call_stack()) {
		armed = 0;
		asked = status;
		longjmp(back, 1);
	}
	student_exit_end();
}

/* The room of this thread's stack: RLIMIT_STACK, at most 1 GiB (the kernel
 * keeps at least that much, or 128 MiB, unmapped below the stack's top). */
static size_t stack_limit(void)
{
	struct rlimit r;
	size_t most = (size_t)1 << 30;
	if (getrlimit(RLIMIT_STACK, &r) < 0)
		return 0;	/* nothing caught */
	return r.rlim_cur == RLIM_INFINITY || r.rlim_cur > most ? most : (size_t)r.rlim_cur;
}

/* Everything written into the channel since the mark goes: frames the
 * student's code wrote before its exit() are not the harness's. */
static int channel_cut_back(void)
{
	struct stat st;
	if (fstat(CHANNEL_FD, &st) < 0)
		return -1;
	if (st.st_size != channel_mark && ftruncate(CHANNEL_FD, channel_mark) < 0)
		return -1;
	return lseek(CHANNEL_FD, channel_mark, SEEK_SET) == channel_mark ? 0 : -1;
}

int student_exit_call(int catching, const void *d_in, void *d_out, const struct shape *s, int *status)
{
	armed = 0;
	if (catching) {
		channel_mark = lseek(CHANNEL_FD, 0, SEEK_CUR);
		stack_room = stack_limit();
		call_thread = &here;
		call_stack = (uintptr_t)__builtin_frame_address(0);
		if (setjmp(back) != 0) {
			*status = asked;
			if (channel_cut_back() < 0)
				student_exit_end();
			return 1;
		}
		/* An unseekable channel cannot be cut back: nothing is caught. */
		armed = channel_mark >= 0;
	}
	lab_entry_call(d_in, d_out, s);
	armed = 0;
	return 0;
}

void student_exit_report(int status)
{
	send_json(MSG_STUDENT_EXIT, "{\"status\":%d}", status);
}
