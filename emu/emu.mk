# The CPU emulator (emu/README.md), included by the top Makefile.
#
#   make emu         $(BUILD)/emu/libcuemu.a, cuemu-rewrite, cuemu-cc, include/
#   make emu-tests   the emulator's Criterion tests (tests/emu/)
#   make emu-bench   the speed table of docs/results/emu-speed.md

EMU_DIR      := $(BUILD)/emu
EMU_RT_SRC   := $(wildcard emu/runtime/*.c)
EMU_RT_OBJ   := $(EMU_RT_SRC:%.c=$(BUILD)/%.o)
EMU_RW_SRC   := $(wildcard emu/rewrite/*.c)
EMU_RW_OBJ   := $(EMU_RW_SRC:%.c=$(BUILD)/%.o) $(BUILD)/emu/runtime/sb.o
EMU_HEADERS  := $(wildcard emu/include/*.h emu/include/*/*.h)
# Headers of the CUDA toolkit that a program may include by name although
# the emulator's own headers already hold what they declare (types, atomics,
# intrinsics): each is made as one line that includes cuda_runtime.h, so that
# the toolkit's copy, where one is installed, is never mixed in.
EMU_ALIAS_HEADERS := builtin_types.h device_types.h driver_types.h driver_functions.h \
	host_defines.h host_config.h vector_types.h vector_functions.h \
	device_atomic_functions.h device_double_functions.h math_functions.h \
	sm_20_atomic_functions.h sm_20_intrinsics.h sm_30_intrinsics.h sm_32_atomic_functions.h \
	sm_32_intrinsics.h sm_35_atomic_functions.h sm_35_intrinsics.h sm_60_atomic_functions.h \
	sm_61_intrinsics.h
# Headers of what the emulator does not run: NVIDIA's libraries, textures
# and surfaces, tensor-core and asynchronous-copy intrinsics, graphics
# interoperability, device-side launches. Each is made as one #error that
# says so: without it the toolkit's copy, where one is installed on the
# compiler's path (/usr/include, /usr/local/include), is mixed in with the
# emulator's headers and fails with pages of redefinitions, or the file is
# "not found" as if the student had misspelt it.
EMU_LIBRARY_HEADERS := cublas.h cublas_v2.h cublas_api.h cublasLt.h cublasXt.h nvblas.h \
	cufft.h cufftXt.h cufftw.h curand.h curand_kernel.h cusparse.h cusparse_v2.h \
	cusolverDn.h cusolverSp.h cusolverRf.h cusolverMg.h cusolver_common.h cudnn.h nccl.h \
	cupti.h nvJitLink.h npp.h nppi.h npps.h
EMU_TEXTURE_HEADERS := texture_types.h surface_types.h channel_descriptor.h \
	texture_indirect_functions.h surface_indirect_functions.h cuda_texture_types.h \
	cuda_surface_types.h texture_fetch_functions.h surface_functions.h
EMU_FEATURE_HEADERS := mma.h cuda_pipeline.h cuda_pipeline_primitives.h cuda_awbarrier.h \
	cuda_awbarrier_primitives.h cuda_bf16.h cuda_fp8.h cuda_fp6.h cuda_fp4.h cudaGL.h \
	cuda_gl_interop.h cuda_egl_interop.h cudaEGL.h cuda_vdpau_interop.h cudaVDPAU.h \
	cuda_device_runtime_api.h
EMU_REFUSED_HEADERS := $(EMU_LIBRARY_HEADERS) $(EMU_TEXTURE_HEADERS) $(EMU_FEATURE_HEADERS)
EMU_INC_COPY := $(EMU_HEADERS:emu/include/%=$(EMU_DIR)/include/%) \
	$(EMU_ALIAS_HEADERS:%=$(EMU_DIR)/include/%) $(EMU_REFUSED_HEADERS:%=$(EMU_DIR)/include/%)
EMU_CC       := $(EMU_DIR)/cuemu-cc
EMU_LIB      := $(EMU_DIR)/libcuemu.a

.PHONY: emu emu-tests emu-bench
emu: $(EMU_LIB) $(EMU_DIR)/cuemu-rewrite $(EMU_CC) $(EMU_INC_COPY)

$(BUILD)/emu/%.o: CPPFLAGS += -Iemu/include

# The runtime runs inside the student's process, so its internals (the
# state `rt`, heap_*, metrics_*, ...) must not be reachable from the
# student's object: the objects are linked into one relocatable object and
# every global but the public API (the CUDA runtime's names, the
# instrumentation hooks, cuemu_*) is made local. A reference to an
# internal name from outside then finds nothing to link against (hidden
# visibility would not do: a static link resolves hidden symbols).
OBJCOPY    ?= objcopy
EMU_PUBLIC := -G 'cuda*' -G '__cuda*' -G '__tsan_*' -G '__ubsan_*' -G 'cuemu_*'

$(EMU_LIB): $(EMU_RT_OBJ) emu/emu.mk
	@mkdir -p $(dir $@)
	rm -f $@ $(EMU_DIR)/cuemu_runtime.o
	$(LD) -r -o $(EMU_DIR)/cuemu_runtime.o $(EMU_RT_OBJ)
	$(OBJCOPY) --wildcard $(EMU_PUBLIC) $(EMU_DIR)/cuemu_runtime.o
	$(AR) rcs $@ $(EMU_DIR)/cuemu_runtime.o

