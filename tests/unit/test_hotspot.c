// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sym/hotspot_vmstructs.c and sym/hotspot_names.c: vmStructs tables built
 * in a fake address space as the VM lays them out (JDK 17's strides and
 * entry offsets, as its exported gHotSpotVM*Offset values say), read
 * through the same reader interface the process reader uses; field lookup;
 * Symbol -> Java names; the segment map filled as HotSpot's heap.cpp fills
 * it, walked back to a block's start.
 */
#include "sym/hotspot_names.h"
#include "sym/hotspot_vmstructs.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

/* ---- a fake address space: a few regions, reads stop short at their ends */

#define SPACE_REGIONS 4

struct region {
	uint64_t base;
	uint8_t *bytes;
	size_t len;
};

struct space {
	struct region r[SPACE_REGIONS];
	size_t nr;
	size_t reads;
};

static long space_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct space *s = arg;

	s->reads++;
	for (size_t i = 0; i < s->nr; i++) {
		const struct region *r = &s->r[i];
		size_t n;

		if (addr < r->base || addr >= r->base + r->len)
			continue;
		n = r->base + r->len - addr;
		if (n > len)
			n = len;
		memcpy(buf, r->bytes + (addr - r->base), n);
		return (long)n;
	}
	return -EFAULT;	/* /proc/PID/mem says EIO; the reader maps it */
}

/* Strings: a "rodata" region the entries point into. */
#define STR_BASE 0x7f0000001000ull
static uint8_t rodata[8192];
static size_t rodata_used;

static uint64_t str(const char *s)
{
	size_t n = strlen(s) + 1;
	uint64_t a = STR_BASE + rodata_used;

	assert_true(rodata_used + n <= sizeof(rodata));
	memcpy(rodata + rodata_used, s, n);
	rodata_used += n;
	return a;
}

static void put64(uint8_t *e, size_t off, uint64_t v)
{
	memcpy(e + off, &v, sizeof(v));
}

static void put32(uint8_t *e, size_t off, int32_t v)
{
	memcpy(e + off, &v, sizeof(v));
}

/* ---- the tables, as JDK 17.0.15 lays them out ---------------------------- */

/* VMStructEntry: typeName, fieldName, typeString, isStatic, offset, address */
#define ST_STRIDE 48
#define ST_TYPE 0
#define ST_FIELD 8
#define ST_TYPESTR 16
#define ST_STATIC 24
#define ST_OFFSET 32
#define ST_ADDRESS 40
/* VMTypeEntry: typeName, superclassName, isOopType, isIntegerType, isUnsigned, size */
#define TY_STRIDE 40
#define TY_NAME 0
#define TY_SIZE 32
/* VMIntConstantEntry: name, value */
#define IC_STRIDE 16
#define IC_NAME 0
#define IC_VALUE 8

#define STRUCTS_BASE 0x7f0000100000ull
#define TYPES_BASE 0x7f0000200000ull
#define INTS_BASE 0x7f0000300000ull

struct sfield {
	const char *type, *field, *typestr;
	uint64_t value;		/* offset, or the address of a static */
	int is_static;
};

static uint8_t structs[64 * ST_STRIDE], types[16 * TY_STRIDE], ints[8 * IC_STRIDE];

