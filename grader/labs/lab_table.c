/* The labs this kit knows. */
#include "lab.h"

#include <stdio.h>
#include <string.h>

#include "../../common/rng.h"

extern const struct lab lab1_naive_scan, lab2_blelloch_scan, lab3_transpose, lab4_occupancy;

const struct lab *const lab_table[] = { &lab1_naive_scan, &lab2_blelloch_scan, &lab3_transpose,
					&lab4_occupancy, NULL };

const struct lab *lab_find(const char *id)
{
	for (int i = 0; lab_table[i]; i++)
		if (strcmp(id, lab_table[i]->id) == 0 || strcmp(id, lab_table[i]->dir) == 0)
			return lab_table[i];
	return NULL;
}

const char *lab_ids(char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; lab_table[i] && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", lab_table[i]->id);
	return buf;
}

void lab_format_word(enum elem_kind elem, uint32_t w, char *buf, size_t len)
{
	if (elem == ELEM_F32) {
		float f;
		memcpy(&f, &w, sizeof(f));
		snprintf(buf, len, "%.9g (0x%08x)", (double)f, w);
	} else {
		snprintf(buf, len, "%u (0x%08x)", w, w);
	}
}

size_t lab_vector_count(const struct shape *s)
{
	return s->dim[0];
}

double lab_vector_bytes(const struct shape *s)
{
	return 2.0 * (double)s->dim[0] * 4.0;
}

void lab_fill_input(const struct lab *lab, uint32_t *in, const struct shape *s, uint64_t seed)
{
	rng_fill_words(in, 0, lab->in_count(s), lab->input, seed);
}
