/* Lab 3's harness calls the student's transpose(). */
#include "lab.h"

void transpose(const float *d_in, float *d_out, int rows, int cols);

void lab_entry_call(const void *d_in, void *d_out, const struct shape *s)
{
	transpose(d_in, d_out, (int)s->dim[0], (int)s->dim[1]);
}