/* JDK 17's fields naming reads, with neighbours it does not */
static const struct sfield jdk17[] = {
	{ "EpsilonHeap", "_space", "ContiguousSpace*", 312, 0 },
	{ "CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", 0x7f8d2ad1c600, 1 },
	{ "CodeCache", "_low_bound", "address", 0x7f8d2ad1c620, 1 },
	{ "CodeCache", "_high_bound", "address", 0x7f8d2ad1c618, 1 },
	{ "Abstract_VM_Version", "_s_vm_release", "const char*", 0x7f8d2ad11620, 1 },
	{ "Abstract_VM_Version", "_vm_major_version", "int", 0x7f8d2acdd020, 1 },
	{ "GrowableArrayBase", "_len", "int", 0, 0 },
	{ "GrowableArrayBase", "_max", "int", 4, 0 },
	{ "GrowableArray<int>", "_data", "int*", 8, 0 },
	{ "CodeHeap", "_memory", "VirtualSpace", 8, 0 },
	{ "CodeHeap", "_segmap", "VirtualSpace", 120, 0 },
	{ "CodeHeap", "_log2_segment_size", "int", 256, 0 },
	{ "VirtualSpace", "_low_boundary", "char*", 0, 0 },
	{ "VirtualSpace", "_high_boundary", "char*", 8, 0 },
	{ "HeapBlock", "_header", "HeapBlock::Header", 0, 0 },
	{ "HeapBlock::Header", "_length", "size_t", 0, 0 },
	{ "HeapBlock::Header", "_used", "bool", 8, 0 },
	{ "CodeBlob", "_name", "const char*", 96, 0 },
	{ "CodeBlob", "_size", "int", 12, 0 },
	{ "CompiledMethod", "_method", "Method*", 112, 0 },
	{ "Method", "_constMethod", "ConstMethod*", 8, 0 },
	{ "ConstMethod", "_constants", "ConstantPool*", 8, 0 },
	{ "ConstMethod", "_name_index", "u2", 34, 0 },
	{ "ConstantPool", "_pool_holder", "InstanceKlass*", 24, 0 },
	{ "Klass", "_name", "Symbol*", 24, 0 },
	{ "Symbol", "_length", "u2", 4, 0 },
	{ "Symbol", "_body", NULL, 6, 0 },	/* unchecked_nonstatic_field: no typeString */
	{ "Symbol", "_body[0]", "u1", 6, 0 },
};

static void build_structs(const struct sfield *f, size_t n)
{
	memset(structs, 0, sizeof(structs));
	assert_true(n < sizeof(structs) / ST_STRIDE);
	/* consecutive entries of one type share its string, as the VM's literals do */
	for (size_t i = 0; i < n; i++) {
		uint8_t *e = structs + i * ST_STRIDE;
		uint64_t t = i && !strcmp(f[i - 1].type, f[i].type) ?
				     *(uint64_t *)(e - ST_STRIDE + ST_TYPE) : str(f[i].type);

		put64(e, ST_TYPE, t);
		put64(e, ST_FIELD, str(f[i].field));
		put64(e, ST_TYPESTR, f[i].typestr ? str(f[i].typestr) : 0);
		put32(e, ST_STATIC, f[i].is_static);
		put64(e, f[i].is_static ? ST_ADDRESS : ST_OFFSET, f[i].value);
	}
	/* the last entry: all NULL */
}

static void build_types(void)
{
	static const struct { const char *name; uint64_t size; } t[] = {
		{ "Klass", 208 }, { "HeapBlock", 16 }, { "ConstantPool", 72 }, { "Symbol", 8 },
	};

	memset(types, 0, sizeof(types));
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		put64(types + i * TY_STRIDE, TY_NAME, str(t[i].name));
		put64(types + i * TY_STRIDE, TY_SIZE, t[i].size);
	}
}

static void build_ints(int with_kind)
{
	memset(ints, 0, sizeof(ints));
	put64(ints, IC_NAME, str("Method::_caller_sensitive"));
	put32(ints, IC_VALUE, 1);
	if (with_kind) {
		put64(ints + IC_STRIDE, IC_NAME, str("CodeBlobKind::Nmethod"));
		put32(ints + IC_STRIDE, IC_VALUE, 1);
	}
}

static struct space space_of(size_t structs_len)
{
	struct space s = {
		.r = {
			{ STR_BASE, rodata, sizeof(rodata) },
			{ STRUCTS_BASE, structs, structs_len },
			{ TYPES_BASE, types, sizeof(types) },
			{ INTS_BASE, ints, sizeof(ints) },
		},
		.nr = 4,
	};
	return s;
}

