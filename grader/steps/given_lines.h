/*
 * Which lines of the student's file the lab's skeleton gave them, so that
 * what the emulator measured there is not blamed on the student.
 *
 * The rule, kept plain: a line of the student's file is given when its text,
 * whitespace removed, is a line of the skeleton outside its TODO regions
 * and the two files' lines pair up in order (the longest common sequence of
 * lines, ties paired from the end). A student who edits a given line owns
 * it; code the student wrote is never given, even where it repeats a given
 * line (a second __syncthreads();), unless the given one was deleted.
 * A TODO region of the skeleton is a line with a marker ("TODO:",
 * "TODO 3:") and the rest of the comment it opens: what the student
 * replaces. Blank lines are never given.
 */
#ifndef GRADER_GIVEN_LINES_H
#define GRADER_GIVEN_LINES_H

#include <jansson.h>
#include <stddef.h>

#include "steps/grade.h"

struct given_lines {
	unsigned char *given;	/* given[k]: line k + 1 of the student's file */
	long n;			/* the student's file's lines */
};

/* Pairs student's lines with skeleton's (see above). Returns 0, or -1 when
 * out of memory or the files are too large to pair (gl then gives none). */
int given_lines_match(const char *skeleton, const char *student, struct given_lines *gl);
void given_lines_free(struct given_lines *gl);
int given_lines_is(const struct given_lines *gl, long line);

/* The lab's skeleton as shipped: in the students' copy of the kit, where
 * labs/DIR/FILE is the file the student edits, the copy mk/student_kit.sh
 * keeps under grader/labs/skeletons/DIR/FILE; in the kit's repository,
 * labs/DIR/FILE itself. Returns buf. */
const char *given_skeleton_path(const struct lab *lab, char *buf, size_t len);

/* Adds "given": true to every object of metrics (at any depth) whose
 * "file" is the student's file (base name file) and whose "line" is given:
 * each per-line figure, example request, race side, warning. */
void given_lines_mark(json_t *metrics, const char *file, const struct given_lines *gl);

/* The two above for a grade: pairs g->source with the lab's skeleton and
 * marks g->analysis. A skeleton that cannot be read marks nothing. */
void given_lines_mark_grade(const struct lab *lab, struct grade *g);

#endif
