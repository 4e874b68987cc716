/*
 * The grader's CPU side of one correctness test, timed from outside the
 * grader (tests/gpu/breakdown.sh builds and runs it against the kit's own
 * library, so it measures the landed code unchanged):
 *
 *   breakdown-cpu correct LAB SHAPE SEED CHANNEL_FILE
 *       reads the channel a `harness correct` child wrote, then does what
 *       grader/correctness.c does with it: check the guards, generate the
 *       input from the seed, compute the CPU reference, compare every word.
 *       Prints one tab-separated row per phase: "LAB\tSTEP\tSECONDS\tNOTE".
 *   breakdown-cpu frames CHANNEL_FILE
 *       prints every JSON frame of a channel (timings, device), one a line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/channel.h"
#include "../../common/guard.h"
#include "../../common/shape.h"
#include "../../grader/labs/lab.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The whole file, mapped, as the grader maps the child's memfd. */
static unsigned char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror(path);
		return NULL;
	}
	*len = (size_t)st.st_size;
	return p;
}

static void unmap(unsigned char *p, size_t len)
{
	munmap(p, len);
}

static int print_frames(const char *path)
{
	size_t len;
	unsigned char *data = slurp(path, &len);
	if (!data)
		return 1;
	struct channel_reader r = { data, len, 0 };
	uint32_t type;
	const unsigned char *p;
	uint64_t n;
	while (channel_next(&r, &type, &p, &n) == 1)
		if (type != MSG_OUTPUT && type != MSG_END)
			printf("%u\t%.*s\n", type, (int)n, (const char *)p);
	unmap(data, len);
	return 0;
}

static int time_correct(const char *lab_id, const char *shape_text, uint64_t seed, const char *path)
{
	const struct lab *lab = lab_find(lab_id);
	struct shape s;
	char err[256];
	if (!lab || shape_parse(shape_text, &s, err, sizeof(err)) < 0) {
		fprintf(stderr, "breakdown-cpu: bad lab or shape: %s %s\n", lab_id, shape_text);
		return 2;
	}
	size_t n_in = lab->in_count(&s), n_out = lab->out_count(&s);

	double t0 = now_s();
	size_t len;
	unsigned char *data = slurp(path, &len);
	if (!data)
		return 1;
	struct channel_reader r = { data, len, 0 };
	uint32_t type;
	const unsigned char *p, *out = NULL;
	uint64_t n;
	while (channel_next(&r, &type, &p, &n) == 1)
		if (type == MSG_OUTPUT && n == (uint64_t)(2 * GUARD_WORDS + n_out) * 4)
			out = p;
	if (!out) {
		fprintf(stderr, "breakdown-cpu: %s: no output of %zu words in %s\n", shape_text, n_out, path);
		unmap(data, len);
		return 1;
	}
	const uint32_t *span = (const uint32_t *)out;
	int guards_ok = guard_first_changed(span, GUARD_WORDS) == GUARD_WORDS &&
			guard_first_changed(span + GUARD_WORDS + n_out, GUARD_WORDS) == GUARD_WORDS;
	double t1 = now_s();

	uint32_t *in = malloc(n_in * 4), *want = malloc(n_out * 4);
	if (!in || !want) {
		fprintf(stderr, "breakdown-cpu: out of memory\n");
		return 1;
	}
	lab_fill_input(lab, in, &s, seed);
	double t2 = now_s();
	lab->reference(in, want, &s);
	double t3 = now_s();
	size_t wrong = 0;
	for (size_t i = 0; i < n_out; i++)
		wrong += span[GUARD_WORDS + i] != want[i];
	double t4 = now_s();

	const char *verdict = guards_ok && wrong == 0 ? "right" : "WRONG";
	printf("%s\tcorrect %s: grader reads the channel, checks guards\t%.4f\t%zu MB\n", lab_id,
	       shape_text, t1 - t0, len >> 20);
	printf("%s\tcorrect %s: grader generates the input\t%.4f\t\n", lab_id, shape_text, t2 - t1);
	printf("%s\tcorrect %s: grader's CPU reference\t%.4f\t\n", lab_id, shape_text, t3 - t2);
	printf("%s\tcorrect %s: grader compares every word\t%.4f\t%s, %zu wrong\n", lab_id, shape_text,
	       t4 - t3, verdict, wrong);
	free(in);
	free(want);
	unmap(data, len);
	return wrong == 0 && guards_ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "correct") == 0)
		return time_correct(argv[2], argv[3], strtoull(argv[4], NULL, 10), argv[5]);
	if (argc == 3 && strcmp(argv[1], "frames") == 0)
		return print_frames(argv[2]);
	fprintf(stderr, "usage: breakdown-cpu correct LAB SHAPE SEED CHANNEL | frames CHANNEL\n");
	return 2;
}
