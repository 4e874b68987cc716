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
 * staggered by 64 bytes a slot: when every stack starts at the same offset
 * in a page, the threads' top frames share one L1 cache set (1.8x slower).
 *
 * A thread gets its stack when it first runs, not when its block starts:
 * the most recently freed one, whose top lines are still in the cache. A
 * thread that ends frees its stack, and when the next lane has not started
 * yet it runs on that stack at once, without a switch (fiber_adopt): a
 * kernel without barriers runs each warp on one warm stack, where every
 * thread's first resumption used to load a cold one.
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
static void (*entry)(void);	/* where a thread starts */
static int *slot_of;		/* by thread id: its stack slot, once it has started */
static int *thread_on;		/* by slot: the thread that runs on it last */
static int *free_slots;		/* the free slots, the most recently freed last */
static int n_free;
static void *sched_sp;

#ifdef FIBER_ASM
/* cuemu_switch(save, to): pushes the callee-saved registers, stores rsp in
 * *save, reads the other side's from `to`, then points rsp past them and
 * returns into the other side. They are read through rsi, not popped
 * after rsp is set: pops from a stack that rsp has just jumped to waited
 * on the CPU's tracking of the stack pointer, about half of every switch
 * (docs/results/emu-grade-profile.md, "The switch without pops"). */
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
	"	movq 0(%rsi), %r15\n"
	"	movq 8(%rsi), %r14\n"
	"	movq 16(%rsi), %r13\n"
	"	movq 24(%rsi), %r12\n"
	"	movq 32(%rsi), %rbx\n"
	"	movq 40(%rsi), %rbp\n"
	"	leaq 48(%rsi), %rsp\n"
	"	ret\n"
	".size cuemu_switch, .-cuemu_switch\n");
#else
static ucontext_t sched_uc;
static ucontext_t *thread_uc;
#endif

static char *stack_top(int slot)
{
	char *top = pool + (size_t)slot * slot_size + slot_size;
	return top - STAGGER * (1 + (unsigned)slot % STAGGER_SLOTS);
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
	/* Aligned as struct thr says: one record, one cache line for the hot part. */
	rt.threads = aligned_alloc(_Alignof(struct thr), (size_t)nthreads * sizeof *rt.threads);
	if (rt.threads)
		memset(rt.threads, 0, (size_t)nthreads * sizeof *rt.threads);
	free(slot_of);
	free(thread_on);
	free(free_slots);
	slot_of = malloc((size_t)nthreads * sizeof *slot_of);
	thread_on = calloc((size_t)nthreads, sizeof *thread_on);
	free_slots = malloc((size_t)nthreads * sizeof *free_slots);
	n_free = 0;
	if (!slot_of || !thread_on || !free_slots)
		fault_fatal("out of memory for %d fibers", nthreads);
#ifndef FIBER_ASM
	free(thread_uc);
	thread_uc = calloc((size_t)nthreads, sizeof *thread_uc);
	if (!thread_uc)
		fault_fatal("out of memory for %d fibers", nthreads);
#endif
	if (!rt.threads)
		fault_fatal("out of memory for %d fibers", nthreads);
}

void fiber_block_begin(int nthreads, void (*start)(void))
{
	entry = start;
	for (int i = 0; i < nthreads; i++)
		rt.threads[i].sp = NULL;	/* not started */
	if (n_free == n_stacks)
		return;		/* every thread of the last block ended: keep their order */
	/* A launch that stopped left threads on their stacks: all are free now. */
	for (n_free = 0; n_free < n_stacks; n_free++)
		free_slots[n_free] = n_stacks - 1 - n_free;
}

/* t has not run yet: gives it the most recently freed stack. */
static int take_slot(struct thr *t)
{
	int slot = free_slots[--n_free];
	slot_of[t->id] = slot;
	thread_on[slot] = t->id;
	return slot;
}

void fiber_end(struct thr *t)
{
	free_slots[n_free++] = slot_of[t->id];
}

int fiber_adopt(struct thr *from, struct thr *to)
{
	if (to->sp)
		return 0;
	int slot = slot_of[from->id];
	slot_of[to->id] = slot;
	thread_on[slot] = to->id;
	to->sp = from->sp;	/* started; it runs on, so the value is never resumed */
	rt.cur = to;
	cuemu_threadIdx = to->tid;
	return 1;
}

/* The stack of thread id, which is running: [lo, hi). */
void fiber_stack(int id, uintptr_t *lo, uintptr_t *hi)
{
	int slot = slot_of[id];
	*lo = (uintptr_t)pool + (size_t)slot * slot_size + GUARD;
	*hi = (uintptr_t)pool + (size_t)(slot + 1) * slot_size;
}

int fiber_guard_hit(uintptr_t addr, int *thread)
{
	if (!pool || addr < (uintptr_t)pool || addr >= (uintptr_t)pool + (size_t)n_stacks * slot_size)
		return 0;
	size_t off = addr - (uintptr_t)pool;
	/* Below the guard page counts too: a big frame may skip over it. */
	*thread = thread_on[off / slot_size];
	return off % slot_size < GUARD + 256;
}

#ifdef FIBER_ASM
/* t has not run yet: starts it on a free stack, saving the running side's
 * stack pointer in *save. Out of line, so that a switch to a thread that
 * has run needs no frame of its own. */
static __attribute__((noinline)) void start(void **save, struct thr *t)
{
	void **sp = (void **)stack_top(take_slot(t));
	*--sp = NULL;			/* entry's return address: it never returns */
	*--sp = (void *)entry;		/* cuemu_switch's ret lands here */
	for (int i = 0; i < 6; i++)
		*--sp = NULL;		/* rbp rbx r12 r13 r14 r15 */
	t->sp = sp;		/* started */
	cuemu_switch(save, sp);
}

void fiber_resume(struct thr *t)
{
	rt.cur = t;
	cuemu_threadIdx = t->tid;
	if (unlikely(!t->sp))
		start(&sched_sp, t);
	else
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
	if (unlikely(!to->sp))
		start(&from->sp, to);
	else
		cuemu_switch(&from->sp, to->sp);
}
#else
/* t's context, made on a free stack when t has not run yet. */
static ucontext_t *resume_uc(struct thr *t)
{
	ucontext_t *uc = &thread_uc[t->id];
	if (t->sp)
		return uc;
	t->sp = uc;		/* started */
	int slot = take_slot(t);
	getcontext(uc);
	char *top = stack_top(slot);
	char *lo = pool + (size_t)slot * slot_size + GUARD;
	uc->uc_stack.ss_sp = lo;
	uc->uc_stack.ss_size = (size_t)(top - lo);
	uc->uc_link = NULL;
	makecontext(uc, entry, 0);
	(void)sched_sp;
	return uc;
}

void fiber_resume(struct thr *t)
{
	ucontext_t *uc = resume_uc(t);
	rt.cur = t;
	cuemu_threadIdx = t->tid;
	swapcontext(&sched_uc, uc);
}

void fiber_yield(struct thr *t)
{
	swapcontext(&thread_uc[t->id], &sched_uc);
}

void fiber_switch(struct thr *from, struct thr *to)
{
	ucontext_t *uc = resume_uc(to);
	rt.cur = to;
	cuemu_threadIdx = to->tid;
	swapcontext(&thread_uc[from->id], uc);
}
#endif
