# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# src/sym/ unit tests read fixtures from the source tree and build ELF
# fixtures from sources there at run time: tell them where it is, so the
# binaries work from any directory.
SYM_UNIT_TESTS := test_kallsyms test_procmaps test_elf_syms test_perfmap test_symbolizer test_v8_elf \
		  test_srcline
$(addprefix $(OUT)/tests/,$(SYM_UNIT_TESTS)): TEST_CFLAGS += -DHC_SRCDIR='"$(CURDIR)"'
