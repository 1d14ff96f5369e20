// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A V8's v8dbg_* table, kept by name and checked (see v8_layout.h). */
#include "sym/v8_layout.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The names V8 11 (Node 20) gives them */
static const char *const names[V8_NR_FIELDS] = {
	[V8_FP_FUNCTION] = "v8dbg_off_fp_function",
	[V8_FP_CONTEXT] = "v8dbg_off_fp_context",
	[V8_HEAPOBJECT_MAP] = "v8dbg_class_HeapObject__map__Map",
	[V8_MAP_INSTANCE_TYPE] = "v8dbg_class_Map__instance_type__uint16_t",
	[V8_JSFUNCTION_SHARED] = "v8dbg_class_JSFunction__shared__SharedFunctionInfo",
	[V8_SFI_NAME_OR_SCOPE_INFO] = "v8dbg_class_SharedFunctionInfo__name_or_scope_info__Object",
	[V8_STRING_LENGTH] = "v8dbg_class_String__length__int32_t",
	[V8_SEQ_ONE_BYTE_CHARS] = "v8dbg_class_SeqOneByteString__chars__char",
	[V8_SEQ_TWO_BYTE_CHARS] = "v8dbg_class_SeqTwoByteString__chars__char",
	[V8_CONS_FIRST] = "v8dbg_class_ConsString__first__String",
	[V8_CONS_SECOND] = "v8dbg_class_ConsString__second__String",
	[V8_THIN_ACTUAL] = "v8dbg_class_ThinString__actual__String",
	[V8_SLICED_PARENT] = "v8dbg_class_SlicedString__parent__String",
	[V8_SLICED_OFFSET] = "v8dbg_class_SlicedString__offset__SMI",
	[V8_SFI_SCRIPT] = "v8dbg_class_SharedFunctionInfo__script_or_debug_info__HeapObject",
	[V8_SCRIPT_NAME] = "v8dbg_class_Script__name__Object",
	[V8_TYPE_SFI] = "v8dbg_type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE",
	[V8_TYPE_SCOPE_INFO] = "v8dbg_type_ScopeInfo__SCOPE_INFO_TYPE",
	[V8_TYPE_SCRIPT] = "v8dbg_type_Script__SCRIPT_TYPE",
	[V8_FIRST_NONSTRING_TYPE] = "v8dbg_FirstNonstringType",
	[V8_STRING_REP_MASK] = "v8dbg_StringRepresentationMask",
	[V8_STRING_ENC_MASK] = "v8dbg_StringEncodingMask",
	[V8_SEQ_STRING_TAG] = "v8dbg_SeqStringTag",
	[V8_CONS_STRING_TAG] = "v8dbg_ConsStringTag",
	[V8_THIN_STRING_TAG] = "v8dbg_ThinStringTag",
	[V8_SLICED_STRING_TAG] = "v8dbg_SlicedStringTag",
	[V8_ONE_BYTE_TAG] = "v8dbg_OneByteStringTag",
	[V8_TWO_BYTE_TAG] = "v8dbg_TwoByteStringTag",
	[V8_SCOPEINFO_FIRST_VARS] = "v8dbg_scopeinfo_idx_first_vars",
	[V8_SCOPEINFO_NCONTEXTLOCALS] = "v8dbg_scopeinfo_idx_ncontextlocals",
	[V8_HEAP_OBJECT_TAG] = "v8dbg_HeapObjectTag",
	[V8_HEAP_OBJECT_TAG_MASK] = "v8dbg_HeapObjectTagMask",
	[V8_SMI_TAG_MASK] = "v8dbg_SmiTagMask",
	[V8_SMI_SHIFT_SIZE] = "v8dbg_SmiShiftSize",
	[V8_TAGGED_SIZE] = "v8dbg_TaggedSize",
};

