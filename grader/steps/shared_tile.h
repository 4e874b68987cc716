/*
 * The bank-conflict hint's tile, read from the student's source: the
 * __shared__ two-dimensional array a line indexes, as declared, and its
 * shape padded by one element a row ("tile[16][16]" -> "tile[16][17]",
 * "tile[TILE][TILE]" -> "tile[TILE][TILE + 1]").
 */
#ifndef GRADER_SHARED_TILE_H
#define GRADER_SHARED_TILE_H

#include <stddef.h>

/* For line `line` of the source file path: the declared tile in declared,
 * the padded one in padded. Returns 0, or -1 when the line indexes no
 * __shared__ 2-D array the file declares (or the file cannot be read). */
int shared_tile_padding(const char *path, long line, char *declared, char *padded, size_t len);

#endif
