/* Lab 4's calculator is the student's own (see own_calculator.h). */
#include "steps/own_calculator.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "labs/lab.h"
#include "steps/build.h"

/* The largest preprocessed pass or object read: far over a lab file's
 * (a pass with the CUDA headers is about 2 MiB). */
#define MAX_TEXT ((size_t)256 << 20)

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Where a name of the calculator starts at text + i, or 0: each prefix,
 * and what must follow it (a capital, or anything). */
static int calculator_name_at(const char *text, size_t len, size_t i)
{
	static const struct {
		const char *prefix;
		int capital_after;
	} names[] = { { "cuda_occupancy.h", 0 }, { "cudaOcc", 1 }, { "CUDA_OCC_", 0 }, { "__occ", 1 } };
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		size_t n = strlen(names[k].prefix);
		if (i + n > len || memcmp(text + i, names[k].prefix, n) != 0)
			continue;
		/* cudaOccupancy* is the runtime's API, not the header's. */
		if (!names[k].capital_after || (i + n < len && isupper((unsigned char)text[i + n])))
			return 1;
	}
	return 0;
}

int own_calculator_find(const char *text, size_t len, char *name, size_t name_len)
{
	for (size_t i = 0; i < len; i++) {
		if (text[i] != 'c' && text[i] != 'C' && text[i] != '_')
			continue;
		if (!calculator_name_at(text, len, i))
			continue;
		size_t end = i, digits = i, mangled = 0;
		while (end < len && (ident_char(text[end]) || text[end] == '.') && end - i < 80)
			end++;
		/* In a mangled name (_ZN21cudaOccFuncAttributesC2Ev) the digits
		 * before it give its length. */
		while (digits > 0 && isdigit((unsigned char)text[digits - 1]) && i - digits < 3)
			digits--;
		for (size_t d = digits; d < i; d++)
			mangled = mangled * 10 + (size_t)(text[d] - '0');
		if (mangled > 0 && i + mangled < end)
			end = i + mangled;
		snprintf(name, name_len, "%.*s", (int)(end - i), text + i);
		return 1;
	}
	return 0;
}

/* path's whole content; NULL when it cannot be read. */
static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long size;
	if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || (size_t)size > MAX_TEXT ||
	    fseek(f, 0, SEEK_SET) != 0)
		goto err;
	buf = malloc((size_t)size + 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size)
		goto err;
	fclose(f);
	*len = (size_t)size;
	return buf;
err:
	free(buf);
	if (f)
		fclose(f);
	return NULL;
}

/* 1 with the name found, 0 when none, -1 when path could not be read. */
static int scan_file(const char *path, char *name, size_t name_len)
{
	size_t len = 0;
	char *text = read_whole(path, &len);
	if (!text)
		return -1;
	int found = own_calculator_find(text, len, name, name_len);
	free(text);
	return found;
}

int own_calculator_check(const struct lab *lab, enum backend backend, const char *submission,
			 const char *student_obj, const char *work_dir, const struct device_info *dev,
			 const struct isolation_policy *tools, double timeout_s, struct test_result *t)
{
	if (!lab->has_calculator)
		return 1;
	char name[96] = "", pass[1024], log[2048];
	int found = scan_file(student_obj, name, sizeof name);
	for (int host = 0; backend == BACKEND_CUDA && found == 0 && host < 2; host++) {
		snprintf(pass, sizeof pass, "%s/student-%s-pass.ii", work_dir, host ? "host" : "device");
		int rc = build_preprocess_cuda(submission, host, pass, dev, tools, timeout_s, log, sizeof log);
		found = rc != 0 ? -1 : scan_file(pass, name, sizeof name);
		unlink(pass);
	}
	if (found == 0)
		return 1;
	if (found < 0)
		test_fail(t, "could not check that your occupancy calculator is your own: the file could "
			  "not be preprocessed or read again");
	else
		test_fail(t, "refused: your file uses the CUDA toolkit's occupancy calculator "
			  "(cuda_occupancy.h: %s). Lab 4 asks you to write occupancy() yourself, from the "
			  "limits in struct occ_device; the runtime's cudaOccupancy* functions may still "
			  "check your launch configuration.", name);
	return 0;
}
