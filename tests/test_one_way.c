/*
 * One way to do each thing: the one text replacement every student-visible
 * text goes through, and the one CUDA toolkit locator the compile step, the
 * symbol check and the sandbox share.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "steps/grade.h"
#include "sys/cuda_toolkit.h"
#include "sys/kit_paths.h"
#include "sys/text_replace.h"
#include "test_support.h"

Test(one_way, a_replacement_that_does_not_fit_cuts_the_end_not_the_name)
{
	char buf[24] = "/tmp/x.cu: error here";
	text_replace_all(buf, sizeof(buf), "/tmp/x.cu", "/home/student/lab3.cu");
	cr_expect_str_eq(buf, "/home/student/lab3.cu: ");
	char same[32] = "a b a";
	text_replace_all(same, sizeof(same), "a", "aa");
	cr_expect_str_eq(same, "aa b aa", "the replacement is not replaced again");
	text_replace_all(same, sizeof(same), "", "x");
	cr_expect_str_eq(same, "aa b aa");
}

/* A grade's every text names the student's file, the grader's own error included. */
Test(one_way, every_text_of_a_grade_names_the_original)
{
	struct grade g;
	grade_init(&g, NULL);
	snprintf(g.internal_message, sizeof(g.internal_message), "cannot read /w/Ab12/transpose.cu");
	snprintf(g.build_log, sizeof(g.build_log), "/w/Ab12/transpose.cu:1: error");
	struct test_result *t = grade_add_test(&g, "build (nvcc)", GROUP_BUILD, 0);
	test_fail(t, "/w/Ab12/transpose.cu did not compile");
	grade_replace_path(&g, "/w/Ab12/transpose.cu", "transpose.cu");
	cr_expect_str_eq(g.internal_message, "cannot read transpose.cu");
	cr_expect_str_eq(g.build_log, "transpose.cu:1: error");
	cr_expect_str_eq(t->message, "transpose.cu did not compile");
	grade_free(&g);
}

/* A toolkit of one file: ROOT/bin/nvcc. */
static void fake_toolkit(const char *root)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/bin && printf '#!/bin/sh\\n' > %s/bin/nvcc && chmod +x %s/bin/nvcc",
		 root, root, root);
	cr_assert_eq(system(cmd), 0);
}

Test(one_way, the_toolkit_is_nvcc_on_path_else_cuda_home)
{
	char dir[64], on_path[128], home[128], bin[160], root[1024], path[1024];
	test_temp_dir(dir, sizeof(dir), "test-toolkit");
	snprintf(on_path, sizeof(on_path), "%s/on-path", dir);
	snprintf(home, sizeof(home), "%s/home", dir);
	fake_toolkit(on_path);
	fake_toolkit(home);
	snprintf(bin, sizeof(bin), "%s/bin", on_path);
	setenv("PATH", bin, 1);
	setenv("CUDA_HOME", home, 1);
	cr_expect_str_eq(cuda_toolkit_root(root, sizeof(root)), on_path);
	cr_expect_str_eq(cuda_toolkit_path("lib64/libcudart.so", path, sizeof(path)),
			 strcat(strcpy(root, on_path), "/lib64/libcudart.so"));
	setenv("PATH", dir, 1);	/* no nvcc on it */
	cr_expect_str_eq(cuda_toolkit_root(root, sizeof(root)), home);
	remove_tree(dir);
}