static const struct hotspot_table structs_t = {
	.kind = HOTSPOT_STRUCTS, .base = STRUCTS_BASE, .stride = ST_STRIDE, .type_off = ST_TYPE,
	.field_off = ST_FIELD, .typestr_off = ST_TYPESTR, .static_off = ST_STATIC,
	.value_off = ST_OFFSET, .addr_off = ST_ADDRESS,
};
static const struct hotspot_table types_t = {
	.kind = HOTSPOT_TYPES, .base = TYPES_BASE, .stride = TY_STRIDE, .type_off = TY_NAME,
	.value_off = TY_SIZE,
};
static const struct hotspot_table ints_t = {
	.kind = HOTSPOT_INTS, .base = INTS_BASE, .stride = IC_STRIDE, .type_off = IC_NAME,
	.value_off = IC_VALUE,
};

/* Parse all three tables of @s into @vm. */
static void parse_all(struct space *s, struct hotspot_vm *vm)
{
	const struct hotspot_reader r = { space_read, s };

	memset(vm, 0, sizeof(*vm));
	assert_int_equal(hotspot_vm_parse(vm, &structs_t, &r), 0);
	assert_int_equal(hotspot_vm_parse(vm, &types_t, &r), 0);
	assert_int_equal(hotspot_vm_parse(vm, &ints_t, &r), 0);
}

static int setup(void **state)
{
	(void)state;
	rodata_used = 0;
	memset(rodata, 0, sizeof(rodata));
	return 0;
}

/* JDK 17's tables, types and ints, parsed into @vm; the space read (its reads counted) */
static struct space parse_jdk17(struct hotspot_vm *vm)
{
	struct space s;

	build_structs(jdk17, sizeof(jdk17) / sizeof(jdk17[0]));
	build_types();
	build_ints(0);
	s = space_of(sizeof(structs));
	parse_all(&s, vm);
	return s;
}

/* ---- tests ----------------------------------------------------------------- */

static void a_jdk17_table_gives_every_field_naming_reads(void **state)
{
	struct hotspot_vm vm;
	struct space s;
	char what[128];

	(void)state;
	s = parse_jdk17(&vm);
	assert_false(hotspot_vm_missing(&vm, what, sizeof(what)));
	/* a static: its address; a field: its offset */
	assert_int_equal(vm.v[HS_CC_HEAPS], 0x7f8d2ad1c600);
	assert_int_equal(vm.v[HS_VM_MAJOR], 0x7f8d2acdd020);
	assert_int_equal(vm.v[HS_HEAP_SEGMAP], 120);
	assert_int_equal(vm.v[HS_HEAP_LOG2_SEG], 256);
	assert_int_equal(vm.v[HS_BLOB_NAME], 96);
	assert_int_equal(vm.v[HS_NM_METHOD], 112);	/* CompiledMethod::_method, JDK < 23 */
	assert_int_equal(vm.v[HS_CM_NAME], 34);
	assert_int_equal(vm.v[HS_SYM_LENGTH], 4);
	assert_int_equal(vm.v[HS_SYM_BODY], 6);
	assert_int_equal(vm.v[HS_HB_SIZE], 16);				/* types: sizeof */
	assert_int_equal(vm.v[HS_CP_SIZE], 72);
	assert_int_equal(vm.v[HS_HB_USED], 8);
	/* no _kind before JDK 23: optional, and so is its constant */
	assert_false(hotspot_vm_has(&vm, HS_BLOB_KIND));
	assert_false(hotspot_vm_has(&vm, HS_KIND_NMETHOD));
	/* each type's name is read once, not once an entry */
	assert_true(s.reads < 2 * sizeof(jdk17) / sizeof(jdk17[0]) + 20);
}

