# The conformance suite (tests/conformance/, included by the top Makefile):
# fixtures written in the idioms real CUDA code uses, each built by the
# emulator's cuemu-cc as a student's file is, linked with the driver and run
# on several sizes and seeds (run.sh). Their objects also go through the
# grader's integrity check (tests/test_conformance.c, in the unit tests).
# tests/gpu/conformance.sh runs the same fixtures under nvcc on a GPU.

CONF_DIR    := $(BUILD)/conformance
CONF_SRC    := $(wildcard tests/conformance/*.cu)
CONF_OBJ    := $(CONF_SRC:tests/conformance/%.cu=$(CONF_DIR)/%.o)
CONF_EXE    := $(CONF_SRC:tests/conformance/%.cu=$(CONF_DIR)/%.emu)
CONF_DRIVER := $(CONF_DIR)/driver.o $(BUILD)/common/rng.o $(BUILD)/common/reference.o \
               $(BUILD)/common/shape.o $(BUILD)/common/parallel.o

.PHONY: conformance-tests

$(CONF_DIR)/%.o: tests/conformance/%.cu $(EMU_TOOLS) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(EMU_CC) -Icommon -c $< -o $@

$(CONF_DIR)/driver.o: tests/conformance/driver.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Iemu/include -Icommon -c $< -o $@

$(CONF_DIR)/%.emu: $(CONF_DIR)/%.o $(CONF_DRIVER) $(EMU_TOOLS)
	$(EMU_CC) -o $@ $< $(CONF_DRIVER) -pthread

conformance-tests: $(CONF_EXE)
	sh tests/conformance/run.sh tests/conformance $(CONF_DIR)

# The emulator builds alone (tests/gpu/conformance.sh builds the nvcc ones).
conformance-build: $(CONF_EXE)
.PHONY: conformance-build
