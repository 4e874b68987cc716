/* Running the harness (see harness_run.h). */
#include "steps/harness_run.h"

#include <stdio.h>
#include <string.h>

#include "channel.h"

static json_t *parse_json(const unsigned char *p, uint64_t len)
{
	return json_loadb((const char *)p, (size_t)len, 0, NULL);
}

/* Walks the frames of data[0, len). A second frame of a kind that comes
 * once, or JSON that does not parse, counts as corruption like a broken
 * header. */
static void read_frames(struct harness_report *rep, const unsigned char *data, size_t len_all)
{
	struct channel_reader r = { data, len_all, 0 };
	uint32_t type;
	const unsigned char *p;
	uint64_t len;
	int rc;
	rep->timings = json_array();
	while ((rc = channel_next(&r, &type, &p, &len)) == 1) {
		json_t *j = NULL;
		if (type != MSG_OUTPUT && type != MSG_END) {
			j = parse_json(p, len);
			if (!j) {
				rep->corrupt = 1;
				return;
			}
		}
		switch (type) {
		case MSG_BEGIN: rep->began = 1; json_decref(j); break;
		case MSG_DEVICE: json_decref(j); break;
		case MSG_END: rep->ended = 1; break;
		case MSG_DONE: if (rep->done) rep->corrupt = 1; json_decref(rep->done); rep->done = j; break;
		case MSG_ERROR: json_decref(rep->error); rep->error = j; break;
		case MSG_METRICS: json_decref(rep->metrics); rep->metrics = j; break;
		case MSG_TIMING: json_array_append_new(rep->timings, j); break;
		case MSG_OUTPUT:
			rep->outputs++;
			rep->output = (const uint32_t *)p;
			rep->output_words = (size_t)(len / 4);
			if (len % 4)
				rep->corrupt = 1;
			break;
		}
	}
	if (rc < 0)
		rep->corrupt = 1;
}

int harness_run(char *const argv[], const struct rubric *r, double wall_s, size_t channel_bytes,
		int isolate, const char *work_dir, struct harness_report *rep, char *err, size_t errlen)
{
	memset(rep, 0, sizeof(*rep));
	struct sandbox_limits lim = {
		.wall_s = wall_s,
		.cpu_s = r->cpu_time_s,
		.output_cap = r->output_limit_bytes,
		.file_cap = channel_bytes + (1 << 20),
		.with_channel = 1,
		.cwd = work_dir,
		.writable_dir = work_dir,
		.isolate = isolate,
	};
	if (sandbox_run(argv, &lim, &rep->child, err, errlen) < 0)
		return -1;
	read_frames(rep, rep->child.channel, rep->child.channel_len);
	return 0;
}

int harness_split(const struct harness_report *whole, struct harness_report *parts, int max)
{
	/* whole->corrupt is not asked: several sizes send several MSG_DONE,
	 * which a one-size report counts as corruption. Each part is checked. */
	size_t start[HARNESS_MAX_PARTS + 1];
	int n = 0, rc;
	struct channel_reader r = { whole->child.channel, whole->child.channel_len, 0 };
	uint32_t type;
	const unsigned char *p;
	uint64_t len;
	size_t at = 0;
	while ((rc = channel_next(&r, &type, &p, &len)) == 1) {
		if (type == MSG_BEGIN) {
			if (n == max || n == HARNESS_MAX_PARTS)
				return -1;	/* more sizes than were asked for */
			start[n++] = at;
		}
		at = r.pos;
	}
	if (rc < 0)
		return -1;	/* not well-formed frames */
	start[n] = whole->child.channel_len;
	for (int i = 0; i < n; i++) {
		memset(&parts[i], 0, sizeof(parts[i]));
		parts[i].child = whole->child;	/* the fate of the process, shared */
		read_frames(&parts[i], whole->child.channel + start[i], start[i + 1] - start[i]);
	}
	return n;
}

void harness_part_free(struct harness_report *part)
{
	json_decref(part->done);
	json_decref(part->error);
	json_decref(part->metrics);
	json_decref(part->timings);
	memset(part, 0, sizeof(*part));
}

void harness_report_free(struct harness_report *rep)
{
	struct child_result child = rep->child;
	harness_part_free(rep);
	child_result_free(&child);
}

static void append_output(const struct harness_report *rep, char *buf, size_t len)
{
	const char *tail = child_output_tail(&rep->child, 8);
	size_t at = strlen(buf);
	if (*tail && at < len)
		snprintf(buf + at, len - at, "\nYour program printed (last lines):\n%s", tail);
	at = strlen(buf);
	if (rep->child.output_dropped && at < len)
		snprintf(buf + at, len - at, "\n(%zu more bytes of output were dropped)",
			 rep->child.output_dropped);
}

void harness_explain_abort(const struct harness_report *rep, const char *entry, const char *where,
			   char *buf, size_t len)
{
	char fate[128];
	const struct child_result *c = &rep->child;
	if (rep->corrupt) {
		snprintf(buf, len, "%s: the grader's report channel (file descriptor 3) holds data that is "
			 "not the harness's: something in the process wrote to it, so nothing it says is "
			 "believed", where);
	} else if (c->timed_out) {
		snprintf(buf, len, "%s: %s() did not finish in time and was stopped (an endless loop, or a "
			 "kernel waiting for something that never happens?)", where, entry);
	} else if (c->signaled) {
		snprintf(buf, len, "%s: the program %s while running %s()", where,
			 child_fate(c, fate, sizeof(fate)), entry);
	} else if (rep->error && !rep->began) {
		snprintf(buf, len, "%s: the harness failed before calling %s(): %s: %s", where, entry,
			 json_string_value(json_object_get(rep->error, "where")) ?: "?",
			 json_string_value(json_object_get(rep->error, "error")) ?: "?");
	} else if (rep->error) {
		snprintf(buf, len, "%s: after %s() returned: %s: %s", where, entry,
			 json_string_value(json_object_get(rep->error, "where")) ?: "?",
			 json_string_value(json_object_get(rep->error, "error")) ?: "?");
	} else if (rep->began) {
		snprintf(buf, len, "%s: the process ended (%s) inside %s(): the entry point must return "
			 "to its caller, not call exit()", where, child_fate(c, fate, sizeof(fate)), entry);
	} else {
		snprintf(buf, len, "%s: the program %s before %s() was called", where,
			 child_fate(c, fate, sizeof(fate)), entry);
	}
	append_output(rep, buf, len);
}