static void a_field_whose_type_changed_is_missing_not_misread(void **state)
{
	struct sfield f[sizeof(jdk17) / sizeof(jdk17[0])];
	struct hotspot_vm vm;
	struct space s;
	char what[128];

	(void)state;
	memcpy(f, jdk17, sizeof(f));
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(f[i].field, "_name_index"))
			f[i].typestr = "u4";	/* wider: reading 2 bytes would be a guess */
	build_structs(f, sizeof(f) / sizeof(f[0]));
	build_types();
	build_ints(0);
	s = space_of(sizeof(structs));
	parse_all(&s, &vm);
	assert_true(hotspot_vm_missing(&vm, what, sizeof(what)));
	assert_string_equal(what, "ConstMethod::_name_index (u2)");
}

static void a_jdk23_blob_kind_needs_its_constant(void **state)
{
	struct sfield f[sizeof(jdk17) / sizeof(jdk17[0]) + 1];
	struct hotspot_vm vm;
	struct space s;
	char what[128];
	size_t n = sizeof(jdk17) / sizeof(jdk17[0]);

	(void)state;
	memcpy(f, jdk17, sizeof(jdk17));
	/* JDK 23+: nmethod::_method, and CodeBlob::_kind */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].type, "CompiledMethod"))
			f[i] = (struct sfield){ "nmethod", "_method", "Method*", 80, 0 };
	f[n++] = (struct sfield){ "CodeBlob", "_kind", "CodeBlobKind", 56, 0 };
	build_structs(f, n);
	build_types();
	build_ints(0);
	s = space_of(sizeof(structs));
	parse_all(&s, &vm);
	assert_int_equal(vm.v[HS_NM_METHOD], 80);
	assert_true(hotspot_vm_missing(&vm, what, sizeof(what)));
	assert_string_equal(what, "CodeBlobKind::Nmethod");
	/* with it, complete */
	rodata_used = 0;
	build_structs(f, n);
	build_types();
	build_ints(1);
	parse_all(&s, &vm);
	assert_false(hotspot_vm_missing(&vm, what, sizeof(what)));
	assert_int_equal(vm.v[HS_KIND_NMETHOD], 1);
	assert_int_equal(vm.v[HS_BLOB_KIND], 56);
}

static void a_missing_field_is_named_with_its_type(void **state)
{
	struct hotspot_vm vm;
	struct space s;
	char what[128];

	(void)state;
	/* everything up to, not including, Symbol::_length */
	build_structs(jdk17, sizeof(jdk17) / sizeof(jdk17[0]) - 3);
	build_types();
	build_ints(0);
	s = space_of(sizeof(structs));
	parse_all(&s, &vm);
	assert_true(hotspot_vm_missing(&vm, what, sizeof(what)));
	assert_string_equal(what, "Symbol::_length (u2)");
	/* no types table: a size is named as one */
	memset(&vm, 0, sizeof(vm));
	vm.found = ~0ull & ~(1ull << HS_CP_SIZE);
	assert_true(hotspot_vm_missing(&vm, what, sizeof(what)));
	assert_string_equal(what, "sizeof(ConstantPool)");
}

/* @f alone as the structs table, parsed into *@vm (which starts empty) */
static void parse_structs(const struct sfield *f, size_t n, struct hotspot_vm *vm)
{
	struct space s;
	const struct hotspot_reader r = { space_read, &s };

	build_structs(f, n);
	s = space_of(sizeof(structs));
	memset(vm, 0, sizeof(*vm));
	assert_int_equal(hotspot_vm_parse(vm, &structs_t, &r), 0);
}

static void a_static_and_an_instance_field_are_not_confused(void **state)
{
	static const struct sfield f[] = {
		/* _heaps as an instance field: not what the VM exports, so not taken */
		{ "CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", 16, 0 },
		{ "CodeBlob", "_name", "const char*", 96, 1 },
	};
	struct hotspot_vm vm;

	(void)state;
	parse_structs(f, 2, &vm);
	assert_false(hotspot_vm_has(&vm, HS_CC_HEAPS));
	assert_false(hotspot_vm_has(&vm, HS_BLOB_NAME));
}

