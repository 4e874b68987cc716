/*
 * The kit's functions linked into the student's process have kit_ names:
 * a student's own check() or fail() (common names for a CUDA error helper)
 * is the student's, and the symbol check accepts it; a definition of the
 * kit's own kit_check is still refused.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steps/integrity.h"
#include "sys/kit_paths.h"
#include "test_support.h"

extern const struct lab lab3_transpose;

/* integrity_check on source compiled with cc: 1 when the file may run. */
static int judged(const char *source, char *message, size_t len)
{
	struct grade g;
	grade_init(&g, &lab3_transpose);
	int ok = integrity_of_c(source, BACKEND_EMU, &g);
	snprintf(message, len, "%s", g.tests[0].message);
	grade_free(&g);
	return ok;
}

Test(kit_names, a_students_own_check_and_fail_are_theirs, .timeout = 120)
{
	char message[1024];
	cr_expect_eq(judged("int check(int e, const char *where) { return e != 0 && where != 0; }\n"
			    "void fail(const char *why) { (void)why; }\n"
			    "void transpose(void) { check(0, \"x\"); fail(\"y\"); }\n", message, sizeof(message)),
		     1, "refused: %s", message);
}

Test(kit_names, the_kits_own_names_are_still_refused, .timeout = 120)
{
	char message[1024];
	cr_expect_eq(judged("void kit_check(int e, const char *where) { (void)e; (void)where; }\n",
			    message, sizeof(message)), 0);
	cr_expect_not_null(strstr(message, "kit_check"), "%s", message);
}