/* Newer V8s (12.x) spell a field's type as Tagged<T> */
static const struct {
	enum v8_field f;
	const char *name;
} aliases[] = {
	{ V8_SFI_NAME_OR_SCOPE_INFO,
	  "v8dbg_class_SharedFunctionInfo__name_or_scope_info__Tagged_Object_" },
	{ V8_SFI_NAME_OR_SCOPE_INFO,
	  "v8dbg_class_SharedFunctionInfo__name_or_scope_info__Tagged_NameOrScopeInfoT_" },
	{ V8_SFI_SCRIPT,
	  "v8dbg_class_SharedFunctionInfo__script_or_debug_info__Tagged_HeapObject_" },
	{ V8_SCRIPT_NAME, "v8dbg_class_Script__name__Tagged_Object_" },
};

/*
 * Fields not every build exports, used when there: sliced strings (else
 * unnamed), the script (else a name without it)
 */
#define V8_OPTIONAL (1ull << V8_SLICED_PARENT | 1ull << V8_SLICED_OFFSET | \
		     1ull << V8_TAGGED_SIZE | 1ull << V8_SFI_SCRIPT | 1ull << V8_SCRIPT_NAME | \
		     1ull << V8_TYPE_SCRIPT)

_Static_assert(V8_NR_FIELDS <= 64, "v8_layout::have holds a bit per field");

const char *v8_layout_name(enum v8_field f)
{
	return f < V8_NR_FIELDS ? names[f] : "?";
}

void v8_layout_init(struct v8_layout *l)
{
	memset(l, 0, sizeof(*l));
}

bool v8_layout_set(struct v8_layout *l, const char *name, int64_t value)
{
	for (int f = 0; f < V8_NR_FIELDS; f++) {
		if (strcmp(name, names[f]))
			continue;
		l->v[f] = value;
		l->have |= 1ull << f;
		return true;
	}
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		if (strcmp(name, aliases[i].name))
			continue;
		l->v[aliases[i].f] = value;
		l->have |= 1ull << aliases[i].f;
		return true;
	}
	return false;
}

/* a field offset or index that fits what the readers read: small, non-negative */
static bool small(int64_t v)
{
	return v >= 0 && v < 4096;
}

int v8_layout_check(const struct v8_layout *l, char *why, size_t why_len)
{
	const int64_t *v = l->v;

	for (int f = 0; f < V8_NR_FIELDS; f++) {
		if (!v8_layout_has(l, f) && !(V8_OPTIONAL >> f & 1)) {
			snprintf(why, why_len, "%s missing", names[f]);
			return -EPERM;
		}
	}
	/* 64-bit tagging without pointer compression (Node's default build) */
	if (v[V8_HEAP_OBJECT_TAG] != 1 || v[V8_HEAP_OBJECT_TAG_MASK] != 3 ||
	    v[V8_SMI_TAG_MASK] != 1 || v[V8_SMI_SHIFT_SIZE] != 31 ||
	    (v8_layout_has(l, V8_TAGGED_SIZE) && v[V8_TAGGED_SIZE] != 8)) {
		snprintf(why, why_len, "tagging not V8's 64-bit one (TaggedSize %lld, SmiShiftSize "
			 "%lld: pointer compression?)", (long long)v[V8_TAGGED_SIZE],
			 (long long)v[V8_SMI_SHIFT_SIZE]);
		return -EPERM;
	}
	/* the frame slots the BPF walk reads, and object fields naming reads */
	if (v[V8_FP_FUNCTION] >= 0 || v[V8_FP_FUNCTION] < -256 || v[V8_FP_CONTEXT] >= 0 ||
	    v[V8_FP_CONTEXT] < -256) {
		snprintf(why, why_len, "frame slots fp%+lld, fp%+lld not below fp",
			 (long long)v[V8_FP_FUNCTION], (long long)v[V8_FP_CONTEXT]);
		return -EPERM;
	}
	for (int f = V8_HEAPOBJECT_MAP; f <= V8_SCRIPT_NAME; f++) {
		if (v8_layout_has(l, f) && !small(v[f])) {
			snprintf(why, why_len, "%s = %lld", names[f], (long long)v[f]);
			return -EPERM;
		}
	}
	return 0;
}
