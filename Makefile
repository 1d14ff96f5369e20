# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hotcold: BPF -> object -> skeleton -> binary, out of tree in $(O).
O        ?= .output
OUT      := $(abspath $(O))
ARCH     ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
VMLINUX_H ?= vmlinux/$(ARCH)/vmlinux.h
CLANG    ?= clang
BPFTOOL  ?= $(shell command -v bpftool || echo /usr/sbin/bpftool)
CC       ?= cc
PKGS     := libbpf libelf zlib libdw liblzma
# Headers only: agent/push.c, analysis/annotate_dis.c and agent/mhd_dl.c (--http)
# dlopen these when used, so runs that neither push, annotate nor serve HTTP do
# not map them and the ~30 libraries they need (TLS stacks, Kerberos, LDAP).
DLOPEN_PKGS := capstone libcurl libmicrohttpd
# -Werror by default and in CI (the default, fortified -O2 and -O1 builds must
# all be clean); WERROR=0 for a distribution building with a newer compiler,
# whose new warnings should not fail a package build.
WERROR   ?= 1
WARN     := -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -Wno-unused-parameter
# BPF_DEFS: debug builds of the BPF side only, e.g. BPF_DEFS=-DHC_ONCPU_TIMING (bpf/oncpu.bpf.c)
BPF_DEFS ?=
BPF_CFLAGS := -g -O2 --target=bpf -D__TARGET_ARCH_$(ARCH) $(WARN) -MMD -MP $(BPF_DEFS) \
	      -Iinclude -Ibpf -I$(dir $(VMLINUX_H))
CFLAGS   ?= -O2 -g
# CPPFLAGS/LDFLAGS as distributions pass them (dpkg-buildflags: _FORTIFY_SOURCE, relro)
USER_CFLAGS := $(CPPFLAGS) $(CFLAGS) $(WARN) -std=gnu11 -MMD -MP -D_GNU_SOURCE -Iinclude -Isrc \
	       -I$(OUT)/skel $(shell pkg-config --cflags $(PKGS) $(DLOPEN_PKGS))
LDLIBS   := $(shell pkg-config --libs $(PKGS)) -liberty -lm

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(patsubst $(OUT)/%,%,$(2))";
endif

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUT)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS    := $(patsubst bpf/%.bpf.c,$(OUT)/skel/%.skel.h,$(BPF_SRCS))

# Everything but main.c: unit tests link subsets of these.
LIB_SRCS := $(filter-out src/main.c,$(shell find src -name '*.c' | sort))
LIB_OBJS := $(patsubst %.c,$(OUT)/%.o,$(LIB_SRCS))
BIN      := $(OUT)/hotcold

.PHONY: install uninstall completion
.PHONY: all clean check check-unit check-bpf check-integration check-browser check-golden check-style test workloads \
	check-hardened check-asan
all: $(BIN) hotcold completion

hotcold: $(BIN)
	$(Q)ln -sf $(patsubst $(CURDIR)/%,%,$(BIN)) $@

$(BIN): $(OUT)/src/main.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUT)/bpf/%.bpf.o: bpf/%.bpf.c $(VMLINUX_H)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MF $(@:.o=.d) -MT $@ -c $< -o $(@:.bpf.o=.tmp.bpf.o)
	$(Q)$(BPFTOOL) gen object $@ $(@:.bpf.o=.tmp.bpf.o)

$(OUT)/skel/%.skel.h: $(OUT)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(OUT)/%.o: %.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

# the index page's script, assembled in with .incbin (-MMD does not see it)
$(OUT)/src/agent/view_page.o: src/agent/view_page.js

# ---- tests -----------------------------------------------------------------
# Each unit test links its own file plus the modules listed in
# tests/unit/<test>.deps (one source path per line).
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
TEST_CFLAGS := $(USER_CFLAGS) -Itests $(shell pkg-config --cflags cmocka)
TEST_LIBS := $(LDLIBS) $(shell pkg-config --libs cmocka)

