/*
 * What only an emulator build of the harness has, in one place: its
 * verbs' entries for harness_main.c's table (the analysis, the
 * prediction's trace, the correctness step's sizes) and the emulator's controls the other verbs use. In
 * a CUDA build there are no such entries and the controls do nothing, so
 * that the table and the verbs read the same in both builds.
 */
#ifndef GRADER_HARNESS_EMULATOR_VERBS_H
#define GRADER_HARNESS_EMULATOR_VERBS_H

#include <limits.h>
#include <stddef.h>

/* One verb of the harness's command line: argv[1], with argc in
 * [min_argc, max_argc]. */
#define HARNESS_MAX_ARGC INT_MAX
struct harness_verb {
	const char *name;
	int min_argc, max_argc;
	void (*run)(int argc, char **argv);
};

#ifdef KIT_EMU
#include <cuemu.h>

void verb_analysis(int argc, char **argv);
void verb_predict(int argc, char **argv);
void verb_sizes(int argc, char **argv);	/* predict.c: the emulated correctness child */
#define EMULATOR_VERBS { "analysis", 5, 7, verb_analysis }, { "predict", 5, 5, verb_predict }, \
		       { "sizes", 7, HARNESS_MAX_ARGC, verb_sizes },

typedef void emulator_stop_hook(const char *kind, const char *kernel, const char *where,
				const char *message);
static inline void emulator_on_stop(emulator_stop_hook *hook)
{
	cuemu_set_stop_hook(hook);
}

/* The kit's own runs trace nothing; a kernel past timeout_s (0: the
 * emulator's default) is stopped. */
static inline void emulator_untraced(double timeout_s)
{
	cuemu_set_tracing(0);
	if (timeout_s > 0)
		cuemu_set_kernel_timeout(timeout_s);
}

static inline const char *emulator_last_fault(void)
{
	return cuemu_last_fault();
}

static inline int emulator_last_fault_bounds(const char **file, unsigned *line)
{
	return cuemu_last_fault_bounds(file, line);
}

static inline void emulator_device_sms(int sms)
{
	cuemu_set_device_sms(sms);
}
#else
#define EMULATOR_VERBS
typedef void emulator_stop_hook(const char *kind, const char *kernel, const char *where,
				const char *message);
static inline void emulator_on_stop(emulator_stop_hook *hook)
{
	(void)hook;
}

static inline void emulator_untraced(double timeout_s)
{
	(void)timeout_s;
}

static inline const char *emulator_last_fault(void)
{
	return NULL;
}

static inline int emulator_last_fault_bounds(const char **file, unsigned *line)
{
	(void)file;
	(void)line;
	return 0;
}

static inline void emulator_device_sms(int sms)
{
	(void)sms;
}
#endif

#endif
