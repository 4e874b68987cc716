/*
 * The order a batch's workers take its students in: the longest first.
 * A class's wall clock is at least its slowest student's time, and a
 * slow student started last ends the class alone: in the measured lab 3
 * class of 65 a file whose build took 9 s (it includes Thrust) ended the
 * class 3-8 s after every other student, on one GPU and on two
 * (docs/results/gpu-2026-11-27-contexts, calls 25-28). Started first, it
 * overlaps the others.
 *
 * What a student will take is guessed, never measured here: its worker's
 * time in the last batch that graded it (summary.json's wall_s, whatever
 * file it graded then), else a fixed guess for a file that includes the
 * template libraries whose builds are slow. The order changes no grade.
 */
#include "batch/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a build of Thrust, CUB or libcu++ headers takes, about (nvcc
 * 13.0, one file: 5-10 s against 1-2 s for a file without them). */
#define HEAVY_BUILD_S 10.0

static const char *const heavy_headers[] = { "thrust/", "cub/", "cuda/", "cutlass/", "cute/" };

/* Whether a line is an #include of one of the heavy libraries' headers. */
static int includes_heavy(const char *line)
{
	line += strspn(line, " \t");
	if (*line != '#')
		return 0;
	line += 1 + strspn(line + 1, " \t");
	if (strncmp(line, "include", 7) != 0)
		return 0;
	line += 7 + strspn(line + 7, " \t");
	if (*line != '<' && *line != '"')
		return 0;
	for (size_t i = 0; i < sizeof(heavy_headers) / sizeof(heavy_headers[0]); i++)
		if (strncmp(line + 1, heavy_headers[i], strlen(heavy_headers[i])) == 0)
			return 1;
	return 0;
}

double batch_guess_seconds(const char *source, double last_wall_s)
{
	if (last_wall_s > 0)
		return last_wall_s;
	FILE *f = fopen(source, "r");
	char line[1024];
	double guess = 0;
	if (!f)
		return 0;
	while (guess == 0 && fgets(line, sizeof(line), f))
		if (includes_heavy(line))
			guess = HEAVY_BUILD_S;
	fclose(f);
	return guess;
}

struct guessed {
	int student;
	double seconds;
};

/* Longest first; the roster's order among equals (a stable sort). */
static int by_guess(const void *a, const void *b)
{
	const struct guessed *x = a, *y = b;
	if (x->seconds != y->seconds)
		return x->seconds < y->seconds ? 1 : -1;
	return (x->student > y->student) - (x->student < y->student);
}

int batch_order_longest_first(int *todo, const double *guess_s, int n)
{
	struct guessed *g = malloc(sizeof(*g) * (size_t)(n ? n : 1));
	if (!g)
		return -1;
	for (int i = 0; i < n; i++)
		g[i] = (struct guessed){ todo[i], guess_s[todo[i]] };
	qsort(g, (size_t)n, sizeof(*g), by_guess);
	for (int i = 0; i < n; i++)
		todo[i] = g[i].student;
	free(g);
	return 0;
}
