/* Reading a harness's report channel: its frames, in order (see harness_frames.h). */
#include "steps/harness_frames.h"

#include <string.h>

#include "channel.h"

static json_t *parse_json(const unsigned char *p, uint64_t len)
{
	return json_loadb((const char *)p, (size_t)len, 0, NULL);
}

/* Whether a frame of this type may follow the frames seen so far (a bit
 * per type in *seen): nothing follows the last frame (MSG_END, MSG_ERROR),
 * and only MSG_TIMING comes more than once in one report. Whatever the
 * student's code adds to the channel (a destructor after the harness's
 * end, a stream pointed at it) breaks one of these or the framing. */
static int frame_in_order(unsigned *seen, uint32_t type)
{
	unsigned bit = 1u << type;
	if (*seen & ((1u << MSG_END) | (1u << MSG_ERROR)))
		return 0;
	if (type != MSG_TIMING && (*seen & bit))
		return 0;
	*seen |= bit;
	return 1;
}

/* Walks the frames of data[0, len_all). A frame out of order (above), or
 * JSON that does not parse, counts as corruption like a broken header:
 * the report was tampered with, and nothing in it is believed. */
void harness_read_frames(struct harness_report *rep, const unsigned char *data, size_t len_all)
{
	struct channel_reader r = { data, len_all, 0 };
	uint32_t type;
	const unsigned char *p;
	uint64_t len;
	unsigned seen = 0;
	int rc;
	rep->timings = json_array();
	while ((rc = channel_next(&r, &type, &p, &len)) == 1) {
		json_t *j = NULL;
		if (!frame_in_order(&seen, type)) {
			rep->corrupt = 1;
			return;
		}
		rep->kinds |= 1u << type;
		if (type != MSG_OUTPUT && type != MSG_OUTPUT_DIGEST && type != MSG_END) {
			j = parse_json(p, len);
			if (!j) {
				rep->corrupt = 1;
				return;
			}
		}
		switch (type) {
		case MSG_BEGIN: rep->began = 1; json_decref(j); break;
		case MSG_DEVICE: json_decref(rep->device); rep->device = j; break;
		case MSG_END: rep->ended = 1; break;
		case MSG_DONE: json_decref(rep->done); rep->done = j; break;
		case MSG_ERROR: json_decref(rep->error); rep->error = j; break;
		case MSG_METRICS: json_decref(rep->metrics); rep->metrics = j; break;
		case MSG_STOPPED: json_decref(rep->stopped); rep->stopped = j; break;
		case MSG_TIMING: json_array_append_new(rep->timings, j); break;
		case MSG_STUDENT_EXIT:
			rep->exit_called = 1;
			rep->exit_status = (int)json_integer_value(json_object_get(j, "status"));
			if (!json_is_integer(json_object_get(j, "status")))
				rep->corrupt = 1;
			json_decref(j);
			break;
		case MSG_OUTPUT:
			rep->outputs++;
			rep->output = (const uint32_t *)p;
			rep->output_words = (size_t)(len / 4);
			if (len % 4)
				rep->corrupt = 1;
			break;
		case MSG_OUTPUT_DIGEST:
			rep->outputs++;
			rep->digest = (const struct output_digest *)p;
			if (len != sizeof(struct output_digest))
				rep->corrupt = 1;
			break;
		}
	}
	if (rc < 0)
		rep->corrupt = 1;
}

/*
 * A process that did not end one of the harness's ways (status 0 or 1:
 * harness_report.h) ended while student code ran, or was stopped: the
 * frames after its last MSG_BEGIN were not the harness's (a forged tail
 * written before an exit() or a crash), and it did not end. Drops them.
 */
void harness_drop_unended(struct harness_report *rep)
{
	const struct child_result *c = &rep->child;
	if (c->exited && (c->exit_status == 0 || c->exit_status == 1))
		return;
	rep->ended = 0;
	if (!rep->began)
		return;
	json_decref(rep->done);
	json_decref(rep->error);
	json_decref(rep->metrics);
	rep->done = rep->error = rep->metrics = NULL;
	rep->exit_called = 0;
	rep->output = NULL;
	rep->output_words = 0;
	rep->digest = NULL;
	rep->outputs = 0;
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
	unsigned seen = 0;
	while ((rc = channel_next(&r, &type, &p, &len)) == 1) {
		if (type == MSG_BEGIN) {
			if (n == max || n == HARNESS_MAX_PARTS)
				return -1;	/* more sizes than were asked for */
			start[n++] = at;
			seen &= (1u << MSG_END) | (1u << MSG_ERROR);	/* a new size's frames */
		} else if (n == 0) {
			return -1;	/* the harness sends nothing before the first size */
		}
		if (!frame_in_order(&seen, type))
			return -1;
		at = r.pos;
	}
	if (rc < 0)
		return -1;	/* not well-formed frames */
	start[n] = whole->child.channel_len;
	for (int i = 0; i < n; i++) {
		memset(&parts[i], 0, sizeof(parts[i]));
		parts[i].child = whole->child;	/* the fate of the process, shared */
		harness_read_frames(&parts[i], whole->child.channel + start[i], start[i + 1] - start[i]);
	}
	if (n > 0)
		harness_drop_unended(&parts[n - 1]);	/* the size the process ended in */
	return n;
}

void harness_refuse_frames(struct harness_report *rep, unsigned may_send)
{
	if (rep->kinds & ~may_send)
		rep->corrupt = 1;
}

void harness_said_of_hold(const struct child_result *c, json_t **timings, json_t **last)
{
	struct channel_reader r = { c->channel, c->channel_len, 0 };
	uint32_t type;
	const unsigned char *p;
	uint64_t len;
	const unsigned char *done = NULL;	/* the last MSG_DONE, parsed only if needed */
	uint64_t done_len = 0;
	*timings = json_array();
	while (channel_next(&r, &type, &p, &len) == 1) {
		json_t *j = type == MSG_TIMING ? parse_json(p, len) : NULL;
		if (j)
			json_array_append_new(*timings, j);
		else if (type == MSG_DONE)
			done = p, done_len = len;
	}
	size_t n = json_array_size(*timings);
	*last = n ? json_incref(json_array_get(*timings, n - 1)) : done ? parse_json(done, done_len) : NULL;
}
