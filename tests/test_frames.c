/*
 * The order of the harness's frames (grader/steps/harness_door.c): nothing
 * after the last frame (MSG_END, MSG_ERROR), no second frame of a kind that
 * comes once per size, nothing before the first size. A stream that breaks
 * one was tampered with: harness_split refuses it.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "channel.h"
#include "harness_report.h"
#include "steps/harness_door.h"
#include "steps/harness_frames.h"

struct stream {
	unsigned char data[4096];
	size_t len;
};

static void add(struct stream *s, enum channel_msg type, const char *payload)
{
	size_t n = payload ? strlen(payload) : 0;
	struct frame_header h = { CHANNEL_MAGIC, (uint32_t)type, n };
	cr_assert_lt(s->len + sizeof(h) + n, sizeof(s->data));
	memcpy(s->data + s->len, &h, sizeof(h));
	memcpy(s->data + s->len + sizeof(h), payload ? payload : "", n);
	s->len += sizeof(h) + n;
}

/* One size's frames as the harness sends them: BEGIN, OUTPUT, DONE. */
static void add_size(struct stream *s)
{
	add(s, MSG_BEGIN, "{\"shape\":\"1x1\",\"seed\":\"1\"}");
	add(s, MSG_OUTPUT, "abcdefgh");
	add(s, MSG_DONE, "{\"cuda_error\":null}");
}

/* harness_split on the stream of a child that exited (with status) or
 * crashed; *last_done: whether the last size's result was kept. */
static int split_ended(struct stream *s, int exited, int status, int *last_done)
{
	struct harness_report whole, parts[4];
	memset(&whole, 0, sizeof(whole));
	whole.child.channel = s->data;
	whole.child.channel_len = s->len;
	whole.child.exited = exited;
	whole.child.exit_status = status;
	whole.child.signaled = !exited;
	int n = harness_split(&whole, parts, 4);
	if (last_done)
		*last_done = n > 0 && parts[n - 1].done != NULL && parts[n - 1].outputs == 1;
	for (int i = 0; i < n; i++)
		harness_part_free(&parts[i]);
	return n;
}

static int split(struct stream *s)
{
	return split_ended(s, 1, 0, NULL);
}

Test(frames, the_harness_order_is_read)
{
	struct stream s = { .len = 0 };
	add_size(&s);
	add_size(&s);
	add(&s, MSG_END, NULL);
	cr_expect_eq(split(&s), 2);
}

Test(frames, a_frame_after_the_end_is_tampering)
{
	struct stream s = { .len = 0 };
	add_size(&s);
	add(&s, MSG_END, NULL);
	add(&s, MSG_METRICS, "{}");
	cr_expect_eq(split(&s), -1);
}

Test(frames, a_frame_after_an_error_is_tampering)
{
	struct stream s = { .len = 0 };
	add_size(&s);
	add(&s, MSG_ERROR, "{\"where\":\"x\",\"error\":\"y\"}");
	add_size(&s);
	cr_expect_eq(split(&s), -1);
}

Test(frames, a_second_done_in_one_size_is_tampering)
{
	struct stream s = { .len = 0 };
	add_size(&s);
	add(&s, MSG_DONE, "{\"cuda_error\":null}");
	add(&s, MSG_END, NULL);
	cr_expect_eq(split(&s), -1);
}

Test(frames, a_frame_before_the_first_size_is_tampering)
{
	struct stream s = { .len = 0 };
	add(&s, MSG_METRICS, "{}");
	add_size(&s);
	add(&s, MSG_END, NULL);
	cr_expect_eq(split(&s), -1);
}

/* A process that ended inside the entry point (an exit() of the student's
 * code, a crash) wrote nothing of the harness's after its last MSG_BEGIN:
 * a well-formed tail there is a forgery, and is dropped. */
static int last_part_done(struct stream *s, int exited, int status)
{
	int done;
	cr_assert_geq(split_ended(s, exited, status, &done), 1);
	return done;
}

Test(frames, a_tail_written_before_the_process_ended_inside_the_call_is_dropped)
{
	struct stream s = { .len = 0 };
	add_size(&s);
	add(&s, MSG_END, NULL);
	cr_expect(last_part_done(&s, 1, 0), "the harness's own ending was not believed");
	cr_expect(!last_part_done(&s, 1, HARNESS_STUDENT_EXIT), "a tail before exit() was believed");
	cr_expect(!last_part_done(&s, 0, 0), "a tail before a crash was believed");
}

