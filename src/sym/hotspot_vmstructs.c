// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* HotSpot's vmStructs tables, read by name (see hotspot_vmstructs.h). */
#include "sym/hotspot_vmstructs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define HS_NAME_MAX	64	/* longer names are none we look for */
#define HS_BATCH	32	/* entries per read */
#define HS_STRIDE_MAX	256	/* 48 bytes (structs) in JDK 17 and 25 */
/*
 * Field offsets and type sizes above this are no layout of a real VM (the
 * largest we read is under 200 bytes): the tables are the target's memory,
 * which a hostile process controls, and sums of such values index buffers
 * (sym/hotspot.c). Refused as missing, so no sum can wrap.
 */
#define HS_LAYOUT_MAX	(1u << 16)

/* What naming reads, by the name the VM gives it. */
struct hs_want {
	enum hotspot_table_kind kind;
	const char *type;
	const char *field;	/* NULL for a type's size or a constant */
	enum hotspot_slot slot;
	bool is_static;
};

static const struct hs_want wants[] = {
	{ HOTSPOT_STRUCTS, "CodeCache", "_heaps", HS_CC_HEAPS, true },
	{ HOTSPOT_STRUCTS, "CodeCache", "_low_bound", HS_CC_LOW, true },
	{ HOTSPOT_STRUCTS, "CodeCache", "_high_bound", HS_CC_HIGH, true },
	{ HOTSPOT_STRUCTS, "Abstract_VM_Version", "_s_vm_release", HS_VM_RELEASE, true },
	{ HOTSPOT_STRUCTS, "Abstract_VM_Version", "_vm_major_version", HS_VM_MAJOR, true },
	/* JDK 16 renamed GenericGrowableArray */
	{ HOTSPOT_STRUCTS, "GrowableArrayBase", "_len", HS_GA_LEN, false },
	{ HOTSPOT_STRUCTS, "GenericGrowableArray", "_len", HS_GA_LEN, false },
	{ HOTSPOT_STRUCTS, "GrowableArray<int>", "_data", HS_GA_DATA, false },
	{ HOTSPOT_STRUCTS, "CodeHeap", "_memory", HS_HEAP_MEMORY, false },
	{ HOTSPOT_STRUCTS, "CodeHeap", "_segmap", HS_HEAP_SEGMAP, false },
	{ HOTSPOT_STRUCTS, "CodeHeap", "_log2_segment_size", HS_HEAP_LOG2_SEG, false },
	{ HOTSPOT_STRUCTS, "VirtualSpace", "_low_boundary", HS_VS_LOW, false },
	{ HOTSPOT_STRUCTS, "VirtualSpace", "_high_boundary", HS_VS_HIGH, false },
	{ HOTSPOT_TYPES, "HeapBlock", NULL, HS_HB_SIZE, false },
	{ HOTSPOT_STRUCTS, "HeapBlock", "_header", HS_HB_HEADER, false },
	{ HOTSPOT_STRUCTS, "HeapBlock::Header", "_used", HS_HB_USED, false },
	{ HOTSPOT_STRUCTS, "CodeBlob", "_name", HS_BLOB_NAME, false },
	{ HOTSPOT_STRUCTS, "CodeBlob", "_size", HS_BLOB_SIZE, false },
	{ HOTSPOT_STRUCTS, "CodeBlob", "_kind", HS_BLOB_KIND, false },
	{ HOTSPOT_INTS, "CodeBlobKind::Nmethod", NULL, HS_KIND_NMETHOD, false },
	/* JDK 23 folded CompiledMethod into nmethod */
	{ HOTSPOT_STRUCTS, "nmethod", "_method", HS_NM_METHOD, false },
	{ HOTSPOT_STRUCTS, "CompiledMethod", "_method", HS_NM_METHOD, false },
	{ HOTSPOT_STRUCTS, "Method", "_constMethod", HS_METHOD_CONST, false },
	{ HOTSPOT_STRUCTS, "ConstMethod", "_constants", HS_CM_CONSTANTS, false },
	{ HOTSPOT_STRUCTS, "ConstMethod", "_name_index", HS_CM_NAME, false },
	{ HOTSPOT_STRUCTS, "ConstantPool", "_pool_holder", HS_CP_HOLDER, false },
	{ HOTSPOT_TYPES, "ConstantPool", NULL, HS_CP_SIZE, false },
	{ HOTSPOT_STRUCTS, "Klass", "_name", HS_KLASS_NAME, false },
	{ HOTSPOT_STRUCTS, "Symbol", "_length", HS_SYM_LENGTH, false },
	{ HOTSPOT_STRUCTS, "Symbol", "_body", HS_SYM_BODY, false },
	{ HOTSPOT_STRUCTS, "CodeBlob", "_frame_size", HS_BLOB_FRAME_SIZE, false },
	/* JDK 23 made it an int16_t and the code's start an offset */
	{ HOTSPOT_STRUCTS, "CodeBlob", "_frame_complete_offset", HS_BLOB_FRAME_DONE, false },
	{ HOTSPOT_STRUCTS, "CodeBlob", "_frame_complete_offset", HS_BLOB_FRAME_DONE16, false },
	{ HOTSPOT_STRUCTS, "CodeBlob", "_code_begin", HS_BLOB_CODE_BEGIN, false },
	{ HOTSPOT_STRUCTS, "CodeBlob", "_code_offset", HS_BLOB_CODE_OFFSET, false },
	{ HOTSPOT_STRUCTS, "AbstractInterpreter", "_code", HS_INTERP_CODE, true },
	{ HOTSPOT_STRUCTS, "StubQueue", "_stub_buffer", HS_SQ_BUFFER, false },
	{ HOTSPOT_STRUCTS, "StubQueue", "_buffer_limit", HS_SQ_LIMIT, false },
	{ HOTSPOT_INTS, "frame::interpreter_frame_sender_sp_offset", NULL, HS_FRAME_SENDER_SP,
	  false },
};

