# Placeholder until the emulator lands: see emu/README.md.
.PHONY: emu emu-tests
emu:
emu-tests:
