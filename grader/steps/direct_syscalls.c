/* System call instructions in an object (see direct_syscalls.h). */
#include "steps/direct_syscalls.h"

#include <stdio.h>
#include <string.h>

#include "sys/sandbox.h"

/* Whether an instruction line of objdump's ("  12:\tint    $0x80") is a
 * system call. */
static int syscall_line(const char *line)
{
	const char *tab = strchr(line, '\t');
	if (!tab)
		return 0;
	tab++;
	size_t n = strcspn(tab, " \t\n");
	if ((n == 7 && strncmp(tab, "syscall", 7) == 0) || (n == 8 && strncmp(tab, "sysenter", 8) == 0))
		return 1;
	return n == 3 && strncmp(tab, "int", 3) == 0 && strstr(tab, "$0x80") != NULL;
}

int direct_syscall_find(const char *obj, const struct isolation_policy *tools, char *where, size_t len,
			char *err, size_t errlen)
{
	char *argv[] = { "objdump", "-d", "--no-show-raw-insn", (char *)obj, NULL };
	struct sandbox_limits lim = { .wall_s = 60, .output_cap = 64 << 20, .isolation = tools };
	struct child_result res;
	if (sandbox_run(argv, &lim, &res, err, errlen) < 0)
		return -1;
	if (!res.exited || res.exit_status || res.output_dropped || !res.output) {
		snprintf(err, errlen, "objdump could not read the object: %.300s", res.output ? res.output : "");
		child_result_free(&res);
		return -1;
	}
	/* "0000000000000000 <name>:" starts each function's listing. */
	char function[256] = "?", *save;
	int found = 0;
	for (char *line = strtok_r(res.output, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		const char *open = strchr(line, '<');
		if (line[0] != ' ' && open && strstr(line, ">:"))
			snprintf(function, sizeof(function), "%.*s", (int)(strstr(line, ">:") - open - 1), open + 1);
		else if (syscall_line(line))
			found = 1;
	}
	if (found)
		snprintf(where, len, "%s", function);
	child_result_free(&res);
	return found;
}
