/* Compiling and linking a submission (see build.h). */
#include "steps/build.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/launch_log.h"
#include "steps/reference_cache.h"
#include "sys/cuda_toolkit.h"
#include "sys/kit_paths.h"
#include "sys/isolation.h"
#include "sys/sandbox.h"

/* A compiler's limits, enforced by the kernel: what a file can make it
 * use (#include "/dev/zero", a template bomb) is stopped here, and the
 * verdict says so. The memory cap holds each compiler process (RLIMIT_AS)
 * and, where there is a memory cgroup, the whole tree nvcc starts: well
 * above what a lab file needs (a tree's peak, page cache included, was
 * 250-370 MiB for nvcc and 240 MiB for the emulator's g++). */
#define BUILD_MEMORY_CAP ((size_t)2 << 30)
#define BUILD_FILE_CAP ((size_t)256 << 20)

/* The compiler's words, and a sentence first when it hit a limit (*why). */
static void tool_log(const struct child_result *res, const char *step, enum failure_kind *why,
		     char *log, size_t loglen)
{
	const char *out = res->output;
	int oom = strstr(out, "out of memory") || strstr(out, "memory exhausted") ||
		  strstr(out, "std::bad_alloc") || res->out_of_memory ||
		  (res->signaled && res->signal == SIGKILL);
	*why = oom ? FAILURE_BUILD_OUT_OF_MEMORY : FAILURE_BUILD;
	if (oom)
		snprintf(log, loglen, "%s ran out of memory: the build may use at most %zu MiB "
			 "(a huge #include or a template that never ends?)\n%s", step,
			 BUILD_MEMORY_CAP >> 20, out);
	else if (res->signaled && res->signal == SIGXFSZ)
		snprintf(log, loglen, "%s wrote a file over the %zu MiB limit\n%s", step,
			 BUILD_FILE_CAP >> 20, out);
	else
		snprintf(log, loglen, "%s", out);
}

/* Runs a compiler; its messages go to log, and in *why the kind of
 * failure when it fails. Returns its exit status, or -1. */
static int run_tool(char *const argv[], const struct isolation_policy *tools, double timeout_s,
		    const char *step, enum failure_kind *why, char *log, size_t loglen)
{
	struct sandbox_limits lim = { .wall_s = timeout_s, .output_cap = 64 * 1024, .isolation = tools,
				      .memory_cap = BUILD_MEMORY_CAP, .resident_cap = BUILD_MEMORY_CAP,
				      .file_cap = BUILD_FILE_CAP };
	struct child_result res;
	char err[256];
	if (sandbox_run(argv, &lim, &res, err, sizeof(err)) < 0) {
		snprintf(log, loglen, "%s: %s", step, err);
		return -1;
	}
	int status;
	if (res.timed_out) {
		snprintf(log, loglen, "%s took longer than %.0f s and was stopped\n%s", step, timeout_s,
			 res.output);
		*why = FAILURE_BUILD_TIME_OUT;
		status = 1;
	} else if (res.exited && res.exit_status == 127 && strstr(res.output, "cannot run")) {
		snprintf(log, loglen, "%s: %s", step, res.output);
		status = -1;
	} else {
		tool_log(&res, step, why, log, loglen);
		status = res.exited ? res.exit_status : 1;
	}
	child_result_free(&res);
	return status;
}

static const char *nvcc_path(void)
{
	static char path[1024];
	return *cuda_toolkit_path("bin/nvcc", path, sizeof(path)) ? path : "nvcc";
}

/* nvcc's flags for a submission: the compile's and the preprocessing's. */
#define NVCC_FLAGS(arch, include) "-O3", arch, "-lineinfo", "-std=c++17", include

static int compile(enum backend backend, const char *submission, const char *obj,
		   const struct device_info *dev, const struct isolation_policy *tools, double timeout_s,
		   enum failure_kind *why, char *log, size_t loglen)
{
	char arch[32], cc[1024], include[1100], common[1024];
	/* The kit's headers for labs (lab 4's occupancy.h), never the student's copy. */
	snprintf(include, sizeof(include), "-I%s", kit_path(common, sizeof(common), "common"));
	if (backend == BACKEND_CUDA) {
		snprintf(arch, sizeof(arch), "-arch=sm_%d%d", dev->major, dev->minor);
		char *argv[] = { (char *)nvcc_path(), NVCC_FLAGS(arch, include), "-c", (char *)submission,
				 "-o", (char *)obj, NULL };
		return run_tool(argv, tools, timeout_s, "nvcc", why, log, loglen);
	}
	kit_path(cc, sizeof(cc), "build/emu/cuemu-cc");
	char *argv[] = { cc, include, "-c", (char *)submission, "-o", (char *)obj, NULL };
	return run_tool(argv, tools, timeout_s, "cuemu-cc", why, log, loglen);
}

