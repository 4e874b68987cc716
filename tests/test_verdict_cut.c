/*
 * The gradebook's verdicts shortened at a word, never inside one, with the
 * brackets the cut left open closed (grader/batch/batch_cut.c).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "batch/batch.h"

static char out[256];

Test(verdict_cut, short_text_is_kept_whole)
{
	batch_cut_text(out, sizeof(out), "wrong output (2 of 8 sizes failed)", 100);
	cr_assert_str_eq(out, "wrong output (2 of 8 sizes failed)");
	batch_cut_text(out, sizeof(out), "first line\nsecond line", 100);
	cr_assert_str_eq(out, "first line");
}

Test(verdict_cut, cuts_after_a_whole_word)
{
	const char *m = "calls a function of one of the libraries that the lab does not allow";
	batch_cut_text(out, sizeof(out), m, 50);
	cr_assert_leq(strlen(out), 50, "%s", out);
	cr_assert_str_eq(out + strlen(out) - 3, "...", "%s", out);
	size_t kept = strlen(out) - 3;
	cr_assert_eq(strncmp(out, m, kept), 0, "%s", out);
	cr_assert(m[kept] == ' ', "cut inside a word: %s", out);
	cr_assert_null(strstr(out, "tha..."), "%s", out);
}

Test(verdict_cut, closes_the_brackets_it_leaves_open)
{
	const char *m = "killed (signal 11 [Segmentation fault] while the kernel {of the student} "
			"was writing past the end of its output buffer) and more";
	batch_cut_text(out, sizeof(out), m, 60);
	cr_assert_leq(strlen(out), 60, "%s", out);
	int round = 0, square = 0, curly = 0;
	for (const char *p = out; *p; p++) {
		round += (*p == '(') - (*p == ')');
		square += (*p == '[') - (*p == ']');
		curly += (*p == '{') - (*p == '}');
		cr_assert(round >= 0 && square >= 0 && curly >= 0, "%s", out);
	}
	cr_assert(round == 0 && square == 0 && curly == 0, "a bracket left open: %s", out);
	cr_assert_eq(out[strlen(out) - 1], ')', "%s", out);
}

Test(verdict_cut, never_splits_a_character_or_overruns)
{
	/* One long word of two-byte characters: cut, but between characters. */
	char word[200] = "";
	for (int i = 0; i < 60; i++)
		strcat(word, "\xc3\xa9");
	char small[32];
	batch_cut_text(small, sizeof(small), word, 1000);
	cr_assert_lt(strlen(small), sizeof(small));
	size_t kept = strlen(small) - 3;
	cr_assert_eq(kept % 2, 0, "a character split: %zu bytes kept", kept);
	batch_cut_text(small, 1, word, 1000);
	cr_assert_str_eq(small, "");
}
