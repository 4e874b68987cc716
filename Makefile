# The CUDA lab kit.
#
#   make            build the grader, the harness and the emulator
#   make labN       build labN for this machine (GPU if present, else emulator)
#   make occupancy-tables   rewrite lab 4's stored tables from cuda_occupancy.h
#   make test       install what is missing, build, run every test
#   make -jN test-build   build what make test runs, on N cores
#   make solutions  grade every tuned reference and answer key (solutions/README.md)
#   make student-kit   the copy students get: no solutions, no tests, no history
#   make clean
#
# Build products go under build/; ./grade is a link to build/grade.

BUILD      := build
CC         := gcc
CXX        := g++
CSTD       := -std=c11 -D_GNU_SOURCE
WARN       := -Wall -Wextra -Werror
CFLAGS     := $(CSTD) $(WARN) -O2 -g
DEPFLAGS    = -MMD -MP

# Unpacked Debian packages, for a machine that reaches no registry (mk/deps.sh).
DEPS_PREFIX ?=
ifneq ($(DEPS_PREFIX),)
DEPS_LIBDIR := $(abspath $(DEPS_PREFIX))/usr/lib/x86_64-linux-gnu
CPPFLAGS    += -I$(abspath $(DEPS_PREFIX))/usr/include
# DT_RPATH, not RUNPATH: Criterion's own libraries (libgit2, nanomsg) are found
# there too, not only the ones the executable names.
LDFLAGS     += -L$(DEPS_LIBDIR) -Wl,-rpath,$(DEPS_LIBDIR) -Wl,--disable-new-dtags
export PATH := $(abspath $(DEPS_PREFIX))/usr/bin:$(PATH)
export DEPS_PREFIX
endif

# The CUDA toolkit: nvcc on PATH, else CUDA_HOME, else /usr/local/cuda.
NVCC := $(shell command -v nvcc 2>/dev/null)
ifeq ($(NVCC),)
CUDA_HOME ?= /usr/local/cuda
NVCC := $(wildcard $(CUDA_HOME)/bin/nvcc)
else
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
endif
CUDA_INC := $(CUDA_HOME)/include

# The GPU backend needs both nvcc and the toolkit's headers; without either,
# every CUDA-only part is left out and the emulator grades (said once, by the
# harness target below).
ifeq ($(NVCC),)
CUDA_SKIP := no CUDA toolkit: nvcc is not on PATH, nor in CUDA_HOME=$(CUDA_HOME)
else ifeq ($(wildcard $(CUDA_INC)/cuda_runtime_api.h),)
CUDA_SKIP := the CUDA toolkit is incomplete: $(NVCC) is there, but not $(CUDA_INC)/cuda_runtime_api.h
endif

LIBS := -ljansson -linih -lm -pthread

# The labs: one folder labs/labN-NAME/ each, as the grader's lab table
# (grader/labs/lab_table.c) names them; tests/test_labs.c keeps the two equal.
LABS := $(sort $(foreach d,$(wildcard labs/lab*-*/),$(firstword $(subst -, ,$(notdir $(d:/=))))))

.PHONY: all deps $(LABS) occupancy-tables test test-build unit-tests emu-tests solutions student-kit clean test-slurm
all: deps grade harness emu

# --- dependencies -----------------------------------------------------------
# Stamps, so that each check runs once; delete build/ to check again. Grading
# needs the compiler, make, jansson and inih; the tests add Criterion.
deps: $(BUILD)/.deps-ok
$(BUILD)/.deps-ok: mk/deps.sh
	@mkdir -p $(BUILD)
	@CC="$(CC)" sh mk/deps.sh grade
	@touch $@
$(BUILD)/.deps-test-ok: mk/deps.sh | $(BUILD)/.deps-ok
	@CC="$(CC)" sh mk/deps.sh test
	@touch $@