$(EMU_DIR)/cuemu-rewrite: $(EMU_RW_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@

$(EMU_CC): emu/cuemu-cc.sh
	@mkdir -p $(dir $@)
	cp $< $@
	chmod +x $@

# The wrapper finds its headers beside itself: the build folder is whole.
$(EMU_DIR)/include/%.h: emu/include/%.h
	@mkdir -p $(dir $@)
	cp $< $@

$(EMU_ALIAS_HEADERS:%=$(EMU_DIR)/include/%): emu/emu.mk
	@mkdir -p $(dir $@)
	printf '/* Made by emu/emu.mk: the emulator declares this in cuda_runtime.h. */\n#include "cuda_runtime.h"\n' >$@

# What each refused header is for, in its #error.
EMU_WHY_mma.h := warp matrix functions (nvcuda::wmma) are
EMU_WHY_cuda_bf16.h := bfloat16 types are
EMU_WHY_cuda_fp8.h := 8-bit float types are
EMU_WHY_cuda_fp6.h := 6-bit float types are
EMU_WHY_cuda_fp4.h := 4-bit float types are
EMU_WHY_cuda_device_runtime_api.h := launches from device code (dynamic parallelism) are
EMU_WHY_cuda_pipeline.h := asynchronous copies (memcpy_async, pipelines, barriers) are
EMU_REFUSED_WHY = $(or $(EMU_WHY_$(1)),$(if $(filter $(1),$(EMU_LIBRARY_HEADERS)),the NVIDIA libraries (cuBLAS$(,) cuFFT$(,) cuRAND$(,) cuSPARSE$(,) cuSOLVER$(,) cuDNN$(,) NCCL$(,) NPP) are,$(if $(filter $(1),$(EMU_TEXTURE_HEADERS)),textures and surfaces are,$(if $(filter cuda_pipeline% cuda_awbarrier%,$(1)),$(EMU_WHY_cuda_pipeline.h),graphics interoperability (OpenGL$(,) EGL$(,) VDPAU) is))))
, := ,
$(EMU_REFUSED_HEADERS:%=$(EMU_DIR)/include/%): emu/emu.mk
	@mkdir -p $(dir $@)
	printf '/* Made by emu/emu.mk: what the CPU emulator does not run. */\n#error "<%s>: $(call EMU_REFUSED_WHY,$(notdir $@)) not supported by the CPU emulator, which runs CUDA C++ and the CUDA runtime API"\n' '$(notdir $@)' >$@

# --- tests ---------------------------------------------------------------------
# Kernels of our own (tests/emu/kernels/*.cu), built by the wrapper like a
# student's file, linked with the Criterion tests into one binary.
EMU_TEST_DIR  := $(BUILD)/tests/emu
EMU_KERN_SRC  := $(wildcard tests/emu/kernels/*.cu)
EMU_KERN_OBJ  := $(EMU_KERN_SRC:tests/emu/kernels/%.cu=$(EMU_TEST_DIR)/kernels/%.o)
EMU_TEST_SRC  := $(wildcard tests/emu/*.c)
EMU_TEST_OBJ  := $(EMU_TEST_SRC:%.c=$(BUILD)/%.o)
EMU_TOOLS     := $(EMU_LIB) $(EMU_DIR)/cuemu-rewrite $(EMU_CC) $(EMU_INC_COPY)

$(BUILD)/tests/emu/%.o: CPPFLAGS += -Iemu/include -Itests/emu \
	-DCUEMU_BUILD_DIR='"$(abspath $(EMU_DIR))"' -DCUEMU_SOURCE_DIR='"$(abspath .)"' \
	-DCUEMU_PAR_DIR='"$(abspath $(EMU_TEST_DIR)/parallel)"'

$(EMU_TEST_DIR)/kernels/%.o: tests/emu/kernels/%.cu $(EMU_TOOLS) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(EMU_CC) -c $< -o $@

# Programs of their own (tests/emu/parallel/*.cu), run by test_parallel.c
# with CUEMU_WORKERS=1 and 2: a __device__ variable in one of them would
# make every launch of the test binary serial.
EMU_PAR_SRC   := $(wildcard tests/emu/parallel/*.cu)
EMU_PAR_EXE   := $(EMU_PAR_SRC:tests/emu/parallel/%.cu=$(EMU_TEST_DIR)/parallel/%)

$(EMU_TEST_DIR)/parallel/%: tests/emu/parallel/%.cu $(EMU_TOOLS) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(EMU_CC) $< -o $@

$(EMU_TEST_DIR)/emu-tests: $(EMU_TEST_OBJ) $(EMU_KERN_OBJ) $(EMU_TOOLS) $(EMU_PAR_EXE)
	$(EMU_CC) $(LDFLAGS) -o $@ $(EMU_TEST_OBJ) $(EMU_KERN_OBJ) -lcriterion -ljansson

emu-tests: emu $(EMU_TEST_DIR)/emu-tests
	CUEMU_QUIET=1 $(EMU_TEST_DIR)/emu-tests --jobs 2 --verbose 2>&1 | sh mk/test_progress.sh "emulator tests"

# --- speed -------------------------------------------------------------------------
EMU_BENCH_SRC := tests/emu/bench/bench.c
EMU_BENCH_KERN := $(wildcard tests/emu/bench/*.cu)

$(EMU_TEST_DIR)/emu-bench: $(EMU_BENCH_SRC) $(EMU_BENCH_KERN) $(EMU_TOOLS)
	@mkdir -p $(dir $@)
	$(EMU_CC) -Iemu/include -o $@ $(EMU_BENCH_SRC) $(EMU_BENCH_KERN)

emu-bench: $(EMU_TEST_DIR)/emu-bench
	$(EMU_TEST_DIR)/emu-bench
