/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The test hook behind HOTCOLD_TEST_REFUSE (src/collect/parts.h): where an
 * optional part's code starts, hc_refuse_if() reads above the frame pointer
 * when the part's bit is set in the object's cfg_refuse, which every
 * kernel's verifier refuses. Clear (always, outside tests), the branch is
 * dead on a frozen constant and the verifier never walks it. So the
 * fallbacks are tested against the kernel's real refusal, not a mock.
 */
#ifndef HC_BPF_LIB_REFUSE_BPF_H
#define HC_BPF_LIB_REFUSE_BPF_H

#define hc_refuse_if(part)							\
	do {									\
		if (cfg_refuse & (1u << (part)))				\
			asm volatile("r0 = *(u64 *)(r10 + 8)" ::: "r0");	\
	} while (0)

#endif /* HC_BPF_LIB_REFUSE_BPF_H */
