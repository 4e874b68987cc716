/*
 * How a run of the harness that sent no verdict of its own ended, and what
 * it printed (the last five functions of harness_door.h): its report read
 * as a failure, and that failure in a sentence.
 */
#include "steps/harness_door.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "harness_report.h"
#include "steps/grade.h"

/* The program's last lines; without the emulator's own "cuemu: " line when
 * the message already says it (stopped). */
static void append_output(const struct harness_report *rep, int stopped, char *buf, size_t len);

void harness_append_printed(const struct harness_report *rep, char *buf, size_t len)
{
	int empty = buf[0] == '\0';
	append_output(rep, 0, buf, len);
	if (empty && buf[0] == '\n')	/* alone in the message: no blank line first */
		memmove(buf, buf + 1, strlen(buf));
}

static void append_output(const struct harness_report *rep, int stopped, char *buf, size_t len)
{
	char tail[4096] = "";
	const char *line = child_output_tail(&rep->child, 8);
	while (*line) {
		size_t n = strcspn(line, "\n"), at = strlen(tail);
		if (!(stopped && strncmp(line, "cuemu: ", 7) == 0) && at < sizeof(tail))
			snprintf(tail + at, sizeof(tail) - at, "%.*s\n", (int)n, line);
		line += n + (line[n] == '\n');
	}
	size_t at = strlen(buf);
	if (*tail && at < len)
		snprintf(buf + at, len - at, "\nYour program printed (last lines):\n%s", tail);
	at = strlen(buf);
	if (rep->child.output_dropped && at < len)
		snprintf(buf + at, len - at, "\n(%zu more bytes of output were dropped)",
			 rep->child.output_dropped);
}

/* The emulator's stop (MSG_STOPPED) of this run, with its kind, or NULL. */
static const char *stop_kind(const struct harness_report *rep)
{
	return rep->corrupt || rep->done ? NULL : json_string_value(json_object_get(rep->stopped, "kind"));
}

/* The emulator's stops that are a time limit: a kernel's (its watchdog),
 * or a size's whole run in CPU time (grader/harness/predict.c). */
static int stop_is_time_limit(const char *kind)
{
	return kind && (strcmp(kind, "kernel_timeout") == 0 || strcmp(kind, "call_timeout") == 0);
}

int harness_hung(const struct harness_report *rep)
{
	return rep->child.timed_out || stop_is_time_limit(stop_kind(rep));
}

void harness_abort_failure(const struct harness_report *rep, struct failure *f)
{
	const struct child_result *c = &rep->child;
	const char *stop = stop_kind(rep);
	memset(f, 0, sizeof(*f));
	/* The process went on past this size's exit(): its fate, a later size's. */
	if (rep->exit_called && !rep->corrupt) {
		f->kind = FAILURE_EXIT_INSIDE_CALL;
		f->exit_caught = 1;
		f->exit_status = rep->exit_status;
		return;
	}
	if (stop && json_is_string(json_object_get(rep->stopped, "message")))
		f->kind = stop_is_time_limit(stop) ? FAILURE_TIME_LIMIT : FAILURE_EMULATOR_STOPPED;
	else if (rep->corrupt)
		f->kind = FAILURE_CHANNEL_TAMPERED;
	else if (c->timed_out)
		f->kind = FAILURE_TIME_LIMIT;
	else if (c->signaled && c->out_of_memory)
		f->kind = FAILURE_OUT_OF_MEMORY;
	else if (c->signaled)
		f->kind = FAILURE_CRASH;
	else if (rep->error)
		f->kind = rep->began ? FAILURE_AFTER_CALL : FAILURE_BEFORE_CALL;
	else
		f->kind = rep->began ? FAILURE_EXIT_INSIDE_CALL : FAILURE_DIED_BEFORE_CALL;
	if (c->signaled)
		f->signal = c->signal;
}

void harness_explain_abort(const struct harness_report *rep, const char *entry, const char *where,
			   char *buf, size_t len)
{
	char fate[128];
	struct failure f;
	const struct child_result *c = &rep->child;
	const char *stop_text = json_string_value(json_object_get(rep->stopped, "message"));
	const char *error_where = json_string_value(json_object_get(rep->error, "where"));
	const char *error_text = json_string_value(json_object_get(rep->error, "error"));
	harness_abort_failure(rep, &f);
	int stopped = stop_kind(rep) && stop_text;	/* the emulator's words say it */
	switch (f.kind) {
	case FAILURE_TIME_LIMIT:
		if (stopped)
			snprintf(buf, len, "%s: %s() did not finish in time: the emulator stopped it: %s",
				 where, entry, stop_text);
		else
			snprintf(buf, len, "%s: %s() did not finish in time and was stopped (an endless "
				 "loop, or a kernel waiting for something that never happens?)", where, entry);
		break;
	case FAILURE_EMULATOR_STOPPED:
		snprintf(buf, len, "%s: the emulator stopped the program while running %s(): %s", where,
			 entry, stop_text);
		break;
	case FAILURE_CHANNEL_TAMPERED:
		snprintf(buf, len, "%s: the grader's report channel (file descriptor 3) was tampered "
			 "with: it holds data that is not the harness's (a frame out of order, of a kind its "
			 "run never sends, or after the harness's last), so nothing it says is believed", where);
		break;
	case FAILURE_CRASH:
	case FAILURE_OUT_OF_MEMORY:
		/* The kernel does not say why: both usual causes are named. */
		snprintf(buf, len, "%s: the program %s while running %s()%s", where,
			 child_fate(c, fate, sizeof(fate)), entry,
			 c->signal == SIGSEGV ? " (a bad pointer, or a stack overflow: deep recursion or a "
						"large local array?)" : "");
		break;
	case FAILURE_BEFORE_CALL:
		snprintf(buf, len, "%s: the harness failed before calling %s(): %s: %s", where, entry,
			 error_where ?: "?", error_text ?: "?");
		break;
	case FAILURE_AFTER_CALL:
		snprintf(buf, len, "%s: after %s() returned: %s: %s", where, entry, error_where ?: "?",
			 error_text ?: "?");
		break;
	case FAILURE_EXIT_INSIDE_CALL:
		if (f.exit_caught) {
			snprintf(buf, len, "%s: your code called exit(%d) inside %s(): the entry point must "
				 "return to its caller, not call exit()", where, f.exit_status, entry);
			break;
		}
		if (c->exited && c->exit_status == HARNESS_STUDENT_EXIT)
			snprintf(fate, sizeof(fate), "your code called exit()");
		else
			child_fate(c, fate, sizeof(fate));
		snprintf(buf, len, "%s: the process ended (%s) inside %s(): the entry point must return "
			 "to its caller, not call exit()", where, fate, entry);
		break;
	default:
		snprintf(buf, len, "%s: the program %s before %s() was called", where,
			 child_fate(c, fate, sizeof(fate)), entry);
		break;
	}
	append_output(rep, stopped, buf, len);
}
