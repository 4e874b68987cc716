/* Lab 3: transpose of a rows x cols float matrix. */
#include "lab.h"

#include <stdio.h>

#include "../../common/reference.h"

static size_t transpose_count(const struct shape *s)
{
	return s->dim[0] * s->dim[1];
}

static double transpose_bytes(const struct shape *s)
{
	return 2.0 * (double)s->dim[0] * (double)s->dim[1] * 4.0;
}

static void transpose_ref(const uint32_t *in, uint32_t *out, const struct shape *s)
{
	ref_transpose((const float *)in, (float *)out, s->dim[0], s->dim[1]);
}

/* The output is cols x rows: word i is out[i / rows][i % rows] = in[i % rows][i / rows]. */
static void transpose_describe(const struct shape *s, size_t i, char *buf, size_t len)
{
	size_t rows = s->dim[0];
	snprintf(buf, len, "out[%zu][%zu] (should be in[%zu][%zu])", i / rows, i % rows, i % rows,
		 i / rows);
}

/* in[row][col] is out[col][row]. */
static size_t transpose_position(const struct shape *s, size_t row, size_t col)
{
	return col * s->dim[0] + row;
}

const struct lab lab3_transpose = {
	.id = "lab3",
	.dir = "lab3-transpose",
	.file = "transpose.cu",
	.entry = "transpose",
	.title = "Coalesced matrix transpose",
	.asks = "transpose(): out (cols x rows) = in (rows x cols) transposed, at copy speed",
	.rank = 2,
	.elem = ELEM_F32,
	.in_count = transpose_count,
	.out_count = transpose_count,
	.min_bytes = transpose_bytes,
	.input = RNG_F32,	/* floats in [-1, 1): a transpose compares bits */
	.reference = transpose_ref,
	.describe_index = transpose_describe,
	.out_position = transpose_position,
	.slow_hint = "The usual cause: uncoalesced writes. When neighbouring threads write addresses a "
		     "whole row apart, each warp's store touches 32 sectors of 32 bytes where 4 would "
		     "do. Stage a tile in shared memory so that reads and writes both run along rows; "
		     "pad the tile so that its columns do not fall in one bank.",
};