int build_preprocess_cuda(const char *submission, int host_pass, const char *out,
			  const struct device_info *dev, const struct isolation_policy *tools,
			  double timeout_s, char *log, size_t loglen)
{
	char arch[32], include[1100], common[1024];
	snprintf(include, sizeof(include), "-I%s", kit_path(common, sizeof(common), "common"));
	snprintf(arch, sizeof(arch), "-arch=sm_%d%d", dev->major, dev->minor);
	/* -E is nvcc's device pass; --cuda its host pass, after cudafe++. */
	char *argv[] = { (char *)nvcc_path(), NVCC_FLAGS(arch, include), host_pass ? "--cuda" : "-E",
			 (char *)submission, "-o", (char *)out, NULL };
	enum failure_kind why = FAILURE_NONE;
	int rc = run_tool(argv, tools, timeout_s, "nvcc's preprocessor", &why, log, loglen);
	return rc == 0 ? 0 : rc < 0 ? -1 : 1;
}

int build_compile_only(enum backend backend, const char *submission, const char *work_dir,
		       const struct device_info *dev, const struct isolation_policy *tools,
		       double timeout_s, char *log, size_t loglen)
{
	char obj[1024];
	enum failure_kind why;
	snprintf(obj, sizeof(obj), "%s/student-%s.o", work_dir, backend_name(backend));
	int rc = compile(backend, submission, obj, dev, tools, timeout_s, &why, log, loglen);
	return rc == 0 ? 0 : rc < 0 ? -1 : 1;
}

int build_program(enum backend backend, const char *submission, const char *exe,
		  const struct device_info *dev, const struct isolation_policy *tools, double timeout_s,
		  char *log, size_t loglen)
{
	char arch[32], cc[1024], include[1100], common[1024];
	enum failure_kind why = FAILURE_NONE;
	snprintf(include, sizeof(include), "-I%s", kit_path(common, sizeof(common), "common"));
	if (backend == BACKEND_CUDA) {
		snprintf(arch, sizeof(arch), "-arch=sm_%d%d", dev->major, dev->minor);
		char *argv[] = { (char *)nvcc_path(), NVCC_FLAGS(arch, include), (char *)submission, "-o",
				 (char *)exe, NULL };
		int rc = run_tool(argv, tools, timeout_s, "nvcc", &why, log, loglen);
		return rc == 0 ? 0 : rc < 0 ? -1 : 1;
	}
	kit_path(cc, sizeof(cc), "build/emu/cuemu-cc");
	char *argv[] = { cc, include, (char *)submission, "-o", (char *)exe, NULL };
	int rc = run_tool(argv, tools, timeout_s, "cuemu-cc", &why, log, loglen);
	return rc == 0 ? 0 : rc < 0 ? -1 : 1;
}

/* The lab's harness: the backend's harness_main.o, bench.o, gpu_share.o and output_send.o, student_exit.o, the lab's entry adapter,
 * the student's object and the kit library; on CUDA, the launch log, which
 * sees every kernel launch on its way to the runtime (launch_log.h), and the
 * kit's kernels, the input's fill (device_fill.cu) and the hash
 * (device_hash.cu). exit() is wrapped (student_exit.c's __wrap_exit):
 * nothing of the student's runs after it but the next size. */
static int link_harness(const struct lab *lab, enum backend backend, const char *obj,
			const char *exe, const struct isolation_policy *tools, double timeout_s,
			enum failure_kind *why, char *log, size_t loglen)
{
	char main_o[1024], entry_o[1024], libkit[1024], entry_rel[256], linker[1024], log_o[1024],
		wrap_o[1024], predict_o[1024], bench_o[1024], hash_o[1024], fill_o[1024], exit_o[1024],
		share_o[1024], send_o[1024];
	snprintf(entry_rel, sizeof(entry_rel), "build/harness/labs/%s_entry.o", lab->id);
	kit_path(entry_o, sizeof(entry_o), entry_rel);
	kit_path(libkit, sizeof(libkit), "build/libkit.a");
	kit_path(exit_o, sizeof(exit_o), "build/harness/harness/student_exit.o");
	if (backend == BACKEND_CUDA) {
		kit_path(main_o, sizeof(main_o), "build/harness/cuda/harness_main.o");
		kit_path(bench_o, sizeof(bench_o), "build/harness/cuda/bench.o");
		kit_path(share_o, sizeof(share_o), "build/harness/cuda/gpu_share.o");
		kit_path(send_o, sizeof(send_o), "build/harness/cuda/output_send.o");
		snprintf(linker, sizeof(linker), "%s", nvcc_path());
	} else {
		kit_path(main_o, sizeof(main_o), "build/harness/emu/harness_main.o");
		kit_path(bench_o, sizeof(bench_o), "build/harness/emu/bench.o");
		kit_path(share_o, sizeof(share_o), "build/harness/emu/gpu_share.o");
		kit_path(send_o, sizeof(send_o), "build/harness/emu/output_send.o");
		kit_path(linker, sizeof(linker), "build/emu/cuemu-cc");
	}
	kit_path(log_o, sizeof(log_o), "build/harness/cuda/launch_log.o");
	kit_path(wrap_o, sizeof(wrap_o), "build/harness/cuda/launch_wrap.o");
	kit_path(hash_o, sizeof(hash_o), "build/harness/cuda/device_hash.o");
	kit_path(fill_o, sizeof(fill_o), "build/harness/cuda/device_fill.o");
	kit_path(predict_o, sizeof(predict_o), "build/harness/emu/predict.o");
	/* The last three only on CUDA. */
	const char *need[] = { main_o, bench_o, share_o, send_o, exit_o, entry_o, libkit,
			       backend == BACKEND_CUDA ? log_o : predict_o, wrap_o, hash_o, fill_o };
	for (int i = 0; i < (backend == BACKEND_CUDA ? 11 : 8); i++)
		if (!file_exists(need[i])) {
			snprintf(log, loglen, "the kit is not built: %s is missing (run make)", need[i]);
			return -1;
		}
	if (backend == BACKEND_CUDA) {
		char *argv[] = { linker, "-o", (char *)exe, LAUNCH_LOG_WRAP_FLAGS, "-Xlinker", "--wrap=exit",
				 main_o, bench_o, share_o, send_o, exit_o, log_o, wrap_o, hash_o, fill_o, entry_o, (char *)obj, libkit,
				 NULL };
		return run_tool(argv, tools, timeout_s, "link", why, log, loglen);
	}
	char *argv[] = { linker, "-o", (char *)exe, "-Wl,--wrap=exit", main_o, bench_o, share_o, send_o, exit_o, predict_o,
			 entry_o, (char *)obj, libkit, NULL };
	return run_tool(argv, tools, timeout_s, "link", why, log, loglen);
}

