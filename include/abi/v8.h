/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * V8 (Node.js) JavaScript frames named by the BPF walk
 * (bpf/lib/unwind_v8.bpf.h) for processes whose layout the loader read
 * from the binary's v8dbg_* symbols (src/collect/v8_walk.c). x86-64 only.
 */
#ifndef HC_ABI_V8_H
#define HC_ABI_V8_H

/* v8_procs value, keyed by tgid */
struct hc_v8_proc {
	/*
	 * The embedded builtins' code (v8_Default_embedded_blob_code_ in the
	 * binary, + its load bias): the interpreter and the builtins run
	 * there, without CFI; 0, 0 if the binary does not say
	 */
	__u64 blob_lo, blob_hi;
	__s16 fp_function;		/* v8dbg_off_fp_function: the JSFunction, from fp (-16) */
	__s16 fp_context;		/* v8dbg_off_fp_context: or a typed frame's marker (-8) */
	__u16 fn_shared;		/* JSFunction::shared (SharedFunctionInfo) */
	__u16 sfi_name;			/* SharedFunctionInfo::name_or_scope_info */
};

/*
 * A frame of a JavaScript function (a standard frame: its context slot
 * holds a Context, not a Smi frame-type marker) is put in the walk's frame
 * in place of its pc: its function's SharedFunctionInfo, tagged.
 * HC_V8_SFI_TAG in the top byte (bit 63 clear: not a Python frame,
 * abi/python.h; not HotSpot's 0x4a, abi/hotspot.h; no user address has a
 * top byte), bits 48-55 bits 3-10 of the SharedFunctionInfo's
 * name_or_scope_info word as the walk read it, for user space to check the
 * pointer against when it names it (the heap moves and reuses memory: a
 * pointer to what is no longer that function fails the check 255 times in
 * 256), the tagged pointer's low 48 bits below. The SharedFunctionInfo, not
 * the JSFunction: every closure of a function is one frame.
 */
#define HC_V8_SFI_TAG		(0x56ull << 56)
#define HC_V8_SFI_TAG_MASK	(0xffull << 56)
#define HC_V8_SFI_CHECK_SHIFT	48
#define HC_V8_SFI_PTR_MASK	((1ull << 48) - 1)
/* V8's tagging (include/v8-internal.h): a heap object's address + 1; a Smi's low bit 0 */
#define HC_V8_HEAP_TAG_MASK	3ull
#define HC_V8_HEAP_TAG		1ull

static inline __attribute__((always_inline)) __u64 hc_v8_sfi_check(__u64 name_word)
{
	return (name_word >> 3) & 0xff;
}

static inline __attribute__((always_inline)) __u64 hc_v8_sfi_frame(__u64 sfi, __u64 name_word)
{
	return HC_V8_SFI_TAG | hc_v8_sfi_check(name_word) << HC_V8_SFI_CHECK_SHIFT |
	       (sfi & HC_V8_SFI_PTR_MASK);
}

static inline __attribute__((always_inline)) int hc_v8_is_sfi_frame(__u64 v)
{
	return (v & HC_V8_SFI_TAG_MASK) == HC_V8_SFI_TAG;
}

#endif /* HC_ABI_V8_H */
