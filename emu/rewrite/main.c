/*
 * cuemu-rewrite [--name SHOWN] [--system DIR]... [--device DEV] IN OUT.cpp
 *
 * Rewrites one CUDA source for the CPU emulator; IN is normally the
 * preprocessor's output (g++ -E), whose line markers name the files. DEV:
 * the same preprocessed with __CUDA_ARCH__ defined, when it differs (the
 * device code's bodies are taken from it, arch.h). SHOWN
 * is the file name messages use before the first line marker (default IN).
 * Code from files under a --system DIR (and under /usr) is not rewritten:
 * the emulator's own headers. Exit status 1 when the source
 * uses something the emulator cannot run (the reasons are on stderr), 2 on
 * a usage or I/O error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "rewrite.h"

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 65536;
			char *b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

static int usage(void)
{
	fprintf(stderr, "usage: cuemu-rewrite [--name SHOWN] [--system DIR]... [--device DEV] IN OUT.cpp\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *shown = NULL, *device = NULL, *system_dirs[16] = { NULL };
	int i = 1, n_system = 0;
	for (; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--name") == 0)
			shown = argv[i + 1];
		else if (strcmp(argv[i], "--device") == 0)
			device = argv[i + 1];
		else if (strcmp(argv[i], "--system") == 0 && n_system < 15)
			system_dirs[n_system++] = argv[i + 1];
		else
			break;
	}
	if (argc - i != 2)
		return usage();
	const char *in = argv[i], *out = argv[i + 1];
	size_t len;
	char *src = read_file(in, &len);
	if (!src) {
		fprintf(stderr, "cuemu-rewrite: %s: %s\n", in, strerror(errno ? errno : EIO));
		return 2;
	}
	if (device) {
		size_t dlen;
		char *dsrc = read_file(device, &dlen);
		if (!dsrc) {
			fprintf(stderr, "cuemu-rewrite: %s: %s\n", device, strerror(errno ? errno : EIO));
			free(src);
			return 2;
		}
		char *merged = arch_merge(src, len, dsrc, dlen);
		free(dsrc);
		free(src);
		if (!merged) {
			fprintf(stderr, "cuemu-rewrite: out of memory\n");
			return 2;
		}
		src = merged;
		len = strlen(merged);
	}
	int errors;
	char *text = rewrite_source(shown ? shown : in, src, len, system_dirs, stderr, &errors);
	free(src);
	if (!text) {
		fprintf(stderr, "cuemu-rewrite: out of memory\n");
		return 2;
	}
	if (errors) {
		free(text);
		return 1;
	}
	FILE *f = fopen(out, "wb");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "cuemu-rewrite: %s: %s\n", out, strerror(errno));
		free(text);
		return 2;
	}
	free(text);
	return 0;
}
