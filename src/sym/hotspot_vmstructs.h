/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * HotSpot's own description of its layout, the vmStructs tables it exports
 * for the serviceability agent: one entry per (type, field) with its C++
 * type and offset (or a static's address), one per type with its size, one
 * per integer constant. This file reads the tables through a memory reader
 * and keeps what naming a pc in the code cache needs (struct hotspot_vm),
 * by name, so each VM build describes itself instead of us keeping offsets
 * per version. Pure: the reader is the caller's (unit-tested on table images).
 */
#ifndef HC_SYM_HOTSPOT_VMSTRUCTS_H
#define HC_SYM_HOTSPOT_VMSTRUCTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What naming needs: statics (addresses), field offsets, type sizes, constants. */
enum hotspot_slot {
	HS_CC_HEAPS,		/* static CodeCache::_heaps: GrowableArray<CodeHeap*> * */
	HS_CC_LOW,		/* static CodeCache::_low_bound, _high_bound: address */
	HS_CC_HIGH,
	HS_VM_RELEASE,		/* static Abstract_VM_Version::_s_vm_release: const char * */
	HS_VM_MAJOR,		/* static Abstract_VM_Version::_vm_major_version: int */
	HS_GA_LEN,		/* GrowableArrayBase::_len (int) */
	HS_GA_DATA,		/* GrowableArray<int>::_data: the element array (any T) */
	HS_HEAP_MEMORY,		/* CodeHeap::_memory, _segmap: VirtualSpace */
	HS_HEAP_SEGMAP,
	HS_HEAP_LOG2_SEG,	/* CodeHeap::_log2_segment_size (int) */
	HS_VS_LOW,		/* VirtualSpace::_low_boundary, _high_boundary */
	HS_VS_HIGH,
	HS_HB_SIZE,		/* sizeof(HeapBlock): a blob starts after its block header */
	HS_HB_HEADER,		/* HeapBlock::_header, HeapBlock::Header::_used (optional) */
	HS_HB_USED,
	HS_BLOB_NAME,		/* CodeBlob::_name: const char * */
	HS_BLOB_SIZE,		/* CodeBlob::_size (int): bytes from the blob's start */
	HS_BLOB_KIND,		/* CodeBlob::_kind (JDK 23+, optional) */
	HS_KIND_NMETHOD,	/* int constant CodeBlobKind::Nmethod (with _kind) */
	HS_NM_METHOD,		/* nmethod (JDK 23+) or CompiledMethod::_method: Method * */
	HS_METHOD_CONST,	/* Method::_constMethod */
	HS_CM_CONSTANTS,	/* ConstMethod::_constants: ConstantPool * */
	HS_CM_NAME,		/* ConstMethod::_name_index (u2); names carry no signature */
	HS_CP_HOLDER,		/* ConstantPool::_pool_holder: InstanceKlass * */
	HS_CP_SIZE,		/* sizeof(ConstantPool): its entries follow it */
	HS_KLASS_NAME,		/* Klass::_name: Symbol * */
	HS_SYM_LENGTH,		/* Symbol::_length (u2), _body */
	HS_SYM_BODY,
	/* the stack walk's (collect/hotspot_walk.c), not naming's: a VM without them is named */
	HS_BLOB_FRAME_SIZE,	/* CodeBlob::_frame_size (int): words from sp to the caller's sp */
	HS_BLOB_FRAME_DONE,	/* CodeBlob::_frame_complete_offset: int (JDK < 23) */
	HS_BLOB_FRAME_DONE16,	/* ... or int16_t (JDK 23+): from the code's start */
	HS_BLOB_CODE_BEGIN,	/* CodeBlob::_code_begin (address, JDK < 23) */
	HS_BLOB_CODE_OFFSET,	/* ... or _code_offset (int, JDK 23+): from the blob */
	HS_INTERP_CODE,		/* static AbstractInterpreter::_code: StubQueue * */
	HS_SQ_BUFFER,		/* StubQueue::_stub_buffer (address), _buffer_limit (int) */
	HS_SQ_LIMIT,
	HS_FRAME_SENDER_SP,	/* constant frame::interpreter_frame_sender_sp_offset (words) */
	HS_NR_SLOTS
};
#define HS_WALK_FIRST HS_BLOB_FRAME_SIZE	/* slots from here on: the walk's */

struct hotspot_vm {
	uint64_t v[HS_NR_SLOTS];	/* offset, address, size or constant, by slot */
	uint64_t found;			/* bit (1 << slot): seen in a table */
};

/*
 * Reads @len bytes at @addr of the target into @buf: the count read (short
 * at an unreadable page), or -errno.
 */
struct hotspot_reader {
	long (*read)(void *arg, uint64_t addr, void *buf, size_t len);
	void *arg;
};

enum hotspot_table_kind {
	HOTSPOT_STRUCTS,	/* typeName, fieldName, typeString, isStatic, offset, address */
	HOTSPOT_TYPES,		/* typeName, size (in value_off) */
	HOTSPOT_INTS,		/* name (in type_off), value (int32 in value_off) */
};

/* One table: where its entries start and how they are laid out (the exported values). */
struct hotspot_table {
	enum hotspot_table_kind kind;
	uint64_t base;		/* the first entry; the last one has a NULL name */
	uint64_t stride;	/* bytes per entry */
	uint64_t type_off;	/* typeName (constants: name) */
	uint64_t field_off;	/* structs: fieldName */
	uint64_t typestr_off;	/* structs: typeString */
	uint64_t static_off;	/* structs: isStatic */
	uint64_t value_off;	/* structs: offset; types: size; constants: value */
	uint64_t addr_off;	/* structs: address */
};

/* Entries read at most per table: JDK 17 has ~2000 structs entries. */
#define HOTSPOT_MAX_ENTRIES 65536

/*
 * Read table @t through @r and fill the slots of @vm it describes (found
 * bits set; fields whose C++ type is not the one we read are left out).
 * 0; -EINVAL for a layout that cannot be a table (stride, offsets) or one
 * with no end; -EFAULT (or the reader's -errno) if it cannot be read.
 */
int hotspot_vm_parse(struct hotspot_vm *vm, const struct hotspot_table *t,
		     const struct hotspot_reader *r);

/*
 * Field lookup: the slot that (@type, @field) of a table of @kind fills, or
 * -1 if naming does not use it. For types, @field is NULL. A field spelled
 * with two C++ types has a slot per type: this is the first.
 */
int hotspot_vm_slot(enum hotspot_table_kind kind, const char *type, const char *field);

/*
 * The C++ type a slot's field must have, as the structs table spells it
 * ("u2", "int"; "*" for any pointer or address), or NULL if any.
 */
const char *hotspot_vm_slot_type(enum hotspot_slot slot);

static inline bool hotspot_vm_has(const struct hotspot_vm *vm, enum hotspot_slot slot)
{
	return vm->found >> slot & 1;
}

/*
 * After every table is read: the first thing naming needs that is missing,
 * as "Type::_field" (or "sizeof(Type)", "CONSTANT") into @buf, and true;
 * false if @vm has all of it (optional slots: _kind with its constant,
 * HeapBlock::Header::_used, come in pairs or not at all).
 */
bool hotspot_vm_missing(const struct hotspot_vm *vm, char *buf, size_t len);

/*
 * The same for what walking a Java thread's frames needs (slots from
 * HS_WALK_FIRST; of the two spellings of a field, either).
 */
bool hotspot_vm_walk_missing(const struct hotspot_vm *vm, char *buf, size_t len);

#endif /* HC_SYM_HOTSPOT_VMSTRUCTS_H */
