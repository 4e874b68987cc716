/*
 * Names and text from outside: folder names that are
 * not UTF-8 stay distinct gradebook rows (escaped, never collapsed), and
 * no C1 control character (U+0080 to U+009F; U+009B is a CSI) reaches a
 * report, a verdict or the terminal.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/batch.h"
#include "labs/lab.h"
#include "sys/kit_paths.h"
#include "sys/utf8.h"
#include "test_support.h"

static int has_c1(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			return 1;
	return 0;
}

Test(utf8_names, escaped_names_never_collide)
{
	const char *names[] = { "ana\xff", "ana\xfe", "ana?", "ana\\xFF", "ana\xc2\x9b", "ana\x1b", "ana" };
	char out[7][64];
	for (int i = 0; i < 7; i++) {
		cr_assert_eq(utf8_escape_name(names[i], out[i], sizeof(out[i])), 0);
		for (int j = 0; j < i; j++)
			cr_expect_str_neq(out[i], out[j], "'%s' and '%s' both read '%s'", names[i], names[j], out[i]);
		cr_expect(!has_c1(out[i]), "%s", out[i]);
	}
	cr_expect_str_eq(out[0], "ana\\xFF");
	cr_expect_str_eq(out[3], "ana\\x5CxFF");
	cr_expect_str_eq(out[4], "ana\\xC2\\x9B");
	char kept[64];
	cr_assert_eq(utf8_escape_name("Zoë Ñúñez", kept, sizeof(kept)), 0);
	cr_expect_str_eq(kept, "Zoë Ñúñez", "printable UTF-8 is left alone");
	cr_expect_eq(utf8_escape_name("\xff\xff\xff\xff", kept, 8), -1, "an escape that does not fit");
}

Test(utf8_names, c1_controls_never_pass)
{
	char s[] = "ok \xc2\x9b" "2J and \xc2\x85 and \x9b raw, \xc2\xa0 kept";
	batch_clean_text(s);
	cr_expect(!strstr(s, "\xc2\x9b") && !strstr(s, "\xc2\x85") && !strchr(s, '\x9b'), "%s", s);
	cr_expect_not_null(strstr(s, "\xc2\xa0 kept"), "U+00A0 is no control: %s", s);
	char lines[] = "line one\n\tline two \xc2\x9b";
	utf8_clean(lines, 1);
	cr_expect_str_eq(lines, "line one\n\tline two ?");
}

/* Two folders whose names differ only in bytes that are not UTF-8: two
 * students, two rows. */
Test(utf8_names, two_non_utf8_folders_are_two_students)
{
	char dir[64], sub[128];
	test_temp_dir(dir, sizeof(dir), "test-utf8-names");
	const char *names[] = { "bob\xff", "bob\xfe", "bob\xc2\x9b" };
	for (int i = 0; i < 3; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", dir, names[i]);
		cr_assert_eq(mkdir(sub, 0755), 0);
	}
	struct roster r;
	char err[256];
	cr_assert_eq(batch_scan(dir, lab_find("lab3"), NULL, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(r.n, 3, "%d students for 3 folders", r.n);
	for (int i = 0; i < r.n; i++) {
		cr_expect(!has_c1(r.students[i].name), "%s", r.students[i].name);
		for (int j = 0; j < i; j++)
			cr_expect_str_neq(r.students[i].name, r.students[j].name);
	}
	roster_free(&r);
	remove_tree(dir);
}
