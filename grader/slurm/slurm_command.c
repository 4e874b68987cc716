/*
 * Slurm's commands, run by the kit's process runner (sandbox.c) as the
 * grader's own user, argv in hand: what a student named their folder never
 * reaches a shell. Where the cluster keeps no accounting database sacct
 * answers "accounting storage is disabled": scontrol still knows a job for
 * MinJobAge seconds after it ended.
 */
#include "slurm/slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/kit_paths.h"
#include "sys/sandbox.h"

int slurm_find(const char *name, char *path, size_t pathlen, char *err, size_t len)
{
	if (find_program(name, path, pathlen))
		return 0;
	snprintf(err, len, "%s is not on PATH: --slurm needs Slurm's commands (run it on a login "
		 "node of the cluster)", name);
	return -1;
}

int slurm_command(char *const argv[], double wall_s, char **out, char *err, size_t len)
{
	char path[4096];
	if (out)
		*out = NULL;
	if (slurm_find(argv[0], path, sizeof(path), err, len) < 0)
		return -1;
	struct sandbox_limits lim = { .wall_s = wall_s, .output_cap = 1 << 20 };
	struct child_result res;
	char **args = (char **)argv;
	const char *first = args[0];
	args[0] = path;
	int rc = sandbox_run(args, &lim, &res, err, len);
	args[0] = (char *)first;
	if (rc < 0)
		return -1;
	if (!res.exited) {
		char fate[128];
		snprintf(err, len, "%s %s", first, child_fate(&res, fate, sizeof(fate)));
		child_result_free(&res);
		return -1;
	}
	if (out) {
		*out = res.output;
		res.output = NULL;
	}
	rc = res.exit_status;
	child_result_free(&res);
	return rc;
}

int slurm_queue(const char *job, struct slurm_queue *q, char *err, size_t len)
{
	char *out;
	/* -r: one line per array task, pending ones too; %T: the state's name. */
	char *argv[] = { "squeue", "-h", "-r", "-j", (char *)job, "-o", "%T", NULL };
	memset(q, 0, sizeof(*q));
	int rc = slurm_command(argv, 60, &out, err, len);
	if (rc != 0) {
		/* squeue says "Invalid job id" for a job that has left the queue. */
		int gone = out && strstr(out, "Invalid job id");
		if (rc > 0 && !gone)
			snprintf(err, len, "squeue: %.400s", out ? out : "failed");
		free(out);
		return gone ? 0 : -1;
	}
	char *save;
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, "PENDING") == 0)
			q->pending++;
		else if (strcmp(line, "RUNNING") == 0 || strcmp(line, "COMPLETING") == 0 ||
			 strcmp(line, "CONFIGURING") == 0)
			q->running++;
		else if (line[0])
			q->other++;
	}
	free(out);
	return 0;
}

/* "123_4" (sacct) -> 4, for our job; -1 for another's line or a step's. */
static int task_of(const char *id, const char *job)
{
	size_t n = strlen(job);
	if (strncmp(id, job, n) != 0 || id[n] != '_')
		return -1;
	char *end;
	long t = strtol(id + n + 1, &end, 10);
	return end != id + n + 1 && *end == '\0' ? (int)t : -1;
}

static void set_state(char (*states)[32], int n_tasks, int task, const char *state, size_t len)
{
	if (task >= 0 && task < n_tasks)
		snprintf(states[task], 32, "%.*s", (int)(len < 31 ? len : 31), state);
}

/* sacct -X -P: "123_4|CANCELLED by 0". */
static int from_sacct(const char *job, int n_tasks, char (*states)[32])
{
	char *out, err[256];
	char *argv[] = { "sacct", "-n", "-X", "-P", "-j", (char *)job, "-o", "JobID,State", NULL };
	if (slurm_command(argv, 60, &out, err, sizeof(err)) != 0 || !out) {
		free(out);
		return -1;
	}
	char *save;
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *bar = strchr(line, '|');
		if (!bar)
			continue;
		*bar = '\0';
		set_state(states, n_tasks, task_of(line, job), bar + 1, strcspn(bar + 1, " "));
	}
	free(out);
	return 0;
}

/* scontrol -o: one line per task, "... ArrayTaskId=4 ... JobState=CANCELLED ...". */
static int from_scontrol(const char *job, int n_tasks, char (*states)[32])
{
	char *out, err[256];
	char *argv[] = { "scontrol", "-o", "show", "job", (char *)job, NULL };
	if (slurm_command(argv, 60, &out, err, sizeof(err)) != 0 || !out) {
		free(out);
		return -1;
	}
	char *save;
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *task = strstr(line, " ArrayTaskId=");
		const char *state = strstr(line, " JobState=");
		if (task && state) {
			state += strlen(" JobState=");
			set_state(states, n_tasks, atoi(task + strlen(" ArrayTaskId=")), state,
				  strcspn(state, " "));
		}
	}
	free(out);
	return 0;
}

const char *slurm_outcomes(const char *job, int n_tasks, char (*states)[32])
{
	for (int i = 0; i < n_tasks; i++)
		states[i][0] = '\0';
	if (from_sacct(job, n_tasks, states) == 0)
		for (int i = 0; i < n_tasks; i++)
			if (states[i][0])
				return "sacct";
	if (from_scontrol(job, n_tasks, states) == 0)
		for (int i = 0; i < n_tasks; i++)
			if (states[i][0])
				return "scontrol";
	return NULL;
}
