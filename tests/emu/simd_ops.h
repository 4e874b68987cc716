/*
 * Every SIMD intrinsic of the CUDA Math API, and the DPX ones of CUDA 12, as
 * X(NAME, ARGS, WIDTH, OP, KIND) rows: kernels/simd.cu calls NAME, the test
 * (test_simd.c) computes OP on each WIDTH-bit part in its own code.
 * ARGS: 1, 2 or 3 words; B: two words and one bool; P: two words and a bool
 * for each halfword. KIND: VAL the part's value, MASK all ones where OP is
 * true, ONE 1 where it is, RELU the value but at least 0.
 */
#ifndef SIMD_OPS_H
#define SIMD_OPS_H

enum simd_op {
	SIMD_ADD, SIMD_ADDSS, SIMD_ADDUS, SIMD_SUB, SIMD_SUBSS, SIMD_SUBUS, SIMD_ABSDIFFS,
	SIMD_ABSDIFFU, SIMD_AVGS, SIMD_AVGU, SIMD_HADDU, SIMD_MAXS, SIMD_MAXU, SIMD_MINS,
	SIMD_MINU, SIMD_SADS, SIMD_SADU, SIMD_EQ, SIMD_NE, SIMD_GES, SIMD_GEU, SIMD_GTS,
	SIMD_GTU, SIMD_LES, SIMD_LEU, SIMD_LTS, SIMD_LTU, SIMD_ABS, SIMD_ABSSS, SIMD_NEG,
	SIMD_NEGSS, SIMD_MAX3S, SIMD_MAX3U, SIMD_MIN3S, SIMD_MIN3U, SIMD_ADDMAXS, SIMD_ADDMAXU,
	SIMD_ADDMINS, SIMD_ADDMINU, SIMD_BMAXS, SIMD_BMAXU, SIMD_BMINS, SIMD_BMINU
};
enum simd_kind { SIMD_VAL, SIMD_MASK, SIMD_ONE, SIMD_RELU };

