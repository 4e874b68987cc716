/*
 * cuemu-cc shows a .cu file what nvcc shows it: nvcc's macros and none of
 * the emulator's own (a file that could tell the two apart could be two
 * programs, one analysed and another timed).
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_test.h"

static char dir[] = "/tmp/cuemu-nvcc-XXXXXX";

static void make_dir(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", dir);
}

/* Writes text to DIR/name; returns the path (static). */
static const char *write_source(const char *name, const char *text)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* 1 if s holds word, case aside. */
static int has_word_nocase(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (; *s; s++)
		if (strncasecmp(s, word, n) == 0)
			return 1;
	return 0;
}

TestSuite(nvcc_compat, .init = make_dir, .fini = remove_dir);

Test(nvcc_compat, the_file_sees_nvccs_macros_and_none_of_the_emulators)
{
	char cmd[1024], *out;
	const char *src = write_source("m.cu", "#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n"
				       "#include <cooperative_groups/scan.h>\n#include <cuda_fp16.h>\n"
				       "#include <cuda.h>\n#include <cuda_profiler_api.h>\n"
				       "#include <device_launch_parameters.h>\nint x;\n");
	snprintf(cmd, sizeof cmd, "%s/cuemu-cc -E -dM %s", CUEMU_BUILD_DIR, src);
	cr_assert_eq(run_command(cmd, &out), 0, "%s", out);
	cr_expect(strstr(out, "#define __NVCC__ 1\n") != NULL, "no __NVCC__");
	cr_expect(strstr(out, "#define __CUDACC__ 1\n") != NULL, "no __CUDACC__");
	cr_expect(strstr(out, "#define __CUDACC_VER_MAJOR__ ") != NULL, "no __CUDACC_VER_MAJOR__");
	cr_expect(strstr(out, "#define CUDART_VERSION ") != NULL, "no CUDART_VERSION");
	cr_expect(strstr(out, "#define __CUDA_ARCH__") == NULL, "__CUDA_ARCH__ in host code");
	/* Line by line: a macro whose name says "emu" is the emulator's. */
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char name[128];
		if (sscanf(line, "#define %127[A-Za-z0-9_]", name) != 1)
			continue;
		cr_expect(!has_word_nocase(name, "emu"), "the file can test the emulator's macro %s", name);
		cr_expect(strcmp(name, "__ldg") != 0 && strcmp(name, "atomicAdd_block") != 0 &&
				  strcmp(name, "__expf") != 0 && strcmp(name, "__STRICT_ANSI__") != 0,
			  "%s is a macro, not as under nvcc", name);
	}
	free(out);
}
