// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The load bias of a file mapping from the object's program headers (see loadbias.h). */
#include "sym/loadbias.h"

#include <errno.h>
#include <stdbool.h>

int load_layout_read(Elf *elf, struct load_layout *ll)
{
	GElf_Phdr ph;
	size_t n;

	ll->nr = 0;
	ll->relro_vaddr = ll->relro_size = 0;
	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_GNU_RELRO) {
			ll->relro_vaddr = ph.p_vaddr;
			ll->relro_size = ph.p_memsz;
		}
		if (ph.p_type != PT_LOAD || !ph.p_filesz || ll->nr == LOAD_MAX_SEGS)
			continue;
		ll->segs[ll->nr++] = (struct load_seg){
			.off = ph.p_offset,
			.filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr,
			.memsz = ph.p_memsz,
			.flags = ph.p_flags,
		};
	}
	return ll->nr ? 0 : -ENOEXEC;
}

/*
 * Could mapping @m, seen as vaddrs [v0, v1), be (part of) segment @s? Its
 * write bit must agree with RELRO: glibc mprotect()s the whole pages of
 * [relro, relro + size) to read-only, rounding the end down.
 */
static bool perms_fit(const struct load_layout *ll, const struct load_seg *s,
		      const struct procmap *m, uint64_t v0, uint64_t v1, uint64_t page)
{
	uint64_t r0 = ll->relro_vaddr & ~(page - 1);
	uint64_t r1 = (ll->relro_vaddr + ll->relro_size) & ~(page - 1);
	bool in_relro = ll->relro_size && v0 >= r0 && v1 <= r1;

	if (!(s->flags & PF_X) != !(m->perms & PROCMAP_X))
		return false;
	if (!(s->flags & PF_W))
		return !(m->perms & PROCMAP_W);
	/* a writable segment: read-only only where RELRO covers the mapping */
	return (m->perms & PROCMAP_W) ? !in_relro : in_relro;
}

int load_bias(const struct load_layout *ll, const struct procmap *m, uint64_t page,
	      uint64_t *bias)
{
	const struct load_seg *best = NULL;
	uint64_t mask = ~(page - 1);
	int best_score = -1;

	for (size_t i = 0; i < ll->nr; i++) {
		const struct load_seg *s = &ll->segs[i];
		uint64_t v0, v1;
		int score;

		/* required: the mapping starts in the segment's file pages */
		if (m->pgoff < (s->off & mask) || m->pgoff >= s->off + s->filesz)
			continue;
		/*
		 * Preferred: matching permissions, then staying within the
		 * segment's memory pages. Neither is required: a program may
		 * mprotect() its own code, and the kernel may merge mappings.
		 */
		v0 = s->vaddr - s->off + m->pgoff;
		v1 = v0 + (m->end - m->start);
		score = 2 * perms_fit(ll, s, m, v0, v1, page) +
			(v1 <= ((s->vaddr + s->memsz + page - 1) & mask));
		if (score > best_score) {
			best = s;
			best_score = score;
		}
	}
	if (!best)
		return -ENOENT;
	*bias = m->start - (m->pgoff - best->off) - best->vaddr;
	return 0;
}