/*
 * The tables are the target's memory: an offset no real layout has (one
 * that would wrap the sums indexing sym/hotspot.c's buffers) is missing,
 * not taken; a sane one beside it is.
 */
static void an_offset_no_vm_has_is_refused_as_missing(void **state)
{
	static const struct sfield f[] = {
		{ "CodeBlob", "_name", "const char*", UINT64_MAX - 8, 0 },
		{ "Symbol", "_length", "u2", 4, 0 },
	};
	struct hotspot_vm vm;

	(void)state;
	parse_structs(f, 2, &vm);
	assert_false(hotspot_vm_has(&vm, HS_BLOB_NAME));
	assert_true(hotspot_vm_has(&vm, HS_SYM_LENGTH));
	assert_int_equal(vm.v[HS_SYM_LENGTH], 4);
}

/*
 * The walk's fields (collect/hotspot_walk.c): JDK 23 made
 * _frame_complete_offset an int16_t and the code's start an int offset;
 * each spelling fills its own slot, checked by its C++ type.
 */
static void a_field_two_jdks_spell_with_two_types_fills_the_slot_of_its_type(void **state)
{
	static const struct sfield jdk17w[] = {
		{ "CodeBlob", "_frame_complete_offset", "int", 20, 0 },
		{ "CodeBlob", "_frame_size", "int", 28, 0 },
		{ "CodeBlob", "_code_begin", "address", 40, 0 },
		{ "AbstractInterpreter", "_code", "StubQueue*", 0x7f8d2ad1c700, 1 },
		{ "StubQueue", "_stub_buffer", "address", 8, 0 },
		{ "StubQueue", "_buffer_limit", "int", 16, 0 },
	};
	static const struct sfield jdk25w[] = {
		{ "CodeBlob", "_code_offset", "int", 28, 0 },
		{ "CodeBlob", "_frame_complete_offset", "int16_t", 32, 0 },
		{ "CodeBlob", "_frame_size", "int", 40, 0 },
	};
	static const struct sfield neither[] = {
		{ "CodeBlob", "_frame_complete_offset", "long", 20, 0 },
	};
	struct hotspot_vm vm;
	char what[128];

	(void)state;
	parse_structs(jdk17w, sizeof(jdk17w) / sizeof(jdk17w[0]), &vm);
	assert_true(hotspot_vm_has(&vm, HS_BLOB_FRAME_DONE));
	assert_false(hotspot_vm_has(&vm, HS_BLOB_FRAME_DONE16));
	assert_int_equal(vm.v[HS_BLOB_FRAME_DONE], 20);
	assert_int_equal(vm.v[HS_BLOB_CODE_BEGIN], 40);
	assert_int_equal(vm.v[HS_INTERP_CODE], 0x7f8d2ad1c700);
	/* all but the interpreter's sender sp constant (the ints table was not read) */
	assert_true(hotspot_vm_walk_missing(&vm, what, sizeof(what)));
	assert_string_equal(what, "frame::interpreter_frame_sender_sp_offset");
	vm.found |= 1ull << HS_FRAME_SENDER_SP;
	assert_false(hotspot_vm_walk_missing(&vm, what, sizeof(what)));

	parse_structs(jdk25w, sizeof(jdk25w) / sizeof(jdk25w[0]), &vm);
	assert_false(hotspot_vm_has(&vm, HS_BLOB_FRAME_DONE));
	assert_true(hotspot_vm_has(&vm, HS_BLOB_FRAME_DONE16));
	assert_int_equal(vm.v[HS_BLOB_FRAME_DONE16], 32);
	assert_true(hotspot_vm_has(&vm, HS_BLOB_CODE_OFFSET));
	assert_true(hotspot_vm_walk_missing(&vm, what, sizeof(what)));
	assert_string_equal(what, "AbstractInterpreter::_code (*)");

	/* a type neither JDK has: missing, not misread */
	parse_structs(neither, 1, &vm);
	assert_false(hotspot_vm_has(&vm, HS_BLOB_FRAME_DONE));
	assert_false(hotspot_vm_has(&vm, HS_BLOB_FRAME_DONE16));
	assert_true(hotspot_vm_walk_missing(&vm, what, sizeof(what)));
	assert_string_equal(what, "CodeBlob::_frame_size (int)");
	vm.found |= 1ull << HS_BLOB_FRAME_SIZE;
	assert_true(hotspot_vm_walk_missing(&vm, what, sizeof(what)));
	assert_string_equal(what, "CodeBlob::_frame_complete_offset (int)");
}

