/* The chart tests' fixture (chart_fixture.h). */
#include "chart_fixture.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart/gnuplot.h"
#include "sys/kit_paths.h"
#include "test_support.h"

struct chart_fixture fx;

static const struct lab lab3 = {
	.id = "lab3", .dir = "lab3-transpose", .file = "transpose.cu",
	.title = "Coalesced matrix transpose", .rank = 2,
};

void chart_setup(void)
{
	grade_init(&fx.g, &lab3);
	fx.g.backend = BACKEND_CUDA;
	snprintf(fx.g.device, sizeof(fx.g.device), "NVIDIA H100 80GB HBM3");
	add_bench_point(&fx.g, 16384, 16384, 2765, 2800, 3000);	/* out of order on purpose */
	add_bench_point(&fx.g, 1024, 1024, 300, 350, 600);
	add_bench_point(&fx.g, 4096, 4096, 1900, 2100, 2600);
	add_bench_point(&fx.g, 4097, 1023, 1500, -1, 2300);
	test_temp_dir(fx.dir, sizeof(fx.dir), "kit-chart");
	fx.msg[0] = '\0';
}

void chart_teardown(void)
{
	grade_free(&fx.g);
	remove_tree(fx.dir);
}

const char *in_dir(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", fx.dir, name);
	return buf[k];
}

/* The whole file, NUL-terminated; *len its size. */
char *slurp(const char *path, size_t *len)
{
	static char *buf;
	free(buf);
	buf = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	*len = fread(buf, 1, n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* Files in folder d, "." and ".." aside. */
int entries(const char *d)
{
	DIR *dd = opendir(d);
	struct dirent *e;
	int n = 0;
	cr_assert_not_null(dd, "%s", d);
	while ((e = readdir(dd)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dd);
	return n;
}

void assert_png(const char *path)
{
	size_t len = 0;
	char *png = slurp(path, &len);
	cr_assert_not_null(png, "no file %s", path);
	cr_assert_eq(memcmp(png, "\x89PNG\r\n\x1a\n", 8), 0, "%s is not a PNG", path);
	cr_assert_gt(len, 10000, "%s is only %zu bytes", path, len);
}

/* For a test that draws with the real gnuplot. */
void need_gnuplot(void)
{
	unsetenv("GNUPLOT");
	if (!gnuplot_available())
		cr_skip_test("gnuplot is not installed here (it is optional: apt-get install gnuplot-nox)");
}
