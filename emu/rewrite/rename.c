/*
 * CUDA built-ins that the emulator provides under other names: the cached
 * loads and stores, the block- and system-scope atomics, the fast math
 * intrinsics. They were macros of the device header, which a student's
 * file could test (#ifdef __ldg) to tell the emulator from nvcc; the
 * rewriter renames them instead, after the file's own #if's are decided.
 * A load or store stays on the student's line: cuemu_ld_ and cuemu_st_
 * are macros of cuemu_qualifiers.h, which only the compile of the
 * rewritten file sees.
 */
#include <string.h>

#include "rw.h"

static const char *const renames[][2] = {
	{ "__ldg", "cuemu_ld_" }, { "__ldca", "cuemu_ld_" }, { "__ldcg", "cuemu_ld_" },
	{ "__ldcs", "cuemu_ld_" }, { "__ldlu", "cuemu_ld_" }, { "__ldcv", "cuemu_ld_" },
	{ "__stcg", "cuemu_st_" }, { "__stcs", "cuemu_st_" }, { "__stwb", "cuemu_st_" },
	{ "__stwt", "cuemu_st_" },
	{ "atomicAdd_block", "atomicAdd" }, { "atomicAdd_system", "atomicAdd" },
	{ "atomicSub_block", "atomicSub" }, { "atomicExch_block", "atomicExch" },
	{ "atomicMin_block", "atomicMin" }, { "atomicMax_block", "atomicMax" },
	{ "atomicCAS_block", "atomicCAS" }, { "atomicAnd_block", "atomicAnd" },
	{ "atomicOr_block", "atomicOr" }, { "atomicXor_block", "atomicXor" },
	{ "atomicInc_block", "atomicInc" }, { "atomicDec_block", "atomicDec" },
	/* glibc declares these names itself (without defining them) */
	{ "__expf", "expf" }, { "__exp10f", "cuemu_exp10f_" }, { "__logf", "logf" },
	{ "__log2f", "log2f" }, { "__log10f", "log10f" }, { "__powf", "powf" },
	{ "__sinf", "sinf" }, { "__cosf", "cosf" }, { "__tanf", "tanf" },
	{ "__sincosf", "sincosf" },
};

int rename_rewrite(struct rw *w, size_t i)
{
	for (size_t k = 0; k < sizeof renames / sizeof renames[0]; k++)
		if (is(w, i, renames[k][0])) {
			add_edit(w, tok(w, i)->start, tok(w, i)->end, strdup(renames[k][1]));
			return 1;
		}
	return 0;
}
