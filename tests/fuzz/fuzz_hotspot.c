// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: HotSpot's vmStructs tables and the naming steps
 * (sym/hotspot_vmstructs.c, sym/hotspot_names.c). Everything they read
 * comes from a target process's memory, which a hostile process controls:
 * the input is that memory (at FZ_BASE), its first 64 bytes the table's
 * layout (stride and field offsets, as libjvm.so exports them).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym/hotspot_names.h"
#include "sym/hotspot_vmstructs.h"

#define FZ_BASE 0x10000ull
#define FZ_HDR 64

struct mem {
	const uint8_t *p;
	size_t n;
};

/* like a /proc/PID/mem read: short at the end, -EFAULT outside */
static long mem_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct mem *m = arg;
	size_t off, got;

	if (addr < FZ_BASE || addr - FZ_BASE >= m->n)
		return -EFAULT;
	off = addr - FZ_BASE;
	got = m->n - off < len ? m->n - off : len;
	memcpy(buf, m->p + off, got);
	return (long)got;
}

static uint64_t u8at(const uint8_t *d, size_t i)
{
	return d[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = { data, size };
	struct hotspot_reader r = { mem_read, &m };
	struct hotspot_vm vm;
	struct hotspot_table t;
	char name[128];
	uint64_t seg;
	size_t half;

	if (size < FZ_HDR)
		return 0;
	/* small strides and offsets, as real tables have (JDK 17: 48 bytes an entry) */
	t = (struct hotspot_table){
		.kind = (enum hotspot_table_kind)(data[0] % 3),
		.base = FZ_BASE + FZ_HDR + u8at(data, 1),
		.stride = u8at(data, 2),
		.type_off = u8at(data, 3) % 64, .field_off = u8at(data, 4) % 64,
		.typestr_off = u8at(data, 5) % 64, .static_off = u8at(data, 6) % 64,
		.value_off = u8at(data, 7) % 64, .addr_off = u8at(data, 8) % 64,
	};
	memset(&vm, 0, sizeof(vm));
	hotspot_vm_parse(&vm, &t, &r);
	/* a huge stride or base: refused or unreadable, never read out of bounds */
	t.stride = UINT64_MAX - u8at(data, 9);
	hotspot_vm_parse(&vm, &t, &r);

	/* the segment map: the input's bytes after the header, from segment data[10] */
	seg = u8at(data, 10) + u8at(data, 11);
	hotspot_segmap_walk(data + FZ_HDR, u8at(data, 10), size - FZ_HDR, &seg);

	/* names: class and method Symbols split from the rest */
	half = (size - FZ_HDR) / 2;
	hotspot_java_name((const char *)data + FZ_HDR, half, (const char *)data + FZ_HDR + half,
			  size - FZ_HDR - half, name, sizeof(name));
	if (strlen(name) >= sizeof(name))
		abort();
	hotspot_java_name((const char *)data + FZ_HDR, size - FZ_HDR, "", 0, name,
			  1 + data[12] % sizeof(name));
	return 0;
}
