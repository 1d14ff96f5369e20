// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * .eh_frame -> unwind rows (src/unwind/cfi.c) against ELF files compiled at
 * test time from the source below, with and without frame pointers, and
 * against the system's libc. Expected rules come from the instruction bytes
 * and symbols of the fixtures (read with plain libelf), not from libdw, so
 * the table is not checked against the library that built it.
 */
#include "unwind/cfi.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures/sym/fixture_elf.h"

#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"
/*
 * Debian 12's libc (2.36) has 5 rows whose CFA is neither rsp/rbp + offset
 * nor the PLT expression, all in hand-written asm where a sample is rare and
 * the walk ending is acceptable:
 *   __longjmp, __longjmp_cancel, ____longjmp_chk   CFA = %rdi (jmp_buf restored)
 *   setcontext                                     CFA = %rdx (ucontext)
 *   __restore_rt                                   CFA = *(%rsp + 160): the signal
 *       frame; a walk from inside a signal handler stops there
 * and 2 rows where the return address is not at CFA-8: __libc_vfork, which
 * pops it into %rdi around the syscall. Raise these, with the reason, only
 * after looking at what a libc update added.
 */
#define LIBC_MAX_UNSUP_CFA 5
#define LIBC_MAX_BAD_RA 2

/*
 * The fixture. Each function's code is checked byte for byte before its rows
 * are: if a compiler update changes a prologue the test says so instead of
 * asserting on a guess.
 */
/* clang-format off */
static const char fixture_src[] =
	"#include <stdio.h>\n"
	"#include <unistd.h>\n"
	"#define NOINLINE __attribute__((noinline))\n"
	/* 4 bytes (lea; ret) then padding to the next 16-byte aligned function */
	"NOINLINE int pad_me(int x) { return x + 1; }\n"
	/* nofp: sub $0x108,%rsp first; fp: push %rbp; mov %rsp,%rbp first */
	"NOINLINE int big_frame(int n)\n"
	"{\n"
	"	volatile char buf[256];\n"
	"	buf[0] = (char)n;\n"
	"	return puts((const char *)buf) + buf[1];\n"
	"}\n"
	"NOINLINE long callee(long a, long b) { return a * b + getpid(); }\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	return big_frame(argc) + pad_me(argc) + (int)callee(argc, 3) + puts(argv[0]);\n"
	"}\n";
/* clang-format on */

static const char *const fixture_funcs[] = {"pad_me", "big_frame", "callee", "main"};

/*
 * glibc's lazy-binding trampoline (_dl_runtime_resolve_xsavec) in small:
 * %rbx keeps the stack pointer while the stack is realigned, and the CFA is
 * defined by %rbx; its callee saves %rbx within the row's reach, another
 * function too far below the CFA for a row to hold.
 */
static const char realign_src[] =
	"	.text\n"
	"	.globl saves_rbx\n"
	"	.type saves_rbx,@function\n"
	"saves_rbx:\n"
	"	.cfi_startproc\n"
	"	push %rbx\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbx, -16\n"
	"	mov $7, %ebx\n"
	"	mov %ebx, %eax\n"
	"	pop %rbx\n"
	"	.cfi_def_cfa_offset 8\n"
	"	.cfi_restore %rbx\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size saves_rbx, .-saves_rbx\n"
	"	.globl realign\n"
	"	.type realign,@function\n"
	"realign:\n"
	"	.cfi_startproc\n"
	"	push %rbx\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbx, -16\n"
	"	mov %rsp, %rbx\n"
	"	.cfi_def_cfa_register %rbx\n"
	"	and $-64, %rsp\n"
	"	call saves_rbx\n"
	"	mov %rbx, %rsp\n"
	"	.cfi_def_cfa_register %rsp\n"
	"	pop %rbx\n"
	"	.cfi_def_cfa_offset 8\n"
	"	.cfi_restore %rbx\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size realign, .-realign\n"
	"	.globl far_rbx\n"
	"	.type far_rbx,@function\n"
	"far_rbx:\n"
	"	.cfi_startproc\n"
	"	sub $200, %rsp\n"
	"	.cfi_def_cfa_offset 208\n"
	"	mov %rbx, (%rsp)\n"
	"	.cfi_offset %rbx, -208\n"
	"	mov (%rsp), %rbx\n"
	"	add $200, %rsp\n"
	"	.cfi_def_cfa_offset 8\n"
	"	.cfi_restore %rbx\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size far_rbx, .-far_rbx\n"
	"	.section .note.GNU-stack,\"\",@progbits\n";