/* naming does not need the walk's fields: a VM without them is still named */
static void naming_does_not_need_the_walks_fields(void **state)
{
	struct hotspot_vm vm;
	char what[128];

	(void)state;
	parse_jdk17(&vm);
	assert_false(hotspot_vm_missing(&vm, what, sizeof(what)));
	assert_true(hotspot_vm_walk_missing(&vm, what, sizeof(what)));
}

static void field_lookup_knows_both_names_of_a_renamed_field(void **state)
{
	(void)state;
	assert_int_equal(hotspot_vm_slot(HOTSPOT_STRUCTS, "nmethod", "_method"), HS_NM_METHOD);
	assert_int_equal(hotspot_vm_slot(HOTSPOT_STRUCTS, "CompiledMethod", "_method"),
			 HS_NM_METHOD);
	assert_int_equal(hotspot_vm_slot(HOTSPOT_STRUCTS, "GenericGrowableArray", "_len"),
			 HS_GA_LEN);
	assert_int_equal(hotspot_vm_slot(HOTSPOT_STRUCTS, "GrowableArrayBase", "_len"), HS_GA_LEN);
	assert_int_equal(hotspot_vm_slot(HOTSPOT_TYPES, "HeapBlock", NULL), HS_HB_SIZE);
	assert_int_equal(hotspot_vm_slot(HOTSPOT_INTS, "CodeBlobKind::Nmethod", NULL),
			 HS_KIND_NMETHOD);
	/* what naming does not read, and a type name in the wrong table */
	assert_int_equal(hotspot_vm_slot(HOTSPOT_STRUCTS, "nmethod", "_entry_bci"), -1);
	assert_int_equal(hotspot_vm_slot(HOTSPOT_STRUCTS, "HeapBlock", "_nonexistent"), -1);
	assert_int_equal(hotspot_vm_slot(HOTSPOT_TYPES, "CodeBlob", NULL), -1);
	assert_string_equal(hotspot_vm_slot_type(HS_SYM_LENGTH), "u2");
	assert_null(hotspot_vm_slot_type(HS_SYM_BODY));
}

static void a_table_that_cannot_be_one_is_refused(void **state)
{
	struct hotspot_table t = structs_t;
	struct hotspot_vm vm = {};
	struct space s;
	const struct hotspot_reader r = { space_read, &s };

	(void)state;
	build_structs(jdk17, 4);
	s = space_of(sizeof(structs));
	t.stride = 0;
	assert_int_equal(hotspot_vm_parse(&vm, &t, &r), -EINVAL);
	t = structs_t;
	t.addr_off = ST_STRIDE;	/* a field past the entry */
	assert_int_equal(hotspot_vm_parse(&vm, &t, &r), -EINVAL);
	t = structs_t;
	t.base = 0;
	assert_int_equal(hotspot_vm_parse(&vm, &t, &r), -EINVAL);
	/* no terminating entry before the memory ends: unreadable, not a guess */
	build_structs(jdk17, sizeof(jdk17) / sizeof(jdk17[0]));
	s = space_of(sizeof(jdk17) / sizeof(jdk17[0]) * ST_STRIDE);
	assert_int_equal(hotspot_vm_parse(&vm, &structs_t, &r), -EFAULT);
}

