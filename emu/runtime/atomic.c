/*
 * CUDA's atomic functions. The access is checked and traced like any other
 * (as kind "atomic", which the race detector does not hold against another
 * atomic). One OS thread runs every CUDA thread of a process, but the
 * workers of a parallel launch (blocks_parallel.c) share device memory: the
 * update is a compare-and-swap, made after every earlier block has ended.
 */
#include <string.h>

#include "internal.h"

enum { OP_ADD, OP_SUB, OP_EXCH, OP_MIN, OP_MAX, OP_INC, OP_DEC, OP_CAS, OP_AND, OP_OR, OP_XOR };
enum { TY_I32, TY_U32, TY_I64, TY_U64, TY_F32, TY_F64, TY_U16 };

unsigned long long cuemu_atomic(int op, int type, void *p, unsigned long long v, unsigned long long cmp,
				void *site);

static unsigned type_size(int type)
{
	return type == TY_U16 ? 2 : (type == TY_I32 || type == TY_U32 || type == TY_F32) ? 4 : 8;
}

static uint64_t load_bits(const void *p, unsigned size)
{
	uint64_t v = 0;
	memcpy(&v, p, size);
	return v;
}

/* Stores new if p still holds *old, else reads *old again: the worker
 * processes of a parallel launch share device memory (blocks_parallel.c). */
static int swap_bits(void *p, unsigned size, uint64_t *old, uint64_t new)
{
	int ok;
	if (size == 2) {
		uint16_t o = (uint16_t)*old;
		ok = __atomic_compare_exchange_n((uint16_t *)p, &o, (uint16_t)new, 0, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST);
		*old = o;
	} else if (size == 4) {
		uint32_t o = (uint32_t)*old;
		ok = __atomic_compare_exchange_n((uint32_t *)p, &o, (uint32_t)new, 0, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST);
		*old = o;
	} else {
		ok = __atomic_compare_exchange_n((uint64_t *)p, old, new, 0, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST);
	}
	return ok;
}

static uint64_t int_op(int op, int type, uint64_t old, uint64_t v)
{
	int sgn = type == TY_I32 || type == TY_I64;
	int64_t so = type == TY_I32 ? (int32_t)old : (int64_t)old;
	int64_t sv = type == TY_I32 ? (int32_t)v : (int64_t)v;
	switch (op) {
	case OP_ADD: return old + v;
	case OP_SUB: return old - v;
	case OP_EXCH: return v;
	case OP_MIN: return sgn ? (so < sv ? old : v) : (old < v ? old : v);
	case OP_MAX: return sgn ? (so > sv ? old : v) : (old > v ? old : v);
	case OP_INC: return (uint32_t)old >= (uint32_t)v ? 0 : old + 1;
	case OP_DEC: return ((uint32_t)old == 0 || (uint32_t)old > (uint32_t)v) ? v : old - 1;
	case OP_AND: return old & v;
	case OP_OR: return old | v;
	case OP_XOR: return old ^ v;
	default: return old;
	}
}

static uint64_t float_op(int op, int type, uint64_t old, uint64_t v)
{
	if (op == OP_EXCH)
		return v;
	if (type == TY_F32) {
		float a, b;
		uint32_t o32 = (uint32_t)old, v32 = (uint32_t)v;
		memcpy(&a, &o32, 4);
		memcpy(&b, &v32, 4);
		a += b;
		memcpy(&o32, &a, 4);
		return o32;
	}
	double a, b;
	memcpy(&a, &old, 8);
	memcpy(&b, &v, 8);
	a += b;
	memcpy(&old, &a, 8);
	return old;
}

unsigned long long cuemu_atomic(int op, int type, void *p, unsigned long long v, unsigned long long cmp,
				void *site)
{
	unsigned size = type_size(type);
	uintptr_t a = (uintptr_t)p;
	if (rt.in_kernel) {
		if (a % size)
			fault_kernel(rt.cur, (uintptr_t)site, "atomic on a misaligned address %p (a %u-byte "
				     "atomic needs a multiple of %u)", p, size, size);
		cuemu_access_checked(a, size, AK_ATOMIC, (uintptr_t)site);
	}
	par_atomic_turn();
	uint64_t old = load_bits(p, size), new;
	do {
		if (op == OP_CAS)
			new = old == (cmp & (size == 8 ? ~0ull : (1ull << (8 * size)) - 1)) ? v : old;
		else if (type == TY_F32 || type == TY_F64)
			new = float_op(op, type, old, v);
		else
			new = int_op(op, type, old, v);
	} while (!swap_bits(p, size, &old, new));
	return old;
}
