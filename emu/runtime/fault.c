/*
 * Faults, in two kinds.
 *
 * One a program can return from is reported the CUDA way: the call (or the
 * launch) fails, cudaGetLastError returns the error, and cuemu_last_fault()
 * describes it in one line naming the kernel, block, thread and FILE:LINE.
 * A kernel fault (an illegal address) ends the launch, and its error is
 * sticky, as on a GPU.
 *
 * One it cannot return from (a fiber's stack overflowed, a kernel never
 * ends, the host dereferenced a device pointer, a kernel crashed in code
 * that is not instrumented) prints "cuemu: <description>" on stderr, tells
 * the stop hook (cuemu_set_stop_hook) its kind and line, and ends the
 * process with status 86 (CUEMU_FATAL_EXIT).
 */
#include <execinfo.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "cuemu.h"
#include "internal.h"

static int is_sticky(cudaError_t e)
{
	return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure ||
	       e == cudaErrorMisalignedAddress || e == cudaErrorAssert || e == cudaErrorLaunchTimeout ||
	       e == cudaErrorHardwareStackError || e == cudaErrorIllegalInstruction;
}

static void say(const char *text)
{
	char line[1200];
	int n = snprintf(line, sizeof line, "cuemu: %s\n", text);
	if (n > 0 && write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
		return;
}

static void report(cudaError_t e, const char *text)
{
	/* After a sticky fault nothing runs any more: keep its description. */
	if (rt.sticky_error == cudaSuccess) {
		snprintf(rt.fault, sizeof rt.fault, "%s", text);
		rt.have_fault = 1;
		rt.fault_bounds_site = rt.next_bounds_site;
		if (!rt.quiet)
			say(text);
	}
	rt.next_bounds_site = 0;
	rt.last_error = e;
	if (is_sticky(e))
		rt.sticky_error = e;
}

void fault_report(cudaError_t e, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	report(e, text);
}

const char *thread_text(const struct thr *t, char *buf, size_t len)
{
	if (!t)
		snprintf(buf, len, "block (%u,%u,%u)", cuemu_blockIdx.x, cuemu_blockIdx.y, cuemu_blockIdx.z);
	else
		snprintf(buf, len, "block (%u,%u,%u), thread (%u,%u,%u)", cuemu_blockIdx.x, cuemu_blockIdx.y,
			 cuemu_blockIdx.z, t->tid.x, t->tid.y, t->tid.z);
	return buf;
}

static void __attribute__((noreturn)) kernel_fault(struct thr *t, uintptr_t site, const char *fmt,
						    va_list ap)
{
	char what[700], who[128], at[256];
	vsnprintf(what, sizeof what, fmt, ap);
	fault_report(cudaErrorIllegalAddress, "kernel %s, %s, at %s: %s", rt.launch->name,
		     thread_text(t, who, sizeof who), site_text(site, at, sizeof at), what);
	sched_abort();
}

void fault_kernel(struct thr *t, uintptr_t site, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kernel_fault(t, site, fmt, ap);
}

void fault_bounds(struct thr *t, uintptr_t site, const char *fmt, ...)
{
	va_list ap;
	rt.next_bounds_site = site;
	va_start(ap, fmt);
	kernel_fault(t, site, fmt, ap);
}

static void __attribute__((noreturn)) stop(const char *kind, const char *where, const char *fmt,
					   va_list ap)
{
	char text[1024];
	vsnprintf(text, sizeof text, fmt, ap);
	if (rt.par_worker)
		par_worker_stop(kind, where, text);	/* the launch reports it, if its block is the first */
	say(text);
	if (rt.stop_hook)
		rt.stop_hook(kind, rt.in_kernel && rt.launch ? rt.launch->name : NULL, where, text);
	_exit(CUEMU_FATAL_EXIT);
}

void fault_fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	stop("fatal", NULL, fmt, ap);
}

void fault_stop(const char *kind, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	stop(kind, where, fmt, ap);
}

/* ---- signals ------------------------------------------------------------------------ */

static uintptr_t context_pc(void *ctx)
{
	ucontext_t *uc = ctx;
#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
	(void)uc;
	return 0;
#endif
}

static uintptr_t context_sp(void *ctx)
{
	ucontext_t *uc = ctx;
#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.sp;
#else
	(void)uc;
	return 0;
#endif
}

/* The running fiber's stack pointer is below its stack: it overflowed,
 * whatever address the fault was at (a big frame may jump the guard). */
static int stack_overflowed(void *ctx, int *thread)
{
	uintptr_t lo, hi, sp = context_sp(ctx);
	if (!rt.in_kernel || !rt.cur)
		return 0;
	fiber_stack(rt.cur->id, &lo, &hi);
	*thread = rt.cur->id;
	return sp && sp < lo + 256;
}

static int in_cu_file(uintptr_t pc, char *buf, size_t len)
{
	const char *file;
	unsigned line;
	if (!pc || !lines_lookup(pc, &file, &line) || !strstr(file, ".cu"))
		return 0;
	snprintf(buf, len, "%s:%u", file, line);
	return 1;
}