static void a_table_ending_next_to_an_unreadable_page_is_read(void **state)
{
	struct hotspot_vm vm = {};
	struct space s;
	const struct hotspot_reader r = { space_read, &s };
	size_t n = sizeof(jdk17) / sizeof(jdk17[0]);

	(void)state;
	build_structs(jdk17, n);
	/* the mapping ends right after the NULL entry: a batch read comes back short */
	s = space_of((n + 1) * ST_STRIDE);
	assert_int_equal(hotspot_vm_parse(&vm, &structs_t, &r), 0);
	assert_true(hotspot_vm_has(&vm, HS_SYM_BODY));
}

static void symbols_become_java_names(void **state)
{
	char buf[64];

	(void)state;
	hotspot_java_name("java/lang/String", 16, "indexOf", 7, buf, sizeof(buf));
	assert_string_equal(buf, "java.lang.String.indexOf");
	hotspot_java_name("HotCold", 7, "alpha", 5, buf, sizeof(buf));
	assert_string_equal(buf, "HotCold.alpha");
	/* a lambda's hidden class: its address dropped, one name for every instance */
	hotspot_java_name("HotCold$$Lambda$14/0x0000000800c03000", 37, "run", 3, buf, sizeof(buf));
	assert_string_equal(buf, "HotCold$$Lambda$14.run");
	hotspot_java_name("a/B$$Lambda/0x00007f3c", 22, "get", 3, buf, sizeof(buf));
	assert_string_equal(buf, "a.B$$Lambda.get");
	/* as the klass's Symbol spells it (JDK 17, seen in an interpreted frame) */
	hotspot_java_name("HotCold$$Lambda$14+0x00007fed88000a08", 37, "run", 3, buf, sizeof(buf));
	assert_string_equal(buf, "HotCold$$Lambda$14.run");
	hotspot_java_name("a+0x", 4, "m", 1, buf, sizeof(buf));
	assert_string_equal(buf, "a+0x.m");
	/* "/0x" with nothing after is no address */
	hotspot_java_name("a/0x", 4, "m", 1, buf, sizeof(buf));
	assert_string_equal(buf, "a.0x.m");
	/* <init>, and bytes that would break a folded line */
	hotspot_java_name("p/Q", 3, "<init>", 6, buf, sizeof(buf));
	assert_string_equal(buf, "p.Q.<init>");
	hotspot_java_name("p/Q;x", 5, "a\nb", 3, buf, sizeof(buf));
	assert_string_equal(buf, "p.Q?x.a?b");
	/* not NUL-terminated input, cut to the buffer */
	hotspot_java_name("java/util/HashMapXXXX", 17, "getNodeXXX", 7, buf, 12);
	assert_string_equal(buf, "java.util.H");
	hotspot_blob_text("StubRoutines (2)", buf, sizeof(buf));
	assert_string_equal(buf, "StubRoutines (2)");
	hotspot_blob_text("a;b\tc", buf, sizeof(buf));
	assert_string_equal(buf, "a?b?c");
}

/* A segment map filled as heap.cpp's mark_segmap_as_used() fills it (no joins). */
static void mark_used(uint8_t *map, size_t beg, size_t end)
{
	if (end - beg <= 0xfe + 1) {
		for (size_t i = beg; i < end; i++)
			map[i] = (uint8_t)(i - beg);	/* the template 0, 1, 2, ... */
		return;
	}
	map[beg] = 0;
	for (size_t i = beg + 1, k = 0; i < end; i++, k = (k + 1) % 0xfe)
		map[i] = (uint8_t)(k + 1);		/* then 1..0xfe over and over */
}

