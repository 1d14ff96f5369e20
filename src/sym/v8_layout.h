/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A V8's object and frame layout as its binary exports it for postmortem
 * debuggers: the v8dbg_* data symbols (tools/gen-postmortem-metadata.py in
 * V8; node and libnode.so always carry them), each an int the symbol's
 * name says the meaning of ("v8dbg_class_JSFunction__shared__SharedFunctionInfo"
 * = 24: the field's offset). Kept by name, what naming and the BPF walk
 * need; a table without one of them, or of a build whose tagging we do not
 * know (pointer compression), is refused, not guessed.
 */
#ifndef HC_SYM_V8_LAYOUT_H
#define HC_SYM_V8_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum v8_field {
	/* frames (frame-constants.h): offsets from fp */
	V8_FP_FUNCTION,
	V8_FP_CONTEXT,
	/* object fields: offsets from the object's (untagged) address */
	V8_HEAPOBJECT_MAP,
	V8_MAP_INSTANCE_TYPE,
	V8_JSFUNCTION_SHARED,
	V8_SFI_NAME_OR_SCOPE_INFO,
	V8_STRING_LENGTH,
	V8_SEQ_ONE_BYTE_CHARS,
	V8_SEQ_TWO_BYTE_CHARS,
	V8_CONS_FIRST,
	V8_CONS_SECOND,
	V8_THIN_ACTUAL,
	V8_SLICED_PARENT,
	V8_SLICED_OFFSET,
	V8_SFI_SCRIPT,		/* optional, with the two below: the script a name shows */
	V8_SCRIPT_NAME,
	/* instance types */
	V8_TYPE_SFI,
	V8_TYPE_SCOPE_INFO,
	V8_TYPE_SCRIPT,
	V8_FIRST_NONSTRING_TYPE,
	/* a string's instance type: representation and encoding bits */
	V8_STRING_REP_MASK,
	V8_STRING_ENC_MASK,
	V8_SEQ_STRING_TAG,
	V8_CONS_STRING_TAG,
	V8_THIN_STRING_TAG,
	V8_SLICED_STRING_TAG,
	V8_ONE_BYTE_TAG,
	V8_TWO_BYTE_TAG,
	/* ScopeInfo: slot indexes */
	V8_SCOPEINFO_FIRST_VARS,
	V8_SCOPEINFO_NCONTEXTLOCALS,
	/* tagging: checked, not used (the BPF side and naming assume V8's 64-bit defaults) */
	V8_HEAP_OBJECT_TAG,
	V8_HEAP_OBJECT_TAG_MASK,
	V8_SMI_TAG_MASK,
	V8_SMI_SHIFT_SIZE,
	V8_TAGGED_SIZE,
	V8_NR_FIELDS
};

struct v8_layout {
	int64_t v[V8_NR_FIELDS];
	uint64_t have;			/* bit per enum v8_field set */
	/* the embedded builtins' code, vaddrs in the binary; 0, 0: not known */
	uint64_t blob_vaddr, blob_size;
};

/* The symbol name of @f ("v8dbg_off_fp_function"). */
const char *v8_layout_name(enum v8_field f);

/* Empty (nothing set). */
void v8_layout_init(struct v8_layout *l);

/* Keep @value if @name is a symbol the layout wants: true if it was. */
bool v8_layout_set(struct v8_layout *l, const char *name, int64_t value);

static inline bool v8_layout_has(const struct v8_layout *l, enum v8_field f)
{
	return l->have >> f & 1;
}

/*
 * Is @l complete and of a tagging we know? 0, or -EPERM with what is wrong
 * in @why ("v8dbg_off_fp_function missing").
 */
int v8_layout_check(const struct v8_layout *l, char *why, size_t why_len);

#endif /* HC_SYM_V8_LAYOUT_H */
