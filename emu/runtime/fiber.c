/*
 * Fibers: one stack per CUDA thread of the running block, and the switch
 * between a fiber and the scheduler.
 *
 * On x86-64 the switch is hand-written: it saves the six callee-saved
 * registers and the stack pointer, nothing else, about 10 ns, where
 * swapcontext makes a system call for the signal mask each time (about
 * 180 ns; whole runs were 10x slower). Elsewhere, or with -DCUEMU_UCONTEXT,
 * ucontext is the portable fallback.
 *
 * Stacks come from one mapping, each with a PROT_NONE guard page below it,
 * so an overflow faults at once and fault.c can say so. Stack tops are
 * staggered by 64 bytes a thread: when every stack starts at the same offset
 * in a page, the threads' top frames share one L1 cache set (1.8x slower).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#if defined(__x86_64__) && !defined(CUEMU_UCONTEXT)
#define FIBER_ASM 1
#else
#include <ucontext.h>
#endif

#define GUARD 4096u
#define STAGGER 64u
#define STAGGER_SLOTS 64u

static char *pool;		/* n_stacks * (GUARD + stack_size) bytes */
static int n_stacks;
static size_t slot_size;
static void *sched_sp;

#ifdef FIBER_ASM
/* cuemu_switch(save, to): pushes the callee-saved registers, stores rsp in
 * *save, loads `to` into rsp, pops and returns into the other side. */
void cuemu_switch(void **save, void *to);
__asm__(".text\n"
	".globl cuemu_switch\n"
	".type cuemu_switch,@function\n"
	"cuemu_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size cuemu_switch, .-cuemu_switch\n");
#else
static ucontext_t sched_uc;
static ucontext_t *thread_uc;
#endif

static char *stack_top(int i)
{
	char *top = pool + (size_t)i * slot_size + slot_size;
	return top - STAGGER * (1 + (unsigned)i % STAGGER_SLOTS);
}

void fiber_pool_reserve(int nthreads)
{
	if (nthreads <= n_stacks)
		return;
	if (pool)
		munmap(pool, (size_t)n_stacks * slot_size);
	slot_size = GUARD + rt.stack_size;
	size_t bytes = (size_t)nthreads * slot_size;
	pool = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		    -1, 0);
	if (pool == MAP_FAILED)
		fault_fatal("cannot map %d fiber stacks of %zu KiB", nthreads, rt.stack_size / 1024);
	for (int i = 0; i < nthreads; i++)
		mprotect(pool + (size_t)i * slot_size, GUARD, PROT_NONE);
	n_stacks = nthreads;
	rt.stack_lo = (uintptr_t)pool;
	rt.stack_span = bytes;
	free(rt.threads);
	rt.threads = calloc((size_t)nthreads, sizeof *rt.threads);
#ifndef FIBER_ASM
	free(thread_uc);
	thread_uc = calloc((size_t)nthreads, sizeof *thread_uc);
	if (!thread_uc)
		fault_fatal("out of memory for %d fibers", nthreads);
#endif
	if (!rt.threads)
		fault_fatal("out of memory for %d fibers", nthreads);
}

/* The stack of thread id: [lo, hi). */
void fiber_stack(int id, uintptr_t *lo, uintptr_t *hi)
{
	*lo = (uintptr_t)pool + (size_t)id * slot_size + GUARD;
	*hi = (uintptr_t)pool + (size_t)(id + 1) * slot_size;
}

int fiber_guard_hit(uintptr_t addr, int *thread)
{
	if (!pool || addr < (uintptr_t)pool || addr >= (uintptr_t)pool + (size_t)n_stacks * slot_size)
		return 0;
	size_t off = addr - (uintptr_t)pool;
	/* Below the guard page counts too: a big frame may skip over it. */
	*thread = (int)(off / slot_size);
	return off % slot_size < GUARD + 256;
}

#ifdef FIBER_ASM
void fiber_start(struct thr *t, void (*entry)(void))
{
	void **sp = (void **)stack_top(t->id);
	*--sp = NULL;			/* entry's return address: it never returns */
	*--sp = (void *)entry;		/* cuemu_switch's ret lands here */
	for (int i = 0; i < 6; i++)
		*--sp = NULL;		/* rbp rbx r12 r13 r14 r15 */
	t->sp = sp;
}

void fiber_resume(struct thr *t)
{
	rt.cur = t;
	cuemu_threadIdx = t->tid;
	cuemu_switch(&sched_sp, t->sp);
}

void fiber_yield(struct thr *t)
{
	cuemu_switch(&t->sp, sched_sp);
}

void fiber_switch(struct thr *from, struct thr *to)
{
	rt.cur = to;
	cuemu_threadIdx = to->tid;
	cuemu_switch(&from->sp, to->sp);
}
#else
void fiber_start(struct thr *t, void (*entry)(void))
{
	ucontext_t *uc = &thread_uc[t->id];
	getcontext(uc);
	char *top = stack_top(t->id);
	char *lo = pool + (size_t)t->id * slot_size + GUARD;
	uc->uc_stack.ss_sp = lo;
	uc->uc_stack.ss_size = (size_t)(top - lo);
	uc->uc_link = NULL;
	makecontext(uc, entry, 0);
	(void)sched_sp;
}

void fiber_resume(struct thr *t)
{
	rt.cur = t;
	cuemu_threadIdx = t->tid;
	swapcontext(&sched_uc, &thread_uc[t->id]);
}

void fiber_yield(struct thr *t)
{
	swapcontext(&thread_uc[t->id], &sched_uc);
}

void fiber_switch(struct thr *from, struct thr *to)
{
	rt.cur = to;
	cuemu_threadIdx = to->tid;
	swapcontext(&thread_uc[from->id], &thread_uc[to->id]);
}
#endif
