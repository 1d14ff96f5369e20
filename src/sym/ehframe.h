/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Function start addresses from the binary search table of .eh_frame_hdr
 * (PT_GNU_EH_FRAME). Stripped objects keep it and it covers static functions
 * too, so it bounds symbols that have no size.
 */
#ifndef HC_SYM_EHFRAME_H
#define HC_SYM_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

/*
 * Sorted start addresses (ELF virtual addresses) of every FDE in @elf's
 * search table, in a malloc'd *@starts the caller frees. No table, or one in
 * an encoding other than the one GNU ld and lld emit: *@starts NULL, *@nr 0.
 * 0 or -ENOMEM.
 */
int ehframe_func_starts(Elf *elf, uint64_t **starts, size_t *nr);

/*
 * The end of each of the @nr functions starting at @starts (sorted, from
 * ehframe_func_starts()): its FDE's initial location + address range, into
 * @ends; 0 where the FDE cannot be read. 0, or -ENOENT when @elf has no
 * search table or no section holding .eh_frame (all @ends 0).
 */
int ehframe_func_ends(Elf *elf, const uint64_t *starts, size_t nr, uint64_t *ends);

#endif /* HC_SYM_EHFRAME_H */
