# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# test_agent_store simulates a full disk: its __wrap_write() fails writes past
# a capacity, so every write(2) of the store goes through it.
$(OUT)/tests/test_agent_store: TEST_LIBS += -Wl,--wrap=write