define unit_deps
$(patsubst %.c,$(OUT)/%.o,$(shell cat tests/unit/$(1).deps 2>/dev/null))
endef

.SECONDEXPANSION:
$(OUT)/tests/%: tests/unit/%.c $$(call unit_deps,$$*) | $(SKELS)
	$(call msg,TEST-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(TEST_CFLAGS) $(LDFLAGS) $< $(call unit_deps,$*) $(TEST_LIBS) -o $@

check-unit: $(UNIT_BINS)
	$(Q)tools/run-unit.sh $(UNIT_BINS)

# Load every BPF object through the verifier (root + BTF; else skipped).
$(OUT)/tests/load_all: tests/bpf/load_all.c $(SKELS)
	$(call msg,TEST-CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(USER_CFLAGS) $(LDFLAGS) $< $(LDLIBS) -o $@

check-bpf: $(OUT)/tests/load_all
	$(Q)$<

# Debian 12's stock kernels (newest 6.1 and 6.12) booted under QEMU/TCG with a
# busybox initramfs: every BPF variant loads, CFI, off-CPU and locks smokes
# (tests/kernels/run.sh; ~1.5 min; kernel .debs cached in /var/cache/hotcold-kernels).
.PHONY: check-kernels
check-kernels: $(BIN) $(OUT)/tests/load_all $(OUT)/workloads/mutex
	$(Q)tests/kernels/run.sh $(OUT)

check-integration: $(BIN)
	$(Q)tests/integration/run.sh $(BIN)

check: check-unit

# The flame graph as a person sees it: headless Chromium clicks and searches;
# the agent's timeline: drags, clicks, filter, diff (root: else skipped).
check-browser: $(BIN) $(OUT)/workloads/hotloop $(OUT)/workloads/threads
	$(Q)tests/browser/flamegraph.sh $(BIN)
	$(Q)tests/browser/timeline.sh $(BIN) || [ $$? -eq 77 ]

# Writers and readers byte for byte, bad input, and go tool pprof on our pprof.
check-golden: $(BIN)
	$(Q)tests/golden/run.sh $(BIN)

# make test, in three steps:
#  1. builds and the checks that time nothing, side by side (-j; each target's
#     output held until it ends): headers, golden, BPF verifier, the ASan tree
#     with the unit tests (Debian's flags at -O1, below);
#  2. the kernel matrix, beside the fuzzers (built, then a fixed time each, 2 at a time)
#     and the integration tests that time nothing (TEST_SIDE_TESTS: exact
#     totals, formats, exit codes, install): not beside the builds, which
#     slowed the guests 2x and left a 5 s `record -a` in one without a single
#     CFI walk;
#  3. alone on the machine, the tests that measure workloads (sample shares,
#     CPU and wall times): the other integration tests, browser.
# One after another, as before, steps 1-2 took ~260 s of the test command's
# ~900 (CI: 914 s), leaving a CPU idle in their single-threaded stretches
# (unit runs, make without -j, one guest's boot). The unit tests run once,
# in the ASan tree: the -O2 objects they test are those every integration
# test runs.
TEST_BUILD_SIDE   := check-style check-golden check-bpf check-asan \
		     $(OUT)/tests/load_all $(OUT)/workloads/mutex
TEST_SIDE_TESTS   := t_units t_install t_errors t_formats t_pprof_lines
TEST_ALONE_TESTS   = $(filter-out $(TEST_SIDE_TESTS),$(patsubst tests/integration/%.sh,%,\
		     $(wildcard tests/integration/t_*.sh)))
.PHONY: check-integration-side check-integration-alone
# MAKEFLAGS emptied: t_install runs make itself, not as part of this one
check-integration-side: $(BIN) workloads
	$(Q)MAKEFLAGS= tests/integration/run.sh $(BIN) $(TEST_SIDE_TESTS)
check-integration-alone: $(BIN) workloads
	$(Q)MAKEFLAGS= tests/integration/run.sh $(BIN) $(TEST_ALONE_TESTS)
test:
	$(Q)$(SUBMAKE) -Otarget $(TEST_BUILD_SIDE)
	$(Q)$(SUBMAKE) -Otarget check-kernels check-fuzz check-integration-side
	$(Q)$(MAKE) --no-print-directory check-hardened check-integration-alone check-browser

# ---- distribution flags and sanitizers ----------------------------------------
# check-hardened: Debian's flags (dpkg-buildflags, hardening=+all) with
# _FORTIFY_SOURCE=3 at -O2, unit + golden tests, and the agent restarting over
# its own history with --counters (root: else that part is skipped).
# check-asan: the same flags at -O1 with dpkg's own _FORTIFY_SOURCE=2 (another
# optimizer's warnings, still -Werror) plus gcc's ASan + UBSan, unit + golden
# tests, any report fatal. Each in its own O= tree.
HARD_ENV      := DEB_BUILD_MAINT_OPTIONS=hardening=+all
HARD_CFLAGS    = $(shell $(HARD_ENV) dpkg-buildflags --get CFLAGS)
HARD_CPPFLAGS  = $(shell $(HARD_ENV) dpkg-buildflags --get CPPFLAGS)
HARD_LDFLAGS   = $(shell $(HARD_ENV) dpkg-buildflags --get LDFLAGS)
HARD_O        := $(OUT)-hardened
ASAN_O        := $(OUT)-asan
ASAN_FLAGS    := -fsanitize=address,undefined -fno-sanitize-recover=all
# `make test` runs without -j (tools/quickstart.sh): build these trees in parallel anyway
SUBMAKE       := $(MAKE) --no-print-directory -j$(shell nproc 2>/dev/null || echo 2)

# HARDENED_MAIN=1 (tools/quickstart.sh test): the main tree is already built
# with these flags and every test runs it, so the -O2 tree is not built twice.
check-hardened:
	$(Q)command -v dpkg-buildflags >/dev/null || { echo "check-hardened: needs dpkg-buildflags (dpkg-dev)" >&2; exit 1; }
ifneq ($(HARDENED_MAIN),1)
	$(Q)echo "check-hardened: dpkg-buildflags, _FORTIFY_SOURCE=3, -O2 in $(HARD_O)"
	$(Q)$(SUBMAKE) O=$(HARD_O) CFLAGS="$(HARD_CFLAGS)" LDFLAGS="$(HARD_LDFLAGS)" \
		CPPFLAGS="$(HARD_CPPFLAGS) -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3" check-unit check-golden
	$(Q)tests/integration/run.sh $(HARD_O)/hotcold t_agent_restart
endif

# halt_on_error: a report fails the test (UBSan's too, with -fno-sanitize-recover)
check-asan:
	$(Q)command -v dpkg-buildflags >/dev/null || { echo "check-asan: needs dpkg-buildflags (dpkg-dev)" >&2; exit 1; }
	$(Q)echo "check-asan: ASan + UBSan, dpkg-buildflags at -O1, _FORTIFY_SOURCE=2 in $(ASAN_O)"
	$(Q)ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(SUBMAKE) O=$(ASAN_O) \
		CFLAGS="$(subst -O2,-O1,$(HARD_CFLAGS)) -fno-omit-frame-pointer $(ASAN_FLAGS)" \
		CPPFLAGS="$(HARD_CPPFLAGS)" LDFLAGS="$(HARD_LDFLAGS) $(ASAN_FLAGS)" check-unit check-golden

check-style:
	$(Q)tools/check-headers.sh

# ---- install -------------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=/tmp/stage]: the binary, man pages,
# bash completion, the systemd unit (ExecStart rewritten to $(PREFIX)/bin),
# the example agent config (/etc/hotcold/agent.conf, an existing one kept)
# and the README with docs/. The completion's option lists and the man pages' OPTIONS come
# from each command's option table (src/util/opt.h) through the built binary
# (tools/gen-completion.sh, tools/gen-man.sh), so they cannot drift from the parser.
PREFIX        ?= /usr/local
BINDIR        ?= $(PREFIX)/bin
MANDIR        ?= $(PREFIX)/share/man
DOCDIR        ?= $(PREFIX)/share/doc/hotcold
SYSCONFDIR    ?= /etc
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR       ?= $(PREFIX)/lib/systemd/system
MANPAGES      := $(wildcard man/*.1)
COMPLETION    := $(OUT)/completion/hotcold

completion: $(COMPLETION)
$(COMPLETION): $(BIN) completion/hotcold.bash.in tools/gen-completion.sh
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)tools/gen-completion.sh $(BIN) completion/hotcold.bash.in $@

# make man: rewrite the OPTIONS of man/*.1 from the option tables (commit the result);
# make check-man: fail if a page's OPTIONS differ from its table.
.PHONY: man check-man
man: $(BIN)
	$(Q)tools/gen-man.sh $(BIN) $(MANPAGES)
check-man: $(BIN)
	$(Q)tools/gen-man.sh $(BIN) --check $(MANPAGES)

install: $(BIN) $(COMPLETION)
	$(Q)install -d -m 0755 $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/hotcold
	$(Q)install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/hotcold
	$(Q)install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/
	$(Q)install -m 0644 $(COMPLETION) $(DESTDIR)$(COMPLETIONDIR)/hotcold
	$(Q)install -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	$(Q)install -d -m 0755 $(DESTDIR)$(DOCDIR)/docs
	$(Q)install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/
	$(Q)install -m 0644 tools/hotcold-agent.conf $(DESTDIR)$(DOCDIR)/agent.conf.example
	$(Q)[ -e $(DESTDIR)$(SYSCONFDIR)/hotcold/agent.conf ] || \
		install -m 0644 tools/hotcold-agent.conf $(DESTDIR)$(SYSCONFDIR)/hotcold/agent.conf
	$(Q)sed -e 's|/usr/local/bin/hotcold|$(BINDIR)/hotcold|g' \
		-e 's|/usr/local/share/doc/hotcold/|$(DOCDIR)/|g' \
		-e 's|/etc/hotcold/|$(SYSCONFDIR)/hotcold/|g' tools/hotcold-agent.service \
		>$(DESTDIR)$(UNITDIR)/hotcold-agent.service
	$(Q)chmod 0644 $(DESTDIR)$(UNITDIR)/hotcold-agent.service
	@echo "installed hotcold in $(DESTDIR)$(PREFIX) (unit: $(UNITDIR)/hotcold-agent.service)"

# The config in $(SYSCONFDIR) is the administrator's: left in place.
uninstall:
	$(Q)rm -f $(DESTDIR)$(BINDIR)/hotcold $(DESTDIR)$(COMPLETIONDIR)/hotcold \
		$(DESTDIR)$(UNITDIR)/hotcold-agent.service $(patsubst man/%,$(DESTDIR)$(MANDIR)/man1/%,$(MANPAGES))
	$(Q)rm -rf $(DESTDIR)$(DOCDIR)

clean:
	$(call msg,CLEAN,$(OUT))
	$(Q)rm -rf $(OUT) $(OUT)-hardened $(OUT)-hardened-O1 $(OUT)-asan hotcold

.SECONDARY: $(BPF_OBJS)
.DELETE_ON_ERROR:
-include $(shell find $(OUT) -name '*.d' 2>/dev/null)

# Test fixture rules contributed by test owners (e.g. ELF files built at test time).
-include $(wildcard tests/unit/*.mk)

# Workloads with known behaviour for the integration tests, frame pointers in
# every function (clang: gcc 12 ignores -mno-omit-leaf-frame-pointer; the
# CFI unwinder has its own workloads).
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUT)/workloads/%,$(wildcard tests/workloads/*.c))
$(OUT)/workloads/%: tests/workloads/%.c
	$(call msg,WORKLOAD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -pthread $< -o $@

workloads: $(WORKLOADS)
check-integration: workloads