# --- common and lab descriptions (grader and harness both link these) --------
COMMON_SRC := $(wildcard common/*.c)
LABDESC_SRC := $(filter-out %_entry.c,$(wildcard grader/labs/*.c))
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o) $(LABDESC_SRC:%.c=$(BUILD)/%.o)

$(BUILD)/common/%.o $(BUILD)/grader/%.o: CPPFLAGS += -Icommon -Igrader
$(BUILD)/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# --- the grader ---------------------------------------------------------------
# Every .c under grader/ but the child program (harness/), the lab
# descriptions (labs/, linked into both sides through COMMON_OBJ) and main.
GRADER_MAIN := grader/cli/main.c
GRADER_SRC := $(filter-out $(GRADER_MAIN) grader/harness/% grader/labs/%,$(shell find grader -name '*.c'))
GRADER_OBJ := $(GRADER_SRC:%.c=$(BUILD)/%.o)

grade: $(BUILD)/grade
	@ln -sfn $(BUILD)/grade grade

$(BUILD)/grade: $(GRADER_MAIN:%.c=$(BUILD)/%.o) $(GRADER_OBJ) $(COMMON_OBJ)
	$(CC) $(LDFLAGS) $^ $(LIBS) -o $@

# ./grade --version names the commit it was built from (mk/kit_commit.sh:
# the kit's own clone, "-modified" when a kit file, not a student's lab file,
# differs): build/kit-commit is rewritten only when that changes, so that
# version.o is rebuilt only then.
$(BUILD)/kit-commit: FORCE | $(BUILD)/.deps-ok
	@c=$$(sh mk/kit_commit.sh); [ "$$(cat $@ 2>/dev/null)" = "$$c" ] || echo "$$c" > $@
$(BUILD)/grader/cli/version.o: grader/cli/version.c $(BUILD)/kit-commit | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -DKIT_COMMIT="\"$$(tr -cd '0-9a-z-' < $(BUILD)/kit-commit)\"" -c $< -o $@
.PHONY: FORCE

# --- the harness: compiled once per backend, linked with a submission at
# grade time by grader/steps/build.c ----------------------------------------------
HARNESS_SRC := grader/harness/harness_main.c
ENTRY_SRC   := $(wildcard grader/labs/*_entry.c) grader/harness/no_entry.c

# The kit's shared code as one archive, for the harness's link at grade time.
$(BUILD)/libkit.a: $(COMMON_OBJ)
	ar rcs $@ $^

# The parts that need the CUDA toolkit: the harness for the GPU (its main and
# timing objects), its launch log and wrapper, the kit's kernels (the input's
# fill and the hash), the device probe and lab 4's occupancy API.
KIT_KERNELS := $(BUILD)/harness/cuda/device_fill.o $(BUILD)/harness/cuda/device_hash.o
CUDA_PARTS := $(BUILD)/harness/cuda/harness_main.o $(BUILD)/harness/cuda/bench.o $(BUILD)/harness/cuda/gpu_share.o \
              $(BUILD)/harness/cuda/output_send.o \
              $(BUILD)/harness/cuda/launch_log.o $(BUILD)/harness/cuda/launch_wrap.o \
              $(KIT_KERNELS) $(BUILD)/harness/device-probe $(BUILD)/harness/occupancy-api

# exit() from the student's code, the same in both backends: one object.
STUDENT_EXIT_O := $(BUILD)/harness/harness/student_exit.o

harness: $(BUILD)/libkit.a $(BUILD)/harness/emu/harness_main.o $(BUILD)/harness/emu/predict.o \
         $(BUILD)/harness/emu/bench.o $(BUILD)/harness/emu/gpu_share.o $(BUILD)/harness/emu/output_send.o $(STUDENT_EXIT_O) $(ENTRY_SRC:grader/%.c=$(BUILD)/harness/%.o) \
         $(if $(CUDA_SKIP),,$(CUDA_PARTS))
ifneq ($(CUDA_SKIP),)
	@echo "make: GPU backend not built ($(CUDA_SKIP)); skipped: the CUDA harness," \
	      "launch log and wrapper, the kit's kernels, device probe, lab 4's occupancy API." \
	      "The emulator grades everything."
	@rm -f $(CUDA_PARTS)
endif

$(BUILD)/harness/cuda/harness_main.o: $(HARNESS_SRC) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -I$(CUDA_INC) -c $< -o $@

$(BUILD)/harness/cuda/bench.o $(BUILD)/harness/cuda/gpu_share.o $(BUILD)/harness/cuda/output_send.o: $(BUILD)/harness/cuda/%.o: grader/harness/%.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -I$(CUDA_INC) -c $< -o $@

$(BUILD)/harness/emu/bench.o $(BUILD)/harness/emu/gpu_share.o $(BUILD)/harness/emu/output_send.o: $(BUILD)/harness/emu/%.o: grader/harness/%.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Iemu/include -DKIT_EMU -c $< -o $@

$(BUILD)/harness/cuda/launch_%.o: grader/harness/launch_%.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -I$(CUDA_INC) -c $< -o $@

# The kit's kernels (device_fill.cu, device_hash.cu) run on whatever GPU
# grades, not only the one they were built beside: machine code for the
# A100's and H100's generations, and PTX for the oldest architecture this
# toolkit knows, which the driver compiles for any newer GPU when the harness
# loads it. (Recursive '=': nvcc is asked only when one of these is built.)
KIT_PTX = $(firstword $(filter compute_%,$(shell $(NVCC) --list-gpu-arch 2>/dev/null)))
comma := ,
KIT_GENCODE = -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
               $(if $(KIT_PTX),-gencode arch=$(KIT_PTX)$(comma)code=$(KIT_PTX))
$(KIT_KERNELS): $(BUILD)/harness/cuda/%.o: grader/harness/%.cu | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(NVCC) $(KIT_GENCODE) -std=c++17 -O2 $(DEPFLAGS) -c $< -o $@

$(BUILD)/harness/emu/harness_main.o: $(HARNESS_SRC) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Iemu/include -DKIT_EMU -c $< -o $@

$(BUILD)/harness/emu/predict.o: grader/harness/predict.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Iemu/include -DKIT_EMU -c $< -o $@

$(BUILD)/harness/%.o: grader/%.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# Finds out whether there is a CUDA device, and which, without any student
# code: the cuda harness linked with an entry that is never called.
$(BUILD)/harness/device-probe: $(BUILD)/harness/cuda/harness_main.o $(BUILD)/harness/cuda/bench.o $(BUILD)/harness/cuda/gpu_share.o \
                               $(BUILD)/harness/cuda/output_send.o \
                               $(BUILD)/harness/cuda/launch_log.o $(KIT_KERNELS) $(STUDENT_EXIT_O) \
                               $(BUILD)/harness/harness/no_entry.o $(COMMON_OBJ)
	$(NVCC) $^ -o $@

# Lab 4: this GPU's occupancy API asked the calculator check's questions, by
# kernels of known register counts (compiled for the GPUs the kit has seen,
# and as PTX for newer ones).
OCC_GENCODE := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
               -gencode arch=compute_90,code=compute_90
$(BUILD)/grader/labs/occupancy/occ_cuda.o: grader/labs/occupancy/occ_cuda.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -I$(CUDA_INC) -c $< -o $@

# The students' copy has no occ_cuda.c (mk/student_kit.sh): its API table has no limiting factors.
OCC_CUDA_O := $(if $(wildcard grader/labs/occupancy/occ_cuda.c),$(BUILD)/grader/labs/occupancy/occ_cuda.o)
$(BUILD)/harness/occupancy-api: grader/harness/occupancy_api.cu $(OCC_CUDA_O) \
                                $(BUILD)/common/occupancy_table.o
	$(NVCC) $(OCC_GENCODE) -std=c++17 -O2 $^ -o $@

# The stored tables: what cuda_occupancy.h answers for an A100 and an H100.
$(BUILD)/occupancy-table: grader/labs/occupancy/make_table.c $(BUILD)/grader/labs/occupancy/occ_cuda.o \
                          $(BUILD)/common/occupancy_table.o
	$(CC) $(CPPFLAGS) $(CFLAGS) -I$(CUDA_INC) $^ -o $@

occupancy-tables: $(BUILD)/occupancy-table
	$(BUILD)/occupancy-table sm_80 > grader/labs/occupancy/sm_80.txt
	$(BUILD)/occupancy-table sm_90 > grader/labs/occupancy/sm_90.txt

# The students' copy keeps lab 4's answers hashed (mk/student_kit.sh).
$(BUILD)/occupancy-hash: grader/labs/occupancy/hash_table.c $(BUILD)/grader/steps/occupancy_digest.o \
                         $(BUILD)/grader/sys/sha256.o $(BUILD)/common/occupancy_table.o
	$(CC) $(CPPFLAGS) $(CFLAGS) $^ -lm -o $@

# --- the emulator ------------------------------------------------------------
include emu/emu.mk
# Absent from the students' copy (make student-kit), which has no tests/.
-include tests/conformance/conformance.mk

# --- labs ------------------------------------------------------------------
# Builds the student's file the way ./grade will, so that compiler errors show
# now; ./grade builds again from the source it grades.
$(LABS): all
	./grade $@ --build-only

# Every tuned reference (solutions/LAB/FILE) and every answer key
# (./grade LAB --solution, solutions/README.md) must score full marks.
solutions: all
	@for lab in $(LABS); do \
		d=$$(ls -d solutions/$$lab-*); f=$$(basename $$(ls labs/$$lab-*/*.cu)); \
		./grade $$lab --submission $$d/$$f --plot none || exit 1; \
		if [ -f $$d/answer-key/$$f ]; then ./grade $$lab --solution --plot none || exit 1; fi; \
	done

