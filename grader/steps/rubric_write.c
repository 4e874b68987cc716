/* Writing a GPU's band into a rubric (--calibrate; see rubric.h). */
#include "steps/rubric.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/atomic_file.h"

static int is_section_line(const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	return *line == '[';
}

static int is_gpu_header(const char *line, const char *device)
{
	char want[200];
	snprintf(want, sizeof(want), "[gpu \"%s\"]", device);
	while (*line == ' ' || *line == '\t')
		line++;
	return strncmp(line, want, strlen(want)) == 0;
}

/*
 * Copies the file without the device's old section, then appends the new one
 * after one blank line: sections for several GPUs stay one blank line apart
 * however often each is rewritten.
 */
int rubric_write_gpu_band(const char *path, const struct gpu_band *b, char *err, size_t errlen)
{
	FILE *in = fopen(path, "r");
	if (!in) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out) {
		fclose(in);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	char line[1024];
	int skipping = 0;
	while (fgets(line, sizeof(line), in)) {
		if (is_section_line(line))
			skipping = is_gpu_header(line, b->device);
		if (!skipping)
			fputs(line, out);
	}
	fclose(in);
	fclose(out);
	/* The kept text, without its trailing blank lines. */
	size_t keep = len;
	while (keep > 0 && (text[keep - 1] == '\n' || text[keep - 1] == ' ' || text[keep - 1] == '\t'))
		keep--;
	char *whole = NULL;
	size_t whole_len = 0;
	out = open_memstream(&whole, &whole_len);
	if (!out) {
		free(text);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	fwrite(text, 1, keep, out);
	fprintf(out, "%s[gpu \"%s\"]\nlower_pct = %.1f\nupper_pct = %.1f\nmeasured = %s\n",
		keep ? "\n\n" : "", b->device, b->band.lower_pct, b->band.upper_pct, b->measured);
	fclose(out);
	free(text);
	int rc = atomic_write(path, whole, whole_len, err, errlen);
	free(whole);
	return rc;
}