static char tmp[64]; /* fixtures are built here once per run */

/* tmp/@name with @text; 0 or -1 */
static int write_fixture(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	f = fopen(path, "w");
	return f && fputs(text, f) >= 0 && !fclose(f) ? 0 : -1;
}

static int build_fixtures(void **state)
{
	const char *cc = "cc -O2 -g -fno-pie -no-pie -fcf-protection=none";
	char path[128];
	FILE *f;

	(void)state;
	strcpy(tmp, "/tmp/hc-cfi-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(path, sizeof(path), "%s/fx.c", tmp);
	f = fopen(path, "w");
	if (!f || fputs(fixture_src, f) < 0 || fclose(f))
		return -1;
	return fx_sh("cd %s && %s -fomit-frame-pointer -o nofp fx.c", tmp, cc) ||
	       fx_sh("cd %s && %s -fno-omit-frame-pointer -o fp fx.c", tmp, cc) ||
	       /* a PIE too: rows are in ELF vaddrs, whatever the load address */
	       fx_sh("cd %s && cc -O2 -fPIE -pie -fomit-frame-pointer -o pie fx.c", tmp) ||
	       fx_sh("cd %s && objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr"
		     " nofp no_ehframe",
		     tmp) ||
	       /* no unwind tables: CFI only in .debug_frame (crt's .eh_frame aside) */
	       fx_sh("cd %s && %s -fomit-frame-pointer -fno-asynchronous-unwind-tables "
		     "-fno-unwind-tables -o dbgframe fx.c",
		     tmp, cc) ||
	       /* and split off into a separate debug file, as distributions ship it */
	       fx_sh("cd %s && objcopy --only-keep-debug dbgframe dbgframe.debug && "
		     "objcopy --strip-debug dbgframe dbgframe.stripped",
		     tmp) ||
	       write_fixture("realign.S", realign_src) ||
	       fx_sh("cd %s && cc -shared -nostdlib -o realign.so realign.S", tmp) ||
	       /* e_machine (offset 18, little-endian u16) = EM_AARCH64 (183) */
	       fx_sh("cd %s && cp nofp aarch64 && printf '\\267\\000' | dd of=aarch64 bs=1 "
		     "seek=18 conv=notrunc status=none",
		     tmp);
}

static int remove_fixtures(void **state)
{
	(void)state;
	if (tmp[0])
		fx_sh("rm -rf %s", tmp);
	return 0;
}

/* tmp/@name; a few calls' results stay valid at once (rotating buffers). */
static const char *fixture(const char *name)
{
	static char path[4][128];
	static unsigned int next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", tmp, name);
	return p;
}

/* Build @path's table, with @debug_path's .debug_frame if not NULL. */
static int build_with(const char *path, const char *debug_path, struct cfi_table *t)
{
	Elf *elf, *dbg = NULL;
	int fd, dfd = -1, err;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("cannot open '%s': %s", path, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	if (debug_path) {
		dfd = open(debug_path, O_RDONLY | O_CLOEXEC);
		assert_true(dfd >= 0);
		dbg = elf_begin(dfd, ELF_C_READ, NULL);
		assert_non_null(dbg);
	}
	err = cfi_table_build_with(elf, dbg, t);
	if (dbg) {
		elf_end(dbg);
		close(dfd);
	}
	elf_end(elf);
	close(fd);
	return err;
}

/* Build @path's table: cfi_table_build()'s return value. */
static int build(const char *path, struct cfi_table *t)
{
	return build_with(path, NULL, t);
}

static void build_ok(const char *path, struct cfi_table *t)
{
	int err = build(path, t);

	if (err)
		fail_msg("cfi_table_build('%s'): %s", path, strerror(-err));
	if (!t->nr)
		fail_msg("'%s': no rows", path);
}

/* @len bytes of @path at ELF virtual address @vaddr. */
static void func_bytes(const char *path, uint64_t vaddr, unsigned char *buf, size_t len)
{
	uint64_t off = 0;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_true(fx_vaddr_to_off(elf, vaddr, &off));
	assert_int_equal(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	elf_end(elf);
	close(fd);
}

/* vaddr and size of symbol @name in @path; the bytes at its start in @code. */
static void func(const char *path, const char *name, uint64_t *vaddr, uint64_t *size,
		 unsigned char *code, size_t code_len)
{
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	if (!fx_elf_sym(elf, name, vaddr, size))
		fail_msg("no symbol '%s' in '%s'", name, path);
	elf_end(elf);
	close(fd);
	if (code)
		func_bytes(path, *vaddr, code, code_len);
}

static const char *cfa_name(int cfa)
{
	static const char *const n[] = {"NONE", "RSP", "RBP", "PLT", "END", "UNSUP", "RBX"};

	return cfa >= 0 && cfa < (int)(sizeof(n) / sizeof(n[0])) ? n[cfa] : "?";
}

/* The row covering @pc must be exactly (cfa, cfa_off, rbp, rbp_off). */
static void expect_row(const struct cfi_table *t, uint64_t pc, const char *what, int cfa,
		       int32_t cfa_off, int rbp, int16_t rbp_off)
{
	const struct cfi_row *r = cfi_table_find(t, pc);

	if (!r)
		fail_msg("%s (pc 0x%llx): no row", what, (unsigned long long)pc);
	if (r->cfa != cfa || (cfa != CFI_CFA_NONE && cfa != CFI_CFA_END &&
			      (r->cfa_off != cfa_off || r->rbp != rbp || r->rbp_off != rbp_off)))
		fail_msg("%s (pc 0x%llx, row at 0x%llx): got CFA %s%+d rbp rule %d%+d, "
			 "expected CFA %s%+d rbp rule %d%+d",
			 what, (unsigned long long)pc, (unsigned long long)r->pc, cfa_name(r->cfa),
			 r->cfa_off, r->rbp, r->rbp_off, cfa_name(cfa), cfa_off, rbp, rbp_off);
}

/* Only the CFA rule of the row covering @pc. */
static void expect_cfa(const struct cfi_table *t, uint64_t pc, const char *what, int cfa,
		       int32_t cfa_off)
{
	const struct cfi_row *r = cfi_table_find(t, pc);

	if (!r)
		fail_msg("%s (pc 0x%llx): no row", what, (unsigned long long)pc);
	if (r->cfa != cfa || r->cfa_off != cfa_off)
		fail_msg("%s (pc 0x%llx, row at 0x%llx): got CFA %s%+d, expected CFA %s%+d", what,
			 (unsigned long long)pc, (unsigned long long)r->pc, cfa_name(r->cfa),
			 r->cfa_off, cfa_name(cfa), cfa_off);
}

static void assert_sorted(const char *path, const struct cfi_table *t)
{
	for (size_t i = 1; i < t->nr; i++)
		if (t->rows[i].pc <= t->rows[i - 1].pc)
			fail_msg("'%s': row %zu pc 0x%llx after row %zu pc 0x%llx", path, i,
				 (unsigned long long)t->rows[i].pc, i - 1,
				 (unsigned long long)t->rows[i - 1].pc);
}

static void rows_are_sorted_and_strictly_increasing_in_every_table(void **state)
{
	const char *paths[] = {fixture("nofp"), fixture("fp"), fixture("pie"), LIBC_PATH};
	struct cfi_table t;

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		build_ok(paths[i], &t);
		assert_sorted(paths[i], &t);
		cfi_table_release(&t);
	}
}

/* The row covering @what+@off in @path, whose %rbx rule must be (@rbx, @rbx_off). */
static const struct cfi_row *expect_rbx(const struct cfi_table *t, const char *path,
					const char *what, uint64_t off, int rbx, int16_t rbx_off)
{
	const struct cfi_row *r;
	uint64_t vaddr = 0, size = 0;

	func(path, what, &vaddr, &size, NULL, 0);
	r = cfi_table_find(t, vaddr + off);
	if (!r || r->rbx != rbx || r->rbx_off != rbx_off)
		fail_msg("%s+%llu: rbx rule %d%+d, expected %d%+d", what, (unsigned long long)off,
			 r ? r->rbx : -1, r ? r->rbx_off : 0, rbx, rbx_off);
	return r;
}

/*
 * A CFA defined by %rbx (glibc's _dl_runtime_resolve realigns its stack so)
 * and %rbx's own rules: unchanged, saved at CFA-16, restored; a save further
 * below the CFA than a row holds is "unsupported" (counted), not a wrong
 * offset. realign: push %rbx (1 byte), mov %rsp,%rbx (3), and (4), call (5).
 */
static void a_cfa_defined_by_rbx_and_the_rbx_rules(void **state)
{
	const char *so = fixture("realign.so");
	const struct cfi_row *r;
	struct cfi_table t;

	(void)state;
	build_ok(so, &t);
	r = expect_rbx(&t, so, "realign", 0, CFI_RBP_SAME, 0);
	assert_int_equal(r->cfa, CFI_CFA_RSP);
	r = expect_rbx(&t, so, "realign", 1, CFI_RBP_AT_CFA, -16);
	assert_int_equal(r->cfa, CFI_CFA_RSP);
	assert_int_equal(r->cfa_off, 16);
	r = expect_rbx(&t, so, "realign", 4 + 4, CFI_RBP_AT_CFA, -16);	/* at the call */
	assert_int_equal(r->cfa, CFI_CFA_RBX);
	assert_int_equal(r->cfa_off, 16);
	expect_rbx(&t, so, "saves_rbx", 0, CFI_RBP_SAME, 0);
	expect_rbx(&t, so, "saves_rbx", 1, CFI_RBP_AT_CFA, -16);
	r = expect_rbx(&t, so, "far_rbx", 7 + 4, CFI_RBP_UNSUP, 0);
	assert_int_equal(r->cfa_off, 208);
	assert_true(t.st.unsup_rbx >= 1);
	assert_int_equal(t.st.unsup_cfa, 0);
	cfi_table_release(&t);
}

static void neighbouring_rows_never_repeat_the_same_rule(void **state)
{
	struct cfi_table t;

	(void)state;
	build_ok(LIBC_PATH, &t);
	for (size_t i = 1; i < t.nr; i++) {
		const struct cfi_row *a = &t.rows[i - 1], *b = &t.rows[i];

		if (a->cfa == b->cfa && a->cfa_off == b->cfa_off && a->rbp == b->rbp &&
		    a->rbp_off == b->rbp_off && a->rbx == b->rbx && a->rbx_off == b->rbx_off)
			fail_msg("rows %zu and %zu (pc 0x%llx, 0x%llx) have the same rule", i - 1,
				 i, (unsigned long long)a->pc, (unsigned long long)b->pc);
	}
	cfi_table_release(&t);
}

/* Every fixture function starts with CFA = rsp+8 (the return address at CFA-8). */
static void every_function_entry_has_the_cfa_at_rsp_plus_8(void **state)
{
	const char *const builds[] = {"nofp", "fp", "pie"};
	struct cfi_table t;
	uint64_t vaddr = 0, size = 0;
	char what[128];

	(void)state;
	for (size_t b = 0; b < 3; b++) {
		const char *path = fixture(builds[b]);

		build_ok(path, &t);
		assert_int_equal(t.st.bad_ra, 0);
		for (size_t i = 0; i < sizeof(fixture_funcs) / sizeof(fixture_funcs[0]); i++) {
			func(path, fixture_funcs[i], &vaddr, &size, NULL, 0);
			snprintf(what, sizeof(what), "%s: %s entry", builds[b], fixture_funcs[i]);
			expect_row(&t, vaddr, what, CFI_CFA_RSP, 8, CFI_RBP_SAME, 0);
		}
		cfi_table_release(&t);
	}
}

/* nofp big_frame: "sub $N,%rsp" first, so CFA = rsp+8+N from the next instruction. */
static void after_sub_rsp_the_cfa_offset_grows_by_the_frame_size(void **state)
{
	unsigned char c[7];
	struct cfi_table t;
	uint64_t vaddr = 0, size = 0;
	uint32_t n;

	(void)state;
	func(fixture("nofp"), "big_frame", &vaddr, &size, c, sizeof(c));
	if (c[0] != 0x48 || c[1] != 0x81 || c[2] != 0xec)
		fail_msg("big_frame does not start with sub $imm32,%%rsp (%02x %02x %02x): "
			 "compiler changed, update the fixture",
			 c[0], c[1], c[2]);
	n = c[3] | c[4] << 8 | c[5] << 16 | (uint32_t)c[6] << 24;
	build_ok(fixture("nofp"), &t);
	expect_row(&t, vaddr, "big_frame entry", CFI_CFA_RSP, 8, CFI_RBP_SAME, 0);
	expect_row(&t, vaddr + 6, "big_frame, sub not done", CFI_CFA_RSP, 8, CFI_RBP_SAME, 0);
	expect_row(&t, vaddr + 7, "big_frame after sub", CFI_CFA_RSP, 8 + (int32_t)n, CFI_RBP_SAME,
		   0);
	/* the last instruction (ret) is back at rsp+8 */
	expect_cfa(&t, vaddr + size - 1, "big_frame ret", CFI_CFA_RSP, 8);
	cfi_table_release(&t);
}

/*
 * fp callee: push %rbp (55); mov %rsp,%rbp (48 89 e5). After the push
 * CFA = rsp+16 with %rbp saved at CFA-16; after the mov CFA = rbp+16.
 */
static void after_push_rbp_mov_rsp_rbp_the_cfa_is_rbp_plus_16(void **state)
{
	static const unsigned char prologue[] = {0x55, 0x48, 0x89, 0xe5};
	unsigned char c[sizeof(prologue)];
	struct cfi_table t;
	uint64_t vaddr = 0, size = 0;

	(void)state;
	func(fixture("fp"), "callee", &vaddr, &size, c, sizeof(c));
	if (memcmp(c, prologue, sizeof(c)))
		fail_msg("fp callee does not start with push %%rbp; mov %%rsp,%%rbp "
			 "(%02x %02x %02x %02x): update the fixture",
			 c[0], c[1], c[2], c[3]);
	build_ok(fixture("fp"), &t);
	expect_row(&t, vaddr, "callee entry", CFI_CFA_RSP, 8, CFI_RBP_SAME, 0);
	expect_row(&t, vaddr + 1, "callee after push %rbp", CFI_CFA_RSP, 16, CFI_RBP_AT_CFA, -16);
	expect_row(&t, vaddr + 3, "callee inside mov", CFI_CFA_RSP, 16, CFI_RBP_AT_CFA, -16);
	expect_row(&t, vaddr + 4, "callee after mov %rsp,%rbp", CFI_CFA_RBP, 16, CFI_RBP_AT_CFA,
		   -16);
	/*
	 * At the ret, after pop %rbp: CFA back at rsp+8. gcc does not emit
	 * DW_CFA_restore for %rbp, so its rule may still say "at CFA-16",
	 * which reads the value just popped: right either way.
	 */
	expect_cfa(&t, vaddr + size - 1, "callee ret", CFI_CFA_RSP, 8);
	cfi_table_release(&t);
}

/* Section header of @name in @path: address and size. */
static bool section(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	bool found = false;
	GElf_Shdr sh;
	size_t shstr;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstr), 0);
	while (!found && (scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstr, sh.sh_name);
		if (n && !strcmp(n, name)) {
			*addr = sh.sh_addr;
			*size = sh.sh_size;
			found = true;
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/*
 * binutils' lazy .plt: PLT0 (push GOT+8: rsp+16, then jmp *GOT+16: rsp+24)
 * and 16-byte entries "jmp *GOT(%rip); push $n; jmp PLT0" described by one
 * expression: CFA = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0) (10 with IBT).
 */
static void the_plt_of_a_dynamically_linked_binary_decodes_as_plt_rows(void **state)
{
	const char *path = fixture("nofp");
	uint64_t plt = 0, size = 0;
	const struct cfi_row *r;
	unsigned char code[512], *e;
	struct cfi_table t;

	(void)state;
	assert_true(section(path, ".plt", &plt, &size));
	assert_true(size >= 32 && size % 16 == 0 && size <= sizeof(code));
	func_bytes(path, plt, code, size);
	build_ok(path, &t);
	expect_row(&t, plt, "PLT0 push", CFI_CFA_RSP, 16, CFI_RBP_SAME, 0);
	expect_row(&t, plt + 6, "PLT0 jmp", CFI_CFA_RSP, 24, CFI_RBP_SAME, 0);

	for (uint64_t entry = plt + 16; entry < plt + size; entry += 16) {
		e = code + (entry - plt);
		if (e[0] != 0xff || e[1] != 0x25 || e[6] != 0x68 || e[11] != 0xe9)
			fail_msg("PLT entry at 0x%llx is not jmp*/push/jmp: update the test",
				 (unsigned long long)entry);
		for (uint64_t pc = entry; pc < entry + 16; pc++) {
			int32_t want = (pc & 15) >= 11 ? 16 : 8, got;

			r = cfi_table_find(&t, pc);
			assert_non_null(r);
			if (r->cfa != CFI_CFA_PLT || (r->rbp_off != 11 && r->rbp_off != 10))
				fail_msg(
				    "pc 0x%llx: CFA rule %s threshold %d, expected PLT 11 or 10",
				    (unsigned long long)pc, cfa_name(r->cfa), r->rbp_off);
			/* evaluated the way the BPF walker does */
			got = r->cfa_off + ((int64_t)(pc & 15) >= r->rbp_off ? 8 : 0);
			if (got != want)
				fail_msg("pc 0x%llx (entry+%llu): CFA rsp%+d, expected rsp%+d",
					 (unsigned long long)pc, (unsigned long long)(pc - entry),
					 got, want);
		}
	}
	cfi_table_release(&t);
}

/* glibc's _start says DW_CFA_undefined rip: the outermost frame. */
static void start_decodes_as_the_end_of_the_stack(void **state)
{
	struct cfi_table t;
	uint64_t vaddr = 0, size = 0;

	(void)state;
	func(fixture("nofp"), "_start", &vaddr, &size, NULL, 0);
	build_ok(fixture("nofp"), &t);
	expect_row(&t, vaddr, "_start", CFI_CFA_END, 0, 0, 0);
	if (size > 1)
		expect_row(&t, vaddr + size - 1, "_start end", CFI_CFA_END, 0, 0, 0);
	cfi_table_release(&t);
}

#define LDSO_PATH "/lib64/ld-linux-x86-64.so.2"

/*
 * ld.so's _start has no FDE (glibc's RTLD_START): a walk from its start-up
 * reached _dl_start_user (the return address after "call _dl_start") with
 * no rule, stepped by frame pointer with %rbp 0 and was counted as a
 * corrupt frame (t_unwind_pending). An entry point no FDE covers is the
 * outermost frame, up to the next FDE.
 */
static void an_entry_point_without_cfi_is_the_end_of_the_stack(void **state)
{
	const struct cfi_row *r;
	struct cfi_table t;
	GElf_Ehdr eh;
	Elf *elf;
	int fd;

	(void)state;
	elf_version(EV_CURRENT);
	fd = open(LDSO_PATH, O_RDONLY);
	if (fd < 0)
		skip();
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_non_null(gelf_getehdr(elf, &eh));
	assert_int_equal(cfi_table_build(elf, &t), 0);
	elf_end(elf);
	close(fd);
	/* _start: mov %rsp,%rdi; call _dl_start; _dl_start_user: ... (61 bytes) */
	for (uint64_t off = 0; off < 48; off += 7) {
		r = cfi_table_find(&t, eh.e_entry + off);
		assert_non_null(r);
		if (r->cfa != CFI_CFA_END)
			fail_msg("ld.so entry + %llu: cfa %d, not the end of the stack",
				 (unsigned long long)off, r->cfa);
	}
	/* and no further than the next FDE: the function after it keeps its rule */
	r = cfi_table_find(&t, eh.e_entry + 256);
	assert_non_null(r);
	assert_int_not_equal(r->cfa, CFI_CFA_END);
	assert_sorted(LDSO_PATH, &t);
	cfi_table_release(&t);
}

/* Padding after pad_me (4 bytes long, next function 16-byte aligned) has no FDE. */
static void a_pc_between_fdes_gives_a_none_row(void **state)
{
	const char *const builds[] = {"nofp", "fp"};
	struct cfi_table t;
	uint64_t vaddr = 0, size = 0;

	(void)state;
	for (size_t b = 0; b < 2; b++) {
		func(fixture(builds[b]), "pad_me", &vaddr, &size, NULL, 0);
		if (size % 16 == 0)
			fail_msg("%s: pad_me is %llu bytes, no padding after it", builds[b],
				 (unsigned long long)size);
		build_ok(fixture(builds[b]), &t);
		/* the ret, in both builds (fp: after pop %rbp) */
		expect_cfa(&t, vaddr + size - 1, "pad_me ret", CFI_CFA_RSP, 8);
		expect_row(&t, vaddr + size, "padding after pad_me", CFI_CFA_NONE, 0, 0, 0);
		expect_row(&t, (vaddr + size + 15) / 16 * 16 - 1, "last padding byte", CFI_CFA_NONE,
			   0, 0, 0);
		cfi_table_release(&t);
	}
}

static void the_table_ends_with_a_none_row_after_the_last_fde(void **state)
{
	struct cfi_table t;

	(void)state;
	build_ok(fixture("nofp"), &t);
	assert_int_equal(t.rows[t.nr - 1].cfa, CFI_CFA_NONE);
	/* and a pc before the first row is covered by nothing */
	assert_null(cfi_table_find(&t, t.rows[0].pc - 1));
	assert_ptr_equal(cfi_table_find(&t, t.rows[0].pc), &t.rows[0]);
	assert_ptr_equal(cfi_table_find(&t, t.rows[1].pc - 1), &t.rows[0]);
	assert_ptr_equal(cfi_table_find(&t, UINT64_MAX), &t.rows[t.nr - 1]);
	cfi_table_release(&t);
}

static void a_file_without_eh_frame_gives_an_empty_table(void **state)
{
	struct cfi_table t;

	(void)state;
	assert_int_equal(build(fixture("no_ehframe"), &t), 0);
	assert_int_equal(t.nr, 0);
	assert_null(cfi_table_find(&t, 0x401000));
	cfi_table_release(&t);
}

/* The rows of fixture function @name in @t, pcs relative to its start, as text. */
static void func_rows(const char *path, const struct cfi_table *t, const char *name, char *out,
		      size_t len)
{
	uint64_t vaddr = 0, size = 0;
	size_t used = 0;

	func(path, name, &vaddr, &size, NULL, 0);
	out[0] = '\0';
	for (size_t i = 0; i < t->nr && used < len; i++) {
		const struct cfi_row *r = &t->rows[i];

		if (r->pc < vaddr || r->pc >= vaddr + size)
			continue;
		used += snprintf(out + used, len - used, "+%llu:%s%+d/%d%+d ",
				 (unsigned long long)(r->pc - vaddr), cfa_name(r->cfa), r->cfa_off,
				 r->rbp, r->rbp_off);
	}
}

/*
 * Built without unwind tables, the fixture's CFI is only in .debug_frame:
 * every function gets the rows the .eh_frame build gets (same code, same
 * CFI program), from the binary itself or from its separate debug file.
 */
static void debug_frame_gives_the_rows_eh_frame_would(void **state)
{
	struct cfi_table want, own, split, stripped;
	char a[2048], b[2048], what[64];
	uint64_t vaddr = 0, size = 0;

	(void)state;
	build_ok(fixture("nofp"), &want);
	build_ok(fixture("dbgframe"), &own);
	assert_true(own.st.debug_frame_fdes >= 4);
	assert_int_equal(build_with(fixture("dbgframe.stripped"), fixture("dbgframe.debug"), &split),
			 0);
	assert_true(split.st.debug_frame_fdes >= 4);
	/* stripped and alone: no CFI for the fixture's functions */
	assert_int_equal(build(fixture("dbgframe.stripped"), &stripped), 0);
	assert_int_equal(stripped.st.debug_frame_fdes, 0);
	for (size_t i = 0; i < sizeof(fixture_funcs) / sizeof(fixture_funcs[0]); i++) {
		func_rows(fixture("nofp"), &want, fixture_funcs[i], a, sizeof(a));
		assert_true(a[0]);
		func_rows(fixture("dbgframe"), &own, fixture_funcs[i], b, sizeof(b));
		if (strcmp(a, b))
			fail_msg("%s: .eh_frame rows %s, .debug_frame rows %s", fixture_funcs[i], a, b);
		func_rows(fixture("dbgframe.stripped"), &split, fixture_funcs[i], b, sizeof(b));
		if (strcmp(a, b))
			fail_msg("%s: .eh_frame rows %s, debug file rows %s", fixture_funcs[i], a, b);
		func(fixture("dbgframe.stripped"), fixture_funcs[i], &vaddr, &size, NULL, 0);
		snprintf(what, sizeof(what), "stripped %s entry", fixture_funcs[i]);
		expect_cfa(&stripped, vaddr, what, CFI_CFA_NONE, 0);
	}
	cfi_table_release(&want);
	cfi_table_release(&own);
	cfi_table_release(&split);
	cfi_table_release(&stripped);
}

static void another_machine_is_refused_with_enotsup(void **state)
{
	struct cfi_table t;

	(void)state;
	assert_int_equal(build(fixture("aarch64"), &t), -ENOTSUP);
	assert_int_equal(t.nr, 0);
}

/*
 * Debian's libc: built without frame pointers, hand-written asm included.
 * Thousands of FDEs; every CFA rule must be one the BPF walker evaluates.
 */
static void libc_builds_with_over_10000_rows_and_only_the_known_unsupported_ones(void **state)
{
	struct cfi_table t;
	size_t end = 0, plt = 0, rbp_cfa = 0;

	(void)state;
	build_ok(LIBC_PATH, &t);
	for (size_t i = 0; i < t.nr; i++) {
		end += t.rows[i].cfa == CFI_CFA_END;
		plt += t.rows[i].cfa == CFI_CFA_PLT;
		rbp_cfa += t.rows[i].cfa == CFI_CFA_RBP;
	}
	print_message("libc: %zu rows, %llu FDEs, %llu unsupported CFA rows (allowed %d), "
		      "%llu rows with RA not at CFA-8 (allowed %d), %llu unsupported rbp rules; "
		      "%zu END, %zu PLT, %zu CFA=rbp rows\n",
		      t.nr, (unsigned long long)t.st.fdes, (unsigned long long)t.st.unsup_cfa,
		      LIBC_MAX_UNSUP_CFA, (unsigned long long)t.st.bad_ra, LIBC_MAX_BAD_RA,
		      (unsigned long long)t.st.unsup_rbp, end, plt, rbp_cfa);
	assert_true(t.nr > 10000);
	assert_true(t.st.unsup_cfa <= LIBC_MAX_UNSUP_CFA);
	assert_true(t.st.bad_ra <= LIBC_MAX_BAD_RA);
	/* clone and clone3 mark the end of a new thread's stack (below start_thread) */
	assert_true(end >= 2);
	cfi_table_release(&t);
}

static void libc_pthread_mutex_lock_entry_has_the_cfa_at_rsp_plus_8(void **state)
{
	struct cfi_table t;
	uint64_t vaddr = 0, size = 0;

	(void)state;
	func(LIBC_PATH, "pthread_mutex_lock", &vaddr, &size, NULL, 0);
	build_ok(LIBC_PATH, &t);
	expect_row(&t, vaddr, "pthread_mutex_lock entry", CFI_CFA_RSP, 8, CFI_RBP_SAME, 0);
	func(LIBC_PATH, "epoll_wait", &vaddr, &size, NULL, 0);
	expect_row(&t, vaddr, "epoll_wait entry", CFI_CFA_RSP, 8, CFI_RBP_SAME, 0);
	cfi_table_release(&t);
}

/*
 * The vdso is an ELF image in memory with its own .eh_frame (no file to
 * open): the table builds from the image as the loader reads it from the
 * process's memory.
 */
static void the_vdso_image_in_memory_builds_a_table(void **state)
{
	uint64_t start = 0, end = 0;
	struct cfi_table t;
	char *img;
	Elf *elf;
	int fd;

	(void)state;
	if (!fx_own_vdso(&start, &end))
		skip();
	img = malloc(end - start);
	assert_non_null(img);
	fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, img, end - start, (off_t)start), (ssize_t)(end - start));
	close(fd);
	elf_version(EV_CURRENT);
	elf = elf_memory(img, end - start);
	assert_non_null(elf);
	assert_int_equal(cfi_table_build(elf, &t), 0);
	print_message("vdso: %zu rows, %llu FDEs\n", t.nr, (unsigned long long)t.st.fdes);
	assert_true(t.nr > 0 && t.st.fdes > 0);
	assert_int_equal(t.st.unsup_cfa, 0);
	assert_sorted("[vdso]", &t);
	cfi_table_release(&t);
	elf_end(elf);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rows_are_sorted_and_strictly_increasing_in_every_table),
	    cmocka_unit_test(neighbouring_rows_never_repeat_the_same_rule),
	    cmocka_unit_test(a_cfa_defined_by_rbx_and_the_rbx_rules),
	    cmocka_unit_test(every_function_entry_has_the_cfa_at_rsp_plus_8),
	    cmocka_unit_test(after_sub_rsp_the_cfa_offset_grows_by_the_frame_size),
	    cmocka_unit_test(after_push_rbp_mov_rsp_rbp_the_cfa_is_rbp_plus_16),
	    cmocka_unit_test(the_plt_of_a_dynamically_linked_binary_decodes_as_plt_rows),
	    cmocka_unit_test(start_decodes_as_the_end_of_the_stack),
	    cmocka_unit_test(an_entry_point_without_cfi_is_the_end_of_the_stack),
	    cmocka_unit_test(a_pc_between_fdes_gives_a_none_row),
	    cmocka_unit_test(the_table_ends_with_a_none_row_after_the_last_fde),
	    cmocka_unit_test(a_file_without_eh_frame_gives_an_empty_table),
	    cmocka_unit_test(debug_frame_gives_the_rows_eh_frame_would),
	    cmocka_unit_test(another_machine_is_refused_with_enotsup),
	    cmocka_unit_test(libc_builds_with_over_10000_rows_and_only_the_known_unsupported_ones),
	    cmocka_unit_test(libc_pthread_mutex_lock_entry_has_the_cfa_at_rsp_plus_8),
	    cmocka_unit_test(the_vdso_image_in_memory_builds_a_table),
	};

	return cmocka_run_group_tests_name("cfi", tests, build_fixtures, remove_fixtures);
}
