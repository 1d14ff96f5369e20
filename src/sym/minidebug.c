// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* .gnu_debugdata (MiniDebugInfo) decompression with liblzma (see minidebug.h). */
#include "sym/minidebug.h"

#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

static Elf_Data *find_debugdata(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".gnu_debugdata"))
			return elf_rawdata(scn, NULL);
	}
	return NULL;
}

/* Stream-decode @in, growing the output; the size cap bounds both memory and time. */
static int xz_decode(const void *in, size_t in_len, void **image, size_t *size)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = in_len * 4 < 65536 ? 65536 : in_len * 4;
	unsigned char *out = NULL, *n;
	lzma_ret r;
	int err = 0;

	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = in_len;
	do {
		if (!out || !s.avail_out) {
			if (out && cap >= MINIDEBUG_MAX_BYTES) {
				err = -EINVAL;
				break;
			}
			if (out)
				cap = cap * 2 > MINIDEBUG_MAX_BYTES ? MINIDEBUG_MAX_BYTES : cap * 2;
			n = realloc(out, cap);
			if (!n) {
				err = -ENOMEM;
				break;
			}
			s.next_out = n + s.total_out;
			s.avail_out = cap - s.total_out;
			out = n;
		}
		/* LZMA_FINISH: all input is there; a truncated stream ends in an error */
		r = lzma_code(&s, LZMA_FINISH);
	} while (r == LZMA_OK);
	if (!err && r != LZMA_STREAM_END)
		err = r == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
	if (!err) {
		*image = out;
		*size = s.total_out;
	} else {
		free(out);
	}
	lzma_end(&s);
	return err;
}

int minidebug_read(Elf *elf, void **image, size_t *size)
{
	Elf_Data *d = find_debugdata(elf);

	if (!d || !d->d_buf || !d->d_size)
		return -ENOENT;
	return xz_decode(d->d_buf, d->d_size, image, size);
}
