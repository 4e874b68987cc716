# The CUDA lab kit.
#
#   make            build the grader, the harness and the emulator
#   make labN       build labN for this machine (GPU if present, else emulator)
#   make occupancy-tables   rewrite lab 4's stored tables from cuda_occupancy.h
#   make test       install what is missing, build, run every test
#   make solutions  grade every reference solution
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

LIBS := -ljansson -linih -lm -pthread

# The labs: one folder labs/labN-NAME/ each, as the grader's lab table
# (grader/labs/lab_table.c) names them; tests/test_labs.c keeps the two equal.
LABS := $(sort $(foreach d,$(wildcard labs/lab*-*/),$(firstword $(subst -, ,$(notdir $(d:/=))))))

.PHONY: all deps $(LABS) occupancy-tables test unit-tests emu-tests solutions clean
all: deps grade harness emu

# --- dependencies -----------------------------------------------------------
# A stamp, so that the check runs once; delete build/ to check again.
deps: $(BUILD)/.deps-ok
$(BUILD)/.deps-ok: mk/deps.sh
	@mkdir -p $(BUILD)
	@sh mk/deps.sh
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

# --- the harness: compiled once per backend, linked with a submission at
# grade time by grader/steps/build.c ----------------------------------------------
HARNESS_SRC := grader/harness/harness_main.c
ENTRY_SRC   := $(wildcard grader/labs/*_entry.c) grader/harness/no_entry.c

# The kit's shared code as one archive, for the harness's link at grade time.
$(BUILD)/libkit.a: $(COMMON_OBJ)
	ar rcs $@ $^

harness: $(BUILD)/libkit.a $(BUILD)/harness/cuda/harness_main.o $(BUILD)/harness/emu/harness_main.o \
         $(BUILD)/harness/emu/predict.o $(BUILD)/harness/cuda/bench.o $(BUILD)/harness/emu/bench.o \
         $(ENTRY_SRC:grader/%.c=$(BUILD)/harness/%.o) $(BUILD)/harness/device-probe \
         $(BUILD)/harness/cuda/launch_log.o $(BUILD)/harness/cuda/launch_wrap.o \
         $(BUILD)/harness/occupancy-api

$(BUILD)/harness/cuda/harness_main.o: $(HARNESS_SRC) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -I$(CUDA_INC) -c $< -o $@

$(BUILD)/harness/cuda/bench.o: grader/harness/bench.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -I$(CUDA_INC) -c $< -o $@

$(BUILD)/harness/emu/bench.o: grader/harness/bench.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Iemu/include -DKIT_EMU -c $< -o $@

$(BUILD)/harness/cuda/launch_%.o: grader/harness/launch_%.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -I$(CUDA_INC) -c $< -o $@

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
$(BUILD)/harness/device-probe: $(BUILD)/harness/cuda/harness_main.o $(BUILD)/harness/cuda/bench.o \
                               $(BUILD)/harness/cuda/launch_log.o \
                               $(BUILD)/harness/harness/no_entry.o $(COMMON_OBJ)
ifneq ($(NVCC),)
	$(NVCC) $^ -o $@
else
	@echo "no CUDA toolkit (nvcc): the GPU backend is not built; the emulator still works" >&2
	@rm -f $@
endif

# Lab 4: this GPU's occupancy API asked the calculator check's questions, by
# kernels of known register counts (compiled for the GPUs the kit has seen,
# and as PTX for newer ones).
OCC_GENCODE := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
               -gencode arch=compute_90,code=compute_90
$(BUILD)/grader/labs/occupancy/occ_cuda.o: grader/labs/occupancy/occ_cuda.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -I$(CUDA_INC) -c $< -o $@

$(BUILD)/harness/occupancy-api: grader/harness/occupancy_api.cu $(BUILD)/grader/labs/occupancy/occ_cuda.o \
                                $(BUILD)/common/occupancy_table.o
ifneq ($(NVCC),)
	$(NVCC) $(OCC_GENCODE) -std=c++17 -O2 $^ -o $@
else
	@rm -f $@
endif

# The stored tables: what cuda_occupancy.h answers for an A100 and an H100.
$(BUILD)/occupancy-table: grader/labs/occupancy/make_table.c $(BUILD)/grader/labs/occupancy/occ_cuda.o \
                          $(BUILD)/common/occupancy_table.o
	$(CC) $(CPPFLAGS) $(CFLAGS) -I$(CUDA_INC) $^ -o $@

occupancy-tables: $(BUILD)/occupancy-table
	$(BUILD)/occupancy-table sm_80 > grader/labs/occupancy/sm_80.txt
	$(BUILD)/occupancy-table sm_90 > grader/labs/occupancy/sm_90.txt

# --- the emulator ------------------------------------------------------------
include emu/emu.mk
include tests/conformance/conformance.mk

# --- labs ------------------------------------------------------------------
# Builds the student's file the way ./grade will, so that compiler errors show
# now; ./grade builds again from the source it grades.
$(LABS): all
	./grade $@ --build-only

solutions: all
	@for lab in $(LABS); do ./grade $$lab --solution --plot none || exit 1; done

# --- tests -----------------------------------------------------------------
TEST_SRC := $(wildcard tests/*.c)
$(BUILD)/tests/unit: $(TEST_SRC:%.c=$(BUILD)/%.o) $(GRADER_OBJ) $(COMMON_OBJ)
	$(CC) $(LDFLAGS) $^ $(LIBS) -lcriterion -o $@
$(BUILD)/tests/%.o: CPPFLAGS += -Icommon -Igrader

# The GPU tests (tests/test_gpu.c) run only where there is a GPU; say which.
# With the CUDA toolkit, a test checks the stored occupancy tables against it.
unit-tests: all $(BUILD)/tests/unit $(CONF_OBJ) $(if $(wildcard $(CUDA_INC)/cuda_occupancy.h),$(BUILD)/occupancy-table)
	@./grade --device >/dev/null && echo "GPU tests: run on $$(./grade --device)" || \
		echo "GPU tests: skipped: $$(./grade --device)"
	KIT_ROOT=$(CURDIR) $(BUILD)/tests/unit --jobs 2

test: unit-tests emu-tests conformance-tests
	@echo "make test: all suites passed"

clean:
	rm -rf $(BUILD) grade

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