/* A main() the student kept for testing (as most code from samples and
 * blogs has) would clash with the harness's: it is renamed in the object,
 * so the file builds as nvcc builds it, and is never called. A new file:
 * the sandbox shows the compiler's output to objcopy read-only. */
static int rename_student_main(const char *compiled, const char *obj, const struct isolation_policy *tools,
			       double timeout_s, enum failure_kind *why, char *log, size_t loglen)
{
	char *argv[] = { "objcopy", "--redefine-sym", "main=" STUDENT_MAIN_RENAMED, (char *)compiled,
			 (char *)obj, NULL };
	return run_tool(argv, tools, timeout_s, "objcopy", why, log, loglen);
}

/* Where a build into work_dir puts its files. */
static void result_paths(struct build_result *out, const char *work_dir, enum backend backend)
{
	snprintf(out->student_obj, sizeof(out->student_obj), "%s/student-%s.o", work_dir,
		 backend_name(backend));
	snprintf(out->harness, sizeof(out->harness), "%s/" HARNESS_NAME "%s", work_dir, backend_name(backend));
	out->backend = backend;
	out->failure = FAILURE_NONE;
}

int build_submission(const struct lab *lab, enum backend backend, const char *submission,
		     const char *work_dir, const struct device_info *dev,
		     const struct isolation_policy *tools, double timeout_s,
		     struct build_result *out, char *log, size_t loglen)
{
	result_paths(out, work_dir, backend);
	if (backend == BACKEND_EMU) {
		char cc[1024];
		if (!file_exists(kit_path(cc, sizeof(cc), "build/emu/cuemu-cc"))) {
			snprintf(log, loglen, "the emulator is not built: %s is missing (run make)", cc);
			return -1;
		}
	}
	char compiled[sizeof(out->student_obj) + 16];
	snprintf(compiled, sizeof(compiled), "%s.compiled", out->student_obj);
	int rc = compile(backend, submission, compiled, dev, tools, timeout_s, &out->failure, log, loglen);
	if (rc == 0)
		rc = rename_student_main(compiled, out->student_obj, tools, timeout_s, &out->failure, log,
					 loglen);
	if (rc == 0)
		rc = link_harness(lab, backend, out->student_obj, out->harness, tools, timeout_s,
				  &out->failure, log, loglen);
	if (rc <= 0)
		out->failure = FAILURE_NONE;
	return rc == 0 ? 0 : rc < 0 ? -1 : 1;
}

const char *reference_solution(const struct lab *lab, char *buf, size_t len)
{
	char rel[512];
	snprintf(rel, sizeof(rel), "solutions/%s/%s", lab->dir, lab->file);
	return file_exists(kit_path(buf, len, rel)) ? buf : NULL;
}

int build_reference(const struct lab *lab, const char *work_dir, const struct device_info *dev,
		    const struct isolation_policy *tools, double timeout_s, struct build_result *out,
		    char *log, size_t loglen)
{
	char solution[1024], kept[PATH_MAX];
	if (!reference_solution(lab, solution, sizeof(solution))) {
		snprintf(log, loglen, "%s: no reference solution", solution);
		return -1;
	}
	/* Its harness as kept by an earlier grade, where the kit is unchanged
	 * (reference_cache.h): nvcc's second or so saved. */
	reference_cache_path(lab, dev, solution, kept, sizeof(kept));
	result_paths(out, work_dir, BACKEND_CUDA);
	if (reference_cache_take(kept, out->harness) == 0)
		return 0;
	int rc = build_submission(lab, BACKEND_CUDA, solution, work_dir, dev, tools, timeout_s, out, log,
				  loglen);
	if (rc == 0)
		reference_cache_keep(out->harness, kept);
	return rc;
}
