/*
 * Races are counted on the bytes two threads touch, not on the 4-byte
 * words that hold them: threads that each store their own byte of a char
 * array do not race (on a GPU a byte store writes that byte only), while
 * two threads storing the same byte do.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_test.h"

static char dir[] = "/tmp/cuemu-races-XXXXXX";

static void make_dir(void)
{
	scratch_dir_make(dir);
}

static void remove_dir(void)
{
	scratch_dir_remove(dir);
}

TestSuite(races, .init = make_dir, .fini = remove_dir);

/* A kernel whose thread t stores byte t * stride of a shared char array
 * (stride 0: every thread the same byte), then, after a barrier, one
 * thread copies the array out; the program prints the race total. */
static long races_of(int stride)
{
	char text[2048], name[32], *out;
	snprintf(text, sizeof text,
		 "#include <cstdio>\n#include <cstring>\n#include <cuemu.h>\n"
		 "__global__ void bytes(char *out)\n{\n\t__shared__ char flags[64];\n"
		 "\tflags[threadIdx.x * %d] = (char)threadIdx.x;\n\t__syncthreads();\n"
		 "\tif (threadIdx.x == 0)\n\t\tfor (int i = 0; i < 64; i++)\n\t\t\tout[i] = flags[i];\n}\n"
		 "int main()\n{\n\tchar *d;\n\tcudaMalloc(&d, 64);\n\tcudaMemset(d, 0, 64);\n"
		 "\tcuemu_set_tracing(1);\n\tcuemu_set_traced_blocks(-1);\n\tbytes<<<1, 32>>>(d);\n"
		 "\tcudaDeviceSynchronize();\n\tconst char *j = cuemu_metrics_json(), *r = strstr(j, \"\\\"races\\\":\");\n"
		 "\twhile (r && r[8] == '[')\n\t\tr = strstr(r + 1, \"\\\"races\\\":\");\n"
		 "\tprintf(\"races=%%ld\\n\", r ? atol(r + 8) : -1L);\n\treturn 0;\n}\n",
		 stride);
	snprintf(name, sizeof name, "bytes%d.cu", stride);
	const char *src = scratch_source(dir, name, text);
	cr_assert_eq(cuemu_build_run("", src, &out), 0, "%s", out);
	const char *at = strstr(out, "races=");
	cr_assert_not_null(at, "%s", out);
	long n = atol(at + 6);
	free(out);
	return n;
}

Test(races, threads_storing_their_own_bytes_of_a_word_do_not_race)
{
	cr_expect_eq(races_of(1), 0, "32 threads, one byte each, 4 to a word");
}

Test(races, threads_storing_the_same_byte_race)
{
	cr_expect_gt(races_of(0), 0, "32 threads storing flags[0]");
}