static void the_segment_map_walks_back_to_the_block_start(void **state)
{
	uint8_t map[2048];
	uint64_t seg;

	(void)state;
	memset(map, HOTSPOT_SEG_FREE, sizeof(map));
	mark_used(map, 0, 3);		/* a small blob */
	mark_used(map, 3, 1500);	/* a big one (the interpreter): several hops */
	/* 1500..1600 free */
	mark_used(map, 1600, 1601);	/* one segment */
	/* a joined free block made used again: "(m-1) m 1 2 ..." is valid too */
	mark_used(map, 1700, 1710);
	map[1710] = (uint8_t)(map[1709] + 1);
	for (int i = 1711; i < 1720; i++)
		map[i] = (uint8_t)(i - 1710 + 1);

	for (uint64_t s = 0; s < 3; s++) {
		seg = s;
		assert_int_equal(hotspot_segmap_walk(map, 0, sizeof(map), &seg), 0);
		assert_int_equal(seg, 0);
	}
	for (uint64_t s = 3; s < 1500; s += 7) {
		seg = s;
		assert_int_equal(hotspot_segmap_walk(map, 0, sizeof(map), &seg), 0);
		assert_int_equal(seg, 3);
	}
	seg = 1600;
	assert_int_equal(hotspot_segmap_walk(map, 0, sizeof(map), &seg), 0);
	assert_int_equal(seg, 1600);
	seg = 1719;
	assert_int_equal(hotspot_segmap_walk(map, 0, sizeof(map), &seg), 0);
	assert_int_equal(seg, 1700);
	/* a free segment holds no blob */
	seg = 1550;
	assert_int_equal(hotspot_segmap_walk(map, 0, sizeof(map), &seg), -ENOENT);
}

static void a_walk_leaving_its_window_says_where_to_go_on(void **state)
{
	uint8_t map[2048];
	uint64_t seg = 1400, first = 1400 - 255;
	int err, reads = 0;

	(void)state;
	memset(map, HOTSPOT_SEG_FREE, sizeof(map));
	mark_used(map, 3, 1500);
	/* windows of 256 bytes ending at the segment, as sym/hotspot.c reads them */
	do {
		first = seg >= 255 ? seg - 255 : 0;
		err = hotspot_segmap_walk(map + first, first, (size_t)(seg - first + 1), &seg);
		reads++;
	} while (err == -EAGAIN && reads < 32);
	assert_int_equal(err, 0);
	assert_int_equal(seg, 3);
	assert_true(reads >= 2 && reads <= 7);
	/* a segment outside the window is not looked at */
	seg = 10;
	assert_int_equal(hotspot_segmap_walk(map + 100, 100, 50, &seg), -EAGAIN);
	assert_int_equal(seg, 10);
	/* a step past segment 0 is garbage, not a block */
	map[0] = 5;
	seg = 0;
	assert_int_equal(hotspot_segmap_walk(map, 0, 1, &seg), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(a_jdk17_table_gives_every_field_naming_reads, setup),
		cmocka_unit_test_setup(a_field_whose_type_changed_is_missing_not_misread, setup),
		cmocka_unit_test_setup(a_jdk23_blob_kind_needs_its_constant, setup),
		cmocka_unit_test_setup(a_missing_field_is_named_with_its_type, setup),
		cmocka_unit_test_setup(a_static_and_an_instance_field_are_not_confused, setup),
		cmocka_unit_test_setup(an_offset_no_vm_has_is_refused_as_missing, setup),
		cmocka_unit_test(field_lookup_knows_both_names_of_a_renamed_field),
		cmocka_unit_test_setup(a_field_two_jdks_spell_with_two_types_fills_the_slot_of_its_type,
				       setup),
		cmocka_unit_test_setup(naming_does_not_need_the_walks_fields, setup),
		cmocka_unit_test_setup(a_table_that_cannot_be_one_is_refused, setup),
		cmocka_unit_test_setup(a_table_ending_next_to_an_unreadable_page_is_read, setup),
		cmocka_unit_test(symbols_become_java_names),
		cmocka_unit_test(the_segment_map_walks_back_to_the_block_start),
		cmocka_unit_test(a_walk_leaving_its_window_says_where_to_go_on),
	};

	return cmocka_run_group_tests_name("hotspot", tests, NULL, NULL);
}