/*
 * The width each field is read with (sym/hotspot.c): a VM that changed one
 * is refused, not misread. "*": a pointer ("T*") or "address".
 */
static const char *const slot_types[HS_NR_SLOTS] = {
	[HS_CC_HEAPS] = "*", [HS_CC_LOW] = "*", [HS_CC_HIGH] = "*",
	[HS_VM_RELEASE] = "*", [HS_VM_MAJOR] = "int",
	[HS_GA_LEN] = "int", [HS_GA_DATA] = "*",
	[HS_HEAP_MEMORY] = "VirtualSpace", [HS_HEAP_SEGMAP] = "VirtualSpace",
	[HS_HEAP_LOG2_SEG] = "int", [HS_VS_LOW] = "*", [HS_VS_HIGH] = "*",
	[HS_HB_HEADER] = "HeapBlock::Header", [HS_HB_USED] = "bool",
	[HS_BLOB_NAME] = "*", [HS_BLOB_SIZE] = "int", [HS_BLOB_KIND] = "CodeBlobKind",
	[HS_NM_METHOD] = "*", [HS_METHOD_CONST] = "*", [HS_CM_CONSTANTS] = "*",
	[HS_CM_NAME] = "u2", [HS_CP_HOLDER] = "*",
	[HS_KLASS_NAME] = "*", [HS_SYM_LENGTH] = "u2",
	[HS_BLOB_FRAME_SIZE] = "int", [HS_BLOB_FRAME_DONE] = "int",
	[HS_BLOB_FRAME_DONE16] = "int16_t", [HS_BLOB_CODE_BEGIN] = "*",
	[HS_BLOB_CODE_OFFSET] = "int", [HS_INTERP_CODE] = "*", [HS_SQ_BUFFER] = "*",
	[HS_SQ_LIMIT] = "int",
};

const char *hotspot_vm_slot_type(enum hotspot_slot slot)
{
	return slot < HS_NR_SLOTS ? slot_types[slot] : NULL;
}

int hotspot_vm_slot(enum hotspot_table_kind kind, const char *type, const char *field)
{
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const struct hs_want *w = &wants[i];

		if (w->kind == kind && !strcmp(w->type, type) &&
		    (!w->field || (field && !strcmp(w->field, field))))
			return (int)w->slot;
	}
	return -1;
}

/* Does any wanted entry of a @kind table have type (or constant) name @type? */
static bool type_wanted(enum hotspot_table_kind kind, const char *type)
{
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++)
		if (wants[i].kind == kind && !strcmp(wants[i].type, type))
			return true;
	return false;
}

static bool type_matches(enum hotspot_slot slot, const char *typestr)
{
	const char *want = slot_types[slot];
	size_t n;

	if (!want)
		return true;
	if (strcmp(want, "*"))
		return !strcmp(want, typestr);
	n = strlen(typestr);
	return !strcmp(typestr, "address") || (n && typestr[n - 1] == '*');
}

