# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# libFuzzer targets for every parser of untrusted input (clang, ASan + UBSan).
# Lives in tests/unit/ because the top Makefile includes tests/unit/*.mk.
#   make fuzz              each target FUZZ_SECONDS (default 20) in turn
#   make fuzz-smoke        each target 5 s, corpus kept between runs
#   make check-fuzz        CI (make test): each target FUZZ_CHECK_SECONDS (3)
#                          from the committed seeds alone, side by side: ~30 s for 9
#   make fuzz-build        only build $(OUT)/fuzz/fuzz_*
# Seeds: tests/fuzz/corpus/<target>/ (text); the ELF seeds are compiled from
# tests/fuzz/elf_seed.c. New inputs go to $(OUT)/fuzz/work/<target>/ (check-fuzz:
# a fresh $(OUT)/fuzz/check/<target>/); a failing input is copied to
# $(OUT)/fuzz/crashes/ and printed in base64 and hex (tests/fuzz/run.sh).
FUZZ_SECONDS ?= 20
FUZZ_CHECK_SECONDS ?= 3
FUZZ_DIR     := $(OUT)/fuzz
FUZZ_TARGETS := folded procmaps perfmap kallsyms elf_syms pprof config http_args hotspot v8
FUZZ_BINS    := $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_TARGETS))
FUZZ_CFLAGS  := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=undefined $(WARN) -std=gnu11 -MMD -MP -D_GNU_SOURCE \
		-Iinclude -Isrc $(shell pkg-config --cflags $(PKGS) $(DLOPEN_PKGS))

fuzz_deps_folded   := src/analysis/profile.c src/analysis/profile_folded.c \
		      src/output/folded.c src/output/folded_profile.c src/util/log.c
fuzz_deps_procmaps := src/sym/procmaps.c src/sym/strtab.c src/util/log.c
fuzz_deps_perfmap  := src/sym/perfmap.c src/sym/strtab.c src/util/log.c
fuzz_deps_kallsyms := src/sym/kallsyms.c src/sym/strtab.c src/util/log.c
fuzz_deps_elf_syms := src/sym/elf_syms.c src/sym/elf_syms_debug.c src/sym/elf_debug.c src/sym/ehframe.c src/sym/minidebug.c src/sym/dbgfetch.c src/util/dynlib.c \
		      src/sym/demangle.c src/sym/strtab.c src/util/log.c
fuzz_deps_pprof    := src/analysis/pprof_read.c src/analysis/annotate.c \
		      src/analysis/pprof_profile.c src/analysis/profile.c \
		      src/analysis/profile_folded.c src/output/folded.c src/output/folded_profile.c src/output/pprof.c \
		      src/output/protobuf.c src/util/log.c
# the agent's config file and every key's value parser: the unit test's set
fuzz_deps_config   := $(shell cat tests/unit/test_agent_config.deps)
# the web view's query arguments; libmicrohttpd's lookup is the target's own, put
# in agent/mhd_dl.c's table (the library is not loaded)
fuzz_deps_http_args := src/agent/http_args.c src/agent/mhd_dl.c src/util/dynlib.c src/agent/timeline_json.c \
		      src/analysis/profile.c src/util/parse.c src/util/log.c
fuzz_deps_hotspot := src/sym/hotspot_vmstructs.c src/sym/hotspot_names.c
fuzz_deps_v8      := src/sym/v8_layout.c src/sym/v8_names.c
fuzz_objs = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(fuzz_deps_$(1)))

.PHONY: fuzz fuzz-smoke fuzz-build check-fuzz
# built through a pattern + secondary expansion: keep them between runs
.SECONDARY: $(foreach t,$(FUZZ_TARGETS),$(call fuzz_objs,$(t)))

$(FUZZ_DIR)/obj/%.o: %.c
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $$(call fuzz_objs,$$*)
	$(call msg,FUZZ-LD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(call fuzz_objs,$*) $(LDLIBS) -o $@

# ELF seeds: a shared object with .symtab, a stripped one (.dynsym only), an executable
FUZZ_ELF_SEEDS := $(addprefix $(FUZZ_DIR)/seeds/elf_syms/,seed.so seed-stripped.so seed.exe)
$(FUZZ_DIR)/seeds/elf_syms/seed.so: tests/fuzz/elf_seed.c
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -O1 -shared -fPIC -nostdlib -Wl,--build-id -o $@ $<
$(FUZZ_DIR)/seeds/elf_syms/seed-stripped.so: $(FUZZ_DIR)/seeds/elf_syms/seed.so
	$(Q)strip -o $@ $<
$(FUZZ_DIR)/seeds/elf_syms/seed.exe: tests/fuzz/elf_seed.c
	$(Q)$(CC) -O1 -static -nostdlib -Wl,-e,seed_entry -Wl,--build-id -o $@ $<

fuzz-build: $(FUZZ_BINS) $(FUZZ_ELF_SEEDS)

fuzz: fuzz-build
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_DIR) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	$(Q)tests/fuzz/run.sh 5 $(FUZZ_DIR) $(FUZZ_TARGETS)

check-fuzz: fuzz-build
	$(Q)tests/fuzz/run.sh -c $(FUZZ_CHECK_SECONDS) $(FUZZ_DIR) $(FUZZ_TARGETS)