# The copy students get (handouts/instructors/README.md): hand this out, never a clone of the repository.
student-kit:
	sh mk/student_kit.sh $(BUILD)/student-kit.tar.gz
student-kit: $(BUILD)/occupancy-hash

# --- tests -----------------------------------------------------------------
TEST_SRC := $(wildcard tests/*.c)
$(BUILD)/tests/unit: $(TEST_SRC:%.c=$(BUILD)/%.o) $(GRADER_OBJ) $(COMMON_OBJ)
	$(CC) $(LDFLAGS) $^ $(LIBS) -lcriterion -o $@
$(BUILD)/tests/%.o: CPPFLAGS += -Icommon -Igrader
# Criterion is checked (and installed) only when a test is built.
$(TEST_SRC:%.c=$(BUILD)/%.o) $(EMU_TEST_OBJ): | $(BUILD)/.deps-test-ok

# The kit's kernels against the C functions they stand for, bench_output_hash
# and rng_fill_words (tests/test_device_hash.c): one program built for the
# GPU, linked as a harness is (the launch log's --wrap flags, as
# launch_log.h's LAUNCH_LOG_WRAP_FLAGS lists them), and by the emulator's
# compiler, which runs the same kernels on any machine.
HASH_CHECK_SRC  := tests/gpu/device_hash_check.cu
HASH_CHECK_DEPS := grader/harness/device_hash.cu grader/harness/device_hash.h \
                   grader/harness/device_fill.cu grader/harness/device_fill.h \
                   grader/harness/kit_kernel.h grader/harness/launch_log.h common/rng.h \
                   common/bench_plan.h
LAUNCH_WRAP_LDFLAGS := $(foreach f,__cudaLaunchKernel __cudaLaunchKernel_ptsz cudaLaunchKernel \
                       cudaLaunchKernel_ptsz __cudaGetKernel,-Xlinker --wrap=$(f))
HASH_CHECKS := $(BUILD)/tests/device-hash-check-emu $(if $(CUDA_SKIP),,$(BUILD)/tests/device-hash-check)
# Built (and kept up to date) wherever the unit tests are, which run them.
$(BUILD)/tests/unit: | $(HASH_CHECKS)

$(BUILD)/tests/device-hash-check: $(HASH_CHECK_SRC) $(HASH_CHECK_DEPS) $(KIT_KERNELS) \
                                  $(BUILD)/harness/cuda/launch_log.o $(BUILD)/harness/cuda/launch_wrap.o \
                                  $(BUILD)/libkit.a
	@mkdir -p $(dir $@)
	$(NVCC) $(KIT_GENCODE) -std=c++17 -O2 $(LAUNCH_WRAP_LDFLAGS) $(HASH_CHECK_SRC) \
		$(filter %.o %.a,$^) -o $@

# Compiled apart: the wrapper's link puts the objects it is given before
# those it compiles, and the kit's library must come after both.
$(BUILD)/tests/emu-hash/device_%.o: $(HASH_CHECK_DEPS) $(EMU_TOOLS) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(EMU_CC) -DCUEMU -c grader/harness/device_$*.cu -o $@
$(BUILD)/tests/emu-hash/check.o: $(HASH_CHECK_SRC) $(HASH_CHECK_DEPS) $(EMU_TOOLS) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(EMU_CC) -DCUEMU -c $(HASH_CHECK_SRC) -o $@
$(BUILD)/tests/device-hash-check-emu: $(BUILD)/tests/emu-hash/check.o $(BUILD)/tests/emu-hash/device_hash.o \
                                      $(BUILD)/tests/emu-hash/device_fill.o $(BUILD)/libkit.a $(EMU_TOOLS)
	$(EMU_CC) -o $@ $(filter %.o %.a,$^)

# The GPU tests (tests/test_gpu.c) run only where there is a GPU; say which.
# With the CUDA toolkit, a test checks the stored occupancy tables against it.
OCC_TABLE_TEST := $(if $(wildcard $(CUDA_INC)/cuda_occupancy.h),$(BUILD)/occupancy-table)
# The student-kit tests run mk/student_kit.sh at once (--jobs): its hasher
# is built before them, not by each of them in the same place.
unit-tests: all $(BUILD)/tests/unit $(CONF_OBJ) $(OCC_TABLE_TEST) $(BUILD)/occupancy-hash
	@./grade --device >/dev/null && echo "GPU tests: run on $$(./grade --device)" || \
		echo "GPU tests: skipped: $$(./grade --device)"
	KIT_ROOT=$(CURDIR) $(BUILD)/tests/unit --jobs 2 --verbose 2>&1 | sh mk/test_progress.sh "unit tests"

ifneq ($(wildcard tests/test_support.c),)
test: unit-tests emu-tests conformance-tests
	@echo "make test: all suites passed"
else
# The students' copy (make student-kit) has no tests/: its make test builds
# the kit and grades each lab's skeleton once in the emulator, a check that
# the kit works on this machine (a skeleton fails its tests: exit 1 is fine).
test: all
	@for lab in $(LABS); do ./grade $$lab --backend emu --plot none >/dev/null 2>&1; rc=$$?; \
		[ $$rc -le 1 ] || { echo "make test: ./grade $$lab --backend emu exited $$rc"; exit 1; }; \
		echo "make test: $$lab's skeleton built and graded in the emulator"; done
	@echo "make test: the kit works here (the students' copy has no test suite of its own)"
endif

# Everything make test runs, built (with make -j) before the suites run.
test-build: all $(BUILD)/tests/unit $(CONF_OBJ) $(OCC_TABLE_TEST) $(EMU_TEST_DIR)/emu-tests $(CONF_EXE) \
	$(BUILD)/occupancy-hash

# --slurm against a real Slurm: a single-host cluster started here (root;
# installs slurm-wlm and munge through mk/deps.sh; skips, saying why, elsewhere).
test-slurm: all
	bash tests/slurm/test_slurm.sh

clean:
	rm -rf $(BUILD) grade

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