/*
 * The NUL-terminated string at @addr into @buf: 0, or -ENOENT when it is
 * NULL, unreadable or longer than @len - 1 (no name we look for).
 */
static int read_str(const struct hotspot_reader *r, uint64_t addr, char *buf, size_t len)
{
	/* up to the page end first: a string near the end of a mapping */
	size_t first = 4096 - (addr & 4095), got = 0;

	while (addr && got < len - 1) {
		size_t want = len - 1 - got;
		long n;

		if (want > first)
			want = first;
		n = r->read(r->arg, addr + got, buf + got, want);
		if (n <= 0)
			return -ENOENT;
		if (memchr(buf + got, '\0', (size_t)n))
			return 0;
		got += (size_t)n;
		first = 4096;
	}
	return -ENOENT;
}

static uint64_t get_u64(const uint8_t *e, uint64_t off)
{
	uint64_t v;

	memcpy(&v, e + off, sizeof(v));
	return v;
}

static int32_t get_s32(const uint8_t *e, uint64_t off)
{
	int32_t v;

	memcpy(&v, e + off, sizeof(v));
	return v;
}

/* Every field of an entry lies inside it: else the exported values are not a table's. */
static bool layout_ok(const struct hotspot_table *t)
{
	uint64_t ptrs[] = { t->type_off, t->field_off, t->typestr_off, t->addr_off };
	size_t nptrs = t->kind == HOTSPOT_STRUCTS ? 4 : 1;
	/* structs: offset (8) and isStatic (4); types: size (8); constants: value (int32) */
	uint64_t vsize = t->kind == HOTSPOT_INTS ? 4 : 8;

	if (!t->base || t->stride < 8 || t->stride > HS_STRIDE_MAX || t->stride % 4)
		return false;
	if (t->value_off + vsize > t->stride)
		return false;
	if (t->kind == HOTSPOT_STRUCTS && t->static_off + 4 > t->stride)
		return false;
	for (size_t i = 0; i < nptrs; i++)
		if (ptrs[i] + 8 > t->stride)
			return false;
	return true;
}

/*
 * One struct entry @e (type name already read into @type): the slot of the
 * first want of (@type, field) that it matches, static or not and of that
 * slot's C++ type (a field two JDKs spell with two types has two wants).
 */
static void struct_entry(struct hotspot_vm *vm, const struct hotspot_table *t,
			 const struct hotspot_reader *r, const uint8_t *e, const char *type)
{
	char field[HS_NAME_MAX], typestr[HS_NAME_MAX];
	bool is_static = get_s32(e, t->static_off) != 0, have_typestr = false;
	int slot;

	if (read_str(r, get_u64(e, t->field_off), field, sizeof(field)))
		return;
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const struct hs_want *w = &wants[i];

		if (w->kind != HOTSPOT_STRUCTS || strcmp(w->type, type) || strcmp(w->field, field) ||
		    w->is_static != is_static)
			continue;
		slot = (int)w->slot;
		/* a NULL typeString: an unchecked field (Symbol::_body); checked ones need it */
		if (slot_types[slot] && !have_typestr) {
			if (read_str(r, get_u64(e, t->typestr_off), typestr, sizeof(typestr)))
				return;
			have_typestr = true;
		}
		if (slot_types[slot] && !type_matches((enum hotspot_slot)slot, typestr))
			continue;
		vm->v[slot] = is_static ? get_u64(e, t->addr_off) : get_u64(e, t->value_off);
		if (!is_static && vm->v[slot] >= HS_LAYOUT_MAX) {
			vm->v[slot] = 0;
			return;
		}
		vm->found |= 1ull << slot;
		return;
	}
}

/* Type or constant entry @e named @name. */
static void other_entry(struct hotspot_vm *vm, const struct hotspot_table *t, const uint8_t *e,
			const char *name)
{
	int slot = hotspot_vm_slot(t->kind, name, NULL);

	if (slot < 0)
		return;
	vm->v[slot] = t->kind == HOTSPOT_TYPES ? get_u64(e, t->value_off) :
						 (uint64_t)(int64_t)get_s32(e, t->value_off);
	if (t->kind == HOTSPOT_TYPES && vm->v[slot] >= HS_LAYOUT_MAX) {
		vm->v[slot] = 0;	/* a size: see HS_LAYOUT_MAX */
		return;
	}
	vm->found |= 1ull << slot;
}

/*
 * Entries [@i, @i + *@n) into @buf: a batch, or one entry where the batch
 * runs into an unreadable page (the table's end near a mapping's end).
 */