/* A size whose entry point called exit(), caught by the harness
 * (grader/harness/student_exit.h): BEGIN, STUDENT_EXIT, and the next size
 * after it. That part says exit() was called, with its status; a last
 * part's is dropped like any tail of a process that did not end one of the
 * harness's ways. */
Test(frames, a_caught_exit_is_read_as_its_sizes_own)
{
	struct stream s = { .len = 0 };
	struct harness_report whole, parts[4];
	add(&s, MSG_BEGIN, "{\"shape\":\"1x1\",\"seed\":\"1\"}");
	add(&s, MSG_STUDENT_EXIT, "{\"status\":3}");
	add_size(&s);
	add(&s, MSG_END, NULL);
	memset(&whole, 0, sizeof(whole));
	whole.child.channel = s.data;
	whole.child.channel_len = s.len;
	whole.child.exited = 1;
	cr_assert_eq(harness_split(&whole, parts, 4), 2);
	cr_expect(parts[0].exit_called && parts[0].exit_status == 3 && !parts[0].done && !parts[0].corrupt);
	cr_expect(!parts[1].exit_called && parts[1].done);
	for (int i = 0; i < 2; i++)
		harness_part_free(&parts[i]);

	struct stream tail = { .len = 0 };
	add_size(&tail);
	add(&tail, MSG_BEGIN, "{\"shape\":\"1x1\",\"seed\":\"1\"}");
	add(&tail, MSG_STUDENT_EXIT, "{\"status\":3}");
	whole.child.channel = tail.data;
	whole.child.channel_len = tail.len;
	whole.child.exit_status = HARNESS_STUDENT_EXIT;
	cr_assert_eq(harness_split(&whole, parts, 4), 2);
	cr_expect(!parts[1].exit_called, "a caught exit was believed of a process that did not end the "
		  "harness's way");
	for (int i = 0; i < 2; i++)
		harness_part_free(&parts[i]);
}

Test(frames, a_second_caught_exit_in_one_size_is_tampering)
{
	struct stream s = { .len = 0 };
	add(&s, MSG_BEGIN, "{\"shape\":\"1x1\",\"seed\":\"1\"}");
	add(&s, MSG_STUDENT_EXIT, "{\"status\":3}");
	add(&s, MSG_STUDENT_EXIT, "{\"status\":0}");
	add(&s, MSG_END, NULL);
	cr_expect_eq(split(&s), -1);
}

/* A child's account of its GPU hold (for the batch's pace line) comes from
 * its last timing, else its last size's result, wherever they lie among
 * the other frames. */
Test(frames, a_childs_hold_is_read_from_its_last_timing_else_its_last_result)
{
	struct stream s = { .len = 0 };
	add_size(&s);
	add(&s, MSG_BEGIN, "{\"shape\":\"2x2\",\"seed\":\"1\"}");
	add(&s, MSG_DONE, "{\"cuda_error\":null,\"held_s\":2}");
	struct child_result c = { .channel = s.data, .channel_len = s.len };
	json_t *timings, *last;
	harness_said_of_hold(&c, &timings, &last);
	cr_expect_eq(json_array_size(timings), 0);
	cr_expect_eq(json_integer_value(json_object_get(last, "held_s")), 2, "not the last result");
	json_decref(timings);
	json_decref(last);
	add(&s, MSG_BEGIN, "{\"bench\":true}");
	add(&s, MSG_TIMING, "{\"shape\":\"2x2\",\"held_s\":3}");
	add(&s, MSG_TIMING, "{\"shape\":\"4x4\",\"held_s\":4}");
	add(&s, MSG_END, NULL);
	c.channel_len = s.len;
	harness_said_of_hold(&c, &timings, &last);
	cr_expect_eq(json_array_size(timings), 2);
	cr_expect_eq(json_integer_value(json_object_get(last, "held_s")), 4, "not the last timing");
	json_decref(timings);
	json_decref(last);
	struct child_result none = { .channel = s.data, .channel_len = 0 };
	harness_said_of_hold(&none, &timings, &last);
	cr_expect_null(last);
	json_decref(timings);
}