/* The student's line the program was at: the interrupted instruction if it
 * is in a .cu file, else the nearest caller in one (the fault may be in
 * libc's memcpy), else the thread's last traced access. */
static const char *where_now(void *ctx, char *buf, size_t len)
{
	void *frames[32];
	uintptr_t pc = context_pc(ctx);
	if (in_cu_file(pc, buf, len))
		return buf;
	int n = backtrace(frames, 32);
	for (int i = 0; i < n; i++)
		if (in_cu_file((uintptr_t)frames[i] - 1, buf, len))
			return buf;
	if (rt.in_kernel && rt.cur && rt.cur->last_site)
		return site_text(rt.cur->last_site, buf, len);
	return pc ? site_text(pc + 1, buf, len) : "an unknown line";
}

static const char *kernel_name(void)
{
	return rt.launch ? rt.launch->name : "?";
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t addr = (uintptr_t)si->si_addr;
	char at[256], who[128];
	int thread;
	if ((fiber_guard_hit(addr, &thread) && rt.in_kernel) || stack_overflowed(ctx, &thread)) {
		const char *w = where_now(ctx, at, sizeof at);
		fault_stop("stack_overflow", w, "stack overflow in kernel %s, %s, at %s: each CUDA thread "
			   "has a %zu KiB stack in the emulator, and a large local array (or deep "
			   "recursion) overflowed it; put big arrays in shared or global memory (or set "
			   "CUEMU_STACK_KB)", kernel_name(), thread_text(&rt.threads[thread], who, sizeof who),
			   w, rt.stack_size / 1024);
	}
	if (heap_is_device(addr) && !rt.in_kernel) {
		fault_fatal("the host dereferenced device pointer %p at %s: device memory is for kernels "
			    "and cudaMemcpy only; copy the data to a host buffer first", (void *)addr,
			    where_now(ctx, at, sizeof at));
	}
	if (rt.in_kernel) {
		const char *w = where_now(ctx, at, sizeof at);
		fault_stop("kernel_crash", w, "kernel %s crashed (%s at address %p), %s, at %s",
			   kernel_name(), sig == SIGBUS ? "bus error" : "segmentation fault", (void *)addr,
			   thread_text(rt.cur, who, sizeof who), w);
	}
	/* Not ours: let the default action end the process as it would have. */
	signal(sig, SIG_DFL);
}

static void on_fpe(int sig, siginfo_t *si, void *ctx)
{
	char at[256], who[128];
	(void)si;
	if (rt.in_kernel) {
		const char *w = where_now(ctx, at, sizeof at);
		fault_stop("kernel_crash", w, "kernel %s: integer division by zero, %s, at %s (a GPU "
			   "gives an undefined value; a CPU stops)", kernel_name(),
			   thread_text(rt.cur, who, sizeof who), w);
	}
	signal(sig, SIG_DFL);
}

static void on_abrt(int sig, siginfo_t *si, void *ctx)
{
	char at[256], who[128];
	(void)si;
	if (rt.in_kernel) {
		const char *w = where_now(ctx, at, sizeof at);
		fault_stop("kernel_crash", w, "kernel %s: a device-side assert failed (or __trap() or "
			   "abort() was called), %s, at %s", kernel_name(), thread_text(rt.cur, who, sizeof who), w);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_watchdog(int sig, siginfo_t *si, void *ctx)
{
	char at[256], who[128];
	(void)sig;
	(void)si;
	if (!rt.in_kernel || (rt.par_worker && !par_watchdog_fires()))
		return;
	const char *w = where_now(ctx, at, sizeof at);
	fault_stop("kernel_timeout", w, "kernel %s has run for %.0f s of CPU time and is still going: "
		   "%s was at %s. A loop that never ends? Note that the emulator runs blocks one at a "
		   "time, so a block that waits for a later block, or a thread that spins waiting for "
		   "another thread of its block, never ends here (limit: CUEMU_KERNEL_TIMEOUT=%.0f)",
		   kernel_name(), rt.kernel_timeout_s, thread_text(rt.cur, who, sizeof who), w,
		   rt.kernel_timeout_s);
}

static void install(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void fault_signals_install(void)
{
	/* The handlers run on their own stack: a fiber that overflowed has none left. */
	static char alt[64 * 1024];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0 };
	void *warm[2];
	backtrace(warm, 2);	/* loads the unwinder now: a handler must not */
	sigaltstack(&ss, NULL);
	install(SIGSEGV, on_segv);
	install(SIGBUS, on_segv);
	install(SIGFPE, on_fpe);
	install(SIGABRT, on_abrt);
	install(SIGVTALRM, on_watchdog);
}

void watchdog_arm(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	if (rt.kernel_timeout_s <= 0)
		return;
	it.it_value.tv_sec = (time_t)rt.kernel_timeout_s;
	it.it_value.tv_usec = (suseconds_t)((rt.kernel_timeout_s - (double)it.it_value.tv_sec) * 1e6);
	setitimer(ITIMER_VIRTUAL, &it, NULL);
}

void watchdog_disarm(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	if (rt.kernel_timeout_s > 0)
		setitimer(ITIMER_VIRTUAL, &it, NULL);
}