static int read_entries(const struct hotspot_table *t, const struct hotspot_reader *r, size_t i,
			uint8_t *buf, size_t *n)
{
	uint64_t addr = t->base + i * t->stride;
	long got = r->read(r->arg, addr, buf, *n * t->stride);

	if (got >= (long)t->stride) {
		*n = (size_t)got / t->stride;
		return 0;
	}
	if (got < 0 && got != -EFAULT && got != -EIO)
		return (int)got;
	return -EFAULT;
}

int hotspot_vm_parse(struct hotspot_vm *vm, const struct hotspot_table *t,
		     const struct hotspot_reader *r)
{
	uint8_t buf[HS_BATCH * HS_STRIDE_MAX];
	char type[HS_NAME_MAX] = "";
	uint64_t last_type = 0;
	bool wanted = false;
	size_t i = 0;

	if (!layout_ok(t))
		return -EINVAL;
	while (i < HOTSPOT_MAX_ENTRIES) {
		size_t n = HS_BATCH;
		int err = read_entries(t, r, i, buf, &n);

		if (err)
			return err;
		for (size_t k = 0; k < n; k++, i++) {
			const uint8_t *e = buf + k * t->stride;
			uint64_t tp = get_u64(e, t->type_off);

			if (!tp)
				return 0;	/* the end: a NULL name */
			/* entries of one type are adjacent and share its string */
			if (tp != last_type) {
				last_type = tp;
				wanted = !read_str(r, tp, type, sizeof(type)) &&
					 type_wanted(t->kind, type);
			}
			if (!wanted)
				continue;
			if (t->kind == HOTSPOT_STRUCTS)
				struct_entry(vm, t, r, e, type);
			else
				other_entry(vm, t, e, type);
		}
	}
	return -EINVAL;
}

/* "Type::_field", "sizeof(Type)" or "CONSTANT" of @slot's first want. */
static void slot_name(int slot, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const struct hs_want *w = &wants[i];
		const char *t = slot_types[slot];

		if ((int)w->slot != slot)
			continue;
		if (w->kind == HOTSPOT_STRUCTS)
			snprintf(buf, len, "%s::%s%s%s%s", w->type, w->field, t ? " (" : "",
				 t ? t : "", t ? ")" : "");
		else if (w->kind == HOTSPOT_TYPES)
			snprintf(buf, len, "sizeof(%s)", w->type);
		else
			snprintf(buf, len, "%s", w->type);
		return;
	}
	snprintf(buf, len, "?");
}

bool hotspot_vm_missing(const struct hotspot_vm *vm, char *buf, size_t len)
{
	for (int s = 0; s < HS_WALK_FIRST; s++) {
		/* optional: HeapBlock's used flag (a check), _kind (else the blob's name says) */
		if (s == HS_HB_HEADER || s == HS_HB_USED || s == HS_BLOB_KIND ||
		    s == HS_KIND_NMETHOD)
			continue;
		if (!hotspot_vm_has(vm, (enum hotspot_slot)s)) {
			slot_name(s, buf, len);
			return true;
		}
	}
	/* a VM with _kind tells nmethods by it: without the constant we would guess */
	if (hotspot_vm_has(vm, HS_BLOB_KIND) && !hotspot_vm_has(vm, HS_KIND_NMETHOD)) {
		slot_name(HS_KIND_NMETHOD, buf, len);
		return true;
	}
	return false;
}

bool hotspot_vm_walk_missing(const struct hotspot_vm *vm, char *buf, size_t len)
{
	/* each: a slot, or two spellings of which either will do */
	static const enum hotspot_slot need[][2] = {
		{ HS_BLOB_FRAME_SIZE, HS_BLOB_FRAME_SIZE },
		{ HS_BLOB_FRAME_DONE, HS_BLOB_FRAME_DONE16 },
		{ HS_BLOB_CODE_BEGIN, HS_BLOB_CODE_OFFSET },
		{ HS_INTERP_CODE, HS_INTERP_CODE },
		{ HS_SQ_BUFFER, HS_SQ_BUFFER },
		{ HS_SQ_LIMIT, HS_SQ_LIMIT },
		{ HS_FRAME_SENDER_SP, HS_FRAME_SENDER_SP },
	};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (hotspot_vm_has(vm, need[i][0]) || hotspot_vm_has(vm, need[i][1]))
			continue;
		slot_name(need[i][0], buf, len);
		return true;
	}
	return false;
}