#define SIMD_OPS(X) \
	X(__vadd2, 2, 16, SIMD_ADD, SIMD_VAL) \
	X(__vaddss2, 2, 16, SIMD_ADDSS, SIMD_VAL) \
	X(__vaddus2, 2, 16, SIMD_ADDUS, SIMD_VAL) \
	X(__vsub2, 2, 16, SIMD_SUB, SIMD_VAL) \
	X(__vsubss2, 2, 16, SIMD_SUBSS, SIMD_VAL) \
	X(__vsubus2, 2, 16, SIMD_SUBUS, SIMD_VAL) \
	X(__vabsdiffs2, 2, 16, SIMD_ABSDIFFS, SIMD_VAL) \
	X(__vabsdiffu2, 2, 16, SIMD_ABSDIFFU, SIMD_VAL) \
	X(__vavgs2, 2, 16, SIMD_AVGS, SIMD_VAL) \
	X(__vavgu2, 2, 16, SIMD_AVGU, SIMD_VAL) \
	X(__vhaddu2, 2, 16, SIMD_HADDU, SIMD_VAL) \
	X(__vmaxs2, 2, 16, SIMD_MAXS, SIMD_VAL) \
	X(__vmaxu2, 2, 16, SIMD_MAXU, SIMD_VAL) \
	X(__vmins2, 2, 16, SIMD_MINS, SIMD_VAL) \
	X(__vminu2, 2, 16, SIMD_MINU, SIMD_VAL) \
	X(__vsads2, 2, 16, SIMD_SADS, SIMD_VAL) \
	X(__vsadu2, 2, 16, SIMD_SADU, SIMD_VAL) \
	X(__vcmpeq2, 2, 16, SIMD_EQ, SIMD_MASK) \
	X(__vseteq2, 2, 16, SIMD_EQ, SIMD_ONE) \
	X(__vcmpne2, 2, 16, SIMD_NE, SIMD_MASK) \
	X(__vsetne2, 2, 16, SIMD_NE, SIMD_ONE) \
	X(__vcmpges2, 2, 16, SIMD_GES, SIMD_MASK) \
	X(__vsetges2, 2, 16, SIMD_GES, SIMD_ONE) \
	X(__vcmpgeu2, 2, 16, SIMD_GEU, SIMD_MASK) \
	X(__vsetgeu2, 2, 16, SIMD_GEU, SIMD_ONE) \
	X(__vcmpgts2, 2, 16, SIMD_GTS, SIMD_MASK) \
	X(__vsetgts2, 2, 16, SIMD_GTS, SIMD_ONE) \
	X(__vcmpgtu2, 2, 16, SIMD_GTU, SIMD_MASK) \
	X(__vsetgtu2, 2, 16, SIMD_GTU, SIMD_ONE) \
	X(__vcmples2, 2, 16, SIMD_LES, SIMD_MASK) \
	X(__vsetles2, 2, 16, SIMD_LES, SIMD_ONE) \
	X(__vcmpleu2, 2, 16, SIMD_LEU, SIMD_MASK) \
	X(__vsetleu2, 2, 16, SIMD_LEU, SIMD_ONE) \
	X(__vcmplts2, 2, 16, SIMD_LTS, SIMD_MASK) \
	X(__vsetlts2, 2, 16, SIMD_LTS, SIMD_ONE) \
	X(__vcmpltu2, 2, 16, SIMD_LTU, SIMD_MASK) \
	X(__vsetltu2, 2, 16, SIMD_LTU, SIMD_ONE) \
	X(__vabs2, 1, 16, SIMD_ABS, SIMD_VAL) \
	X(__vabsss2, 1, 16, SIMD_ABSSS, SIMD_VAL) \
	X(__vneg2, 1, 16, SIMD_NEG, SIMD_VAL) \
	X(__vnegss2, 1, 16, SIMD_NEGSS, SIMD_VAL) \
	X(__vadd4, 2, 8, SIMD_ADD, SIMD_VAL) \
	X(__vaddss4, 2, 8, SIMD_ADDSS, SIMD_VAL) \
	X(__vaddus4, 2, 8, SIMD_ADDUS, SIMD_VAL) \
	X(__vsub4, 2, 8, SIMD_SUB, SIMD_VAL) \
	X(__vsubss4, 2, 8, SIMD_SUBSS, SIMD_VAL) \
	X(__vsubus4, 2, 8, SIMD_SUBUS, SIMD_VAL) \
	X(__vabsdiffs4, 2, 8, SIMD_ABSDIFFS, SIMD_VAL) \
	X(__vabsdiffu4, 2, 8, SIMD_ABSDIFFU, SIMD_VAL) \
	X(__vavgs4, 2, 8, SIMD_AVGS, SIMD_VAL) \
	X(__vavgu4, 2, 8, SIMD_AVGU, SIMD_VAL) \
	X(__vhaddu4, 2, 8, SIMD_HADDU, SIMD_VAL) \
	X(__vmaxs4, 2, 8, SIMD_MAXS, SIMD_VAL) \
	X(__vmaxu4, 2, 8, SIMD_MAXU, SIMD_VAL) \
	X(__vmins4, 2, 8, SIMD_MINS, SIMD_VAL) \
	X(__vminu4, 2, 8, SIMD_MINU, SIMD_VAL) \
	X(__vsads4, 2, 8, SIMD_SADS, SIMD_VAL) \
	X(__vsadu4, 2, 8, SIMD_SADU, SIMD_VAL) \
	X(__vcmpeq4, 2, 8, SIMD_EQ, SIMD_MASK) \
	X(__vseteq4, 2, 8, SIMD_EQ, SIMD_ONE) \
	X(__vcmpne4, 2, 8, SIMD_NE, SIMD_MASK) \
	X(__vsetne4, 2, 8, SIMD_NE, SIMD_ONE) \
	X(__vcmpges4, 2, 8, SIMD_GES, SIMD_MASK) \
	X(__vsetges4, 2, 8, SIMD_GES, SIMD_ONE) \
	X(__vcmpgeu4, 2, 8, SIMD_GEU, SIMD_MASK) \
	X(__vsetgeu4, 2, 8, SIMD_GEU, SIMD_ONE) \
	X(__vcmpgts4, 2, 8, SIMD_GTS, SIMD_MASK) \
	X(__vsetgts4, 2, 8, SIMD_GTS, SIMD_ONE) \
	X(__vcmpgtu4, 2, 8, SIMD_GTU, SIMD_MASK) \
	X(__vsetgtu4, 2, 8, SIMD_GTU, SIMD_ONE) \
	X(__vcmples4, 2, 8, SIMD_LES, SIMD_MASK) \
	X(__vsetles4, 2, 8, SIMD_LES, SIMD_ONE) \
	X(__vcmpleu4, 2, 8, SIMD_LEU, SIMD_MASK) \
	X(__vsetleu4, 2, 8, SIMD_LEU, SIMD_ONE) \
	X(__vcmplts4, 2, 8, SIMD_LTS, SIMD_MASK) \
	X(__vsetlts4, 2, 8, SIMD_LTS, SIMD_ONE) \
	X(__vcmpltu4, 2, 8, SIMD_LTU, SIMD_MASK) \
	X(__vsetltu4, 2, 8, SIMD_LTU, SIMD_ONE) \
	X(__vabs4, 1, 8, SIMD_ABS, SIMD_VAL) \
	X(__vabsss4, 1, 8, SIMD_ABSSS, SIMD_VAL) \
	X(__vneg4, 1, 8, SIMD_NEG, SIMD_VAL) \
	X(__vnegss4, 1, 8, SIMD_NEGSS, SIMD_VAL) \
	X(__vimax3_s32, 3, 32, SIMD_MAX3S, SIMD_VAL) \
	X(__vimax3_u32, 3, 32, SIMD_MAX3U, SIMD_VAL) \
	X(__vimax3_s16x2, 3, 16, SIMD_MAX3S, SIMD_VAL) \
	X(__vimax3_u16x2, 3, 16, SIMD_MAX3U, SIMD_VAL) \
	X(__vimax3_s32_relu, 3, 32, SIMD_MAX3S, SIMD_RELU) \
	X(__vimax3_s16x2_relu, 3, 16, SIMD_MAX3S, SIMD_RELU) \
	X(__vimin3_s32, 3, 32, SIMD_MIN3S, SIMD_VAL) \
	X(__vimin3_u32, 3, 32, SIMD_MIN3U, SIMD_VAL) \
	X(__vimin3_s16x2, 3, 16, SIMD_MIN3S, SIMD_VAL) \
	X(__vimin3_u16x2, 3, 16, SIMD_MIN3U, SIMD_VAL) \
	X(__vimin3_s32_relu, 3, 32, SIMD_MIN3S, SIMD_RELU) \
	X(__vimin3_s16x2_relu, 3, 16, SIMD_MIN3S, SIMD_RELU) \
	X(__viaddmax_s32, 3, 32, SIMD_ADDMAXS, SIMD_VAL) \
	X(__viaddmax_u32, 3, 32, SIMD_ADDMAXU, SIMD_VAL) \
	X(__viaddmax_s16x2, 3, 16, SIMD_ADDMAXS, SIMD_VAL) \
	X(__viaddmax_u16x2, 3, 16, SIMD_ADDMAXU, SIMD_VAL) \
	X(__viaddmax_s32_relu, 3, 32, SIMD_ADDMAXS, SIMD_RELU) \
	X(__viaddmax_s16x2_relu, 3, 16, SIMD_ADDMAXS, SIMD_RELU) \
	X(__viaddmin_s32, 3, 32, SIMD_ADDMINS, SIMD_VAL) \
	X(__viaddmin_u32, 3, 32, SIMD_ADDMINU, SIMD_VAL) \
	X(__viaddmin_s16x2, 3, 16, SIMD_ADDMINS, SIMD_VAL) \
	X(__viaddmin_u16x2, 3, 16, SIMD_ADDMINU, SIMD_VAL) \
	X(__viaddmin_s32_relu, 3, 32, SIMD_ADDMINS, SIMD_RELU) \
	X(__viaddmin_s16x2_relu, 3, 16, SIMD_ADDMINS, SIMD_RELU) \
	X(__vimax_s32_relu, 2, 32, SIMD_MAXS, SIMD_RELU) \
	X(__vimax_s16x2_relu, 2, 16, SIMD_MAXS, SIMD_RELU) \
	X(__vimin_s32_relu, 2, 32, SIMD_MINS, SIMD_RELU) \
	X(__vimin_s16x2_relu, 2, 16, SIMD_MINS, SIMD_RELU) \
	X(__vibmax_s32, B, 32, SIMD_BMAXS, SIMD_VAL) \
	X(__vibmax_u32, B, 32, SIMD_BMAXU, SIMD_VAL) \
	X(__vibmax_s16x2, P, 16, SIMD_BMAXS, SIMD_VAL) \
	X(__vibmax_u16x2, P, 16, SIMD_BMAXU, SIMD_VAL) \
	X(__vibmin_s32, B, 32, SIMD_BMINS, SIMD_VAL) \
	X(__vibmin_u32, B, 32, SIMD_BMINU, SIMD_VAL) \
	X(__vibmin_s16x2, P, 16, SIMD_BMINS, SIMD_VAL) \
	X(__vibmin_u16x2, P, 16, SIMD_BMINU, SIMD_VAL)

#endif
