// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ELF symbols against fixtures compiled at test time (sources in tests/fixtures/sym/):
 * PIE, non-PIE, shared library, stripped objects with separate debug files
 * found by debuglink and by build-id, and stripped objects without any, where
 * the answer must be "not found" rather than a neighbour's name.
 */
#include "sym/elf_syms.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixtures/sym/fixture_elf.h"
#include "sym/demangle.h"

static char tmp[64];		/* fixtures are built here once per run */

static int build_fixtures(void **state)
{
	const char *cflags = "-O1 -g -fno-inline -fno-toplevel-reorder -Wl,--build-id";

	(void)state;
	strcpy(tmp, "/tmp/hc-elf-syms-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	return fx_sh("cd %s && cc %s -fPIE -pie -rdynamic -o prog_pie %s/prog.c", tmp, cflags,
		     FX_DIR) ||
	       fx_sh("cd %s && cc %s -fno-pie -no-pie -o prog_nopie %s/prog.c", tmp, cflags,
		     FX_DIR) ||
	       fx_sh("cd %s && cc %s -shared -fPIC -o libfx.so %s/lib.c", tmp, cflags, FX_DIR) ||
	       fx_sh("cd %s && c++ -O1 -g -fPIE -pie -o cxx %s/cxx.cpp", tmp, FX_DIR) ||
	       fx_sh("mkdir %s/empty", tmp) ||
	       /* stripped + debuglink to a sibling file */
	       fx_sh("mkdir %s/dl && cd %s/dl && objcopy --only-keep-debug ../prog_pie prog.debug"
		     " && objcopy --strip-all --add-gnu-debuglink=prog.debug ../prog_pie prog",
		     tmp, tmp) ||
	       /* stripped + debuglink to .debug/ */
	       fx_sh("mkdir -p %s/dl2/.debug && cd %s/dl2 && cp ../dl/prog.debug . && objcopy"
		     " --strip-all --add-gnu-debuglink=prog.debug ../prog_pie prog &&"
		     " mv prog.debug .debug/", tmp, tmp) ||
	       /* stripped + debuglink whose CRC no longer matches */
	       fx_sh("mkdir %s/badcrc && cp %s/dl/prog %s/dl/prog.debug %s/badcrc/ &&"
		     " printf x >> %s/badcrc/prog.debug", tmp, tmp, tmp, tmp, tmp) ||
	       /* stripped, no debuglink: only <debug_root>/.build-id/xx/yyyy.debug */
	       fx_sh("mkdir %s/bid && objcopy --strip-all %s/prog_pie %s/bid/prog && "
		     "id=$(readelf -n %s/prog_pie | sed -n 's/.*Build ID: //p') && "
		     "d=%s/droot/.build-id/$(echo $id | cut -c1-2) && mkdir -p $d && "
		     "objcopy --only-keep-debug %s/prog_pie $d/$(echo $id | cut -c3-).debug",
		     tmp, tmp, tmp, tmp, tmp, tmp) ||
	       /* stripped library, no debug file anywhere */
	       fx_sh("mkdir %s/strip && objcopy --strip-all %s/libfx.so %s/strip/libfx.so", tmp,
		     tmp, tmp) ||
	       /* MiniDebugInfo: .gnu_debugdata only; and one whose xz is garbage */
	       fx_sh("mkdir %s/mini && %s/minidebuginfo.sh %s/prog_pie %s/mini/prog && "
		     "printf 'not xz' > %s/mini/bad.xz && objcopy --add-section "
		     ".gnu_debugdata=%s/mini/bad.xz %s/bid/prog %s/mini/bad", tmp, FX_DIR, tmp, tmp,
		     tmp, tmp, tmp, tmp) ||
	       fx_sh("printf 'not an ELF file\\n' > %s/text.txt && head -c 200 %s/libfx.so > "
		     "%s/truncated.so", tmp, tmp, tmp);
}

static int remove_fixtures(void **state)
{
	(void)state;
	if (tmp[0])
		fx_sh("rm -rf %s", tmp);
	return 0;
}

/* Open tmp/@rel with debug files searched under tmp/@debug_root. */
static struct elf_syms *open_fixture(const char *rel, const char *debug_root)
{
	char path[256], droot[256];
	struct elf_syms_opts o = { .path = path, .debug_root = droot };
	struct elf_syms *es;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	snprintf(droot, sizeof(droot), "%s/%s", tmp, debug_root);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	es = elf_syms__open(fd, &o);
	if (!es)
		fail_msg("cannot open fixture '%s': %s", path, strerror(errno));
	return es;
}

/* Offset and size of @name in the unstripped fixture tmp/@ref. */
static void ref_sym(const char *ref, const char *name, uint64_t *off, uint64_t *size)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tmp, ref);
	assert_true(fx_sym_off(path, name, off, size));
	assert_true(*size > 2);
}

/* First, middle and last byte of @name (from @ref) must be named @want (NULL: unknown). */
static void assert_fn(struct elf_syms *es, const char *ref, const char *name, const char *want)
{
	uint64_t off = 0, size = 0, at[3], sym_off = 0;
	const char *got;
	size_t i;

	ref_sym(ref, name, &off, &size);
	at[0] = off;
	at[1] = off + size / 2;
	at[2] = off + size - 1;
	for (i = 0; i < 3; i++) {
		got = elf_syms__lookup_off(es, at[i], &sym_off);
		if (!want && got)
			fail_msg("%s+0x%llx: expected not found, got '%s'", name,
				 (unsigned long long)(at[i] - off), got);
		if (want && !got)
			fail_msg("%s+0x%llx: expected '%s', got not found", name,
				 (unsigned long long)(at[i] - off), want);
		if (want) {
			assert_string_equal(got, want);
			assert_int_equal(sym_off, at[i] - off);
		}
	}
}

static void pie_executable_names_global_and_static_functions(void **state)
{
	struct elf_syms *es = open_fixture("prog_pie", "empty");

	(void)state;
	assert_int_equal(elf_syms__load(es), 0);
	assert_true(elf_syms__nr(es) >= 4);
	assert_null(elf_syms__debug_path(es));	/* has .symtab: no search */
	assert_fn(es, "prog_pie", "fx_global_a", "fx_global_a");
	assert_fn(es, "prog_pie", "fx_static_b", "fx_static_b");
	assert_fn(es, "prog_pie", "fx_global_c", "fx_global_c");
	assert_fn(es, "prog_pie", "main", "main");
	elf_syms__free(es);
}

static void non_pie_executable_maps_offsets_through_its_load_address(void **state)
{
	struct elf_syms *es = open_fixture("prog_nopie", "empty");
	uint64_t off = 0, size = 0, vaddr = 0;

	(void)state;
	ref_sym("prog_nopie", "fx_global_a", &off, &size);
	assert_int_equal(elf_syms__off_to_vaddr(es, off, &vaddr), 0);
	assert_true(vaddr >= 0x400000);	/* linked at the traditional base */
	assert_fn(es, "prog_nopie", "fx_global_a", "fx_global_a");
	assert_fn(es, "prog_nopie", "fx_static_b", "fx_static_b");
	assert_fn(es, "prog_nopie", "fx_global_c", "fx_global_c");
	elf_syms__free(es);
}

static void shared_library_names_its_functions(void **state)
{
	struct elf_syms *es = open_fixture("libfx.so", "empty");
	size_t len;

	(void)state;
	assert_non_null(elf_syms__build_id(es, &len));
	assert_int_equal(len, 20);
	assert_fn(es, "libfx.so", "lib_a", "lib_a");
	assert_fn(es, "libfx.so", "lib_static_b", "lib_static_b");
	assert_fn(es, "libfx.so", "lib_c", "lib_c");
	assert_fn(es, "libfx.so", "lib_after_nosize", "lib_after_nosize");
	assert_fn(es, "libfx.so", "lib_d", "lib_d");
	elf_syms__free(es);
}

static void stripped_binary_names_static_function_from_debuglink_file(void **state)
{
	struct elf_syms *es = open_fixture("dl/prog", "empty");

	(void)state;
	assert_non_null(elf_syms__debug_path(es));
	assert_non_null(strstr(elf_syms__debug_path(es), "/dl/prog.debug"));
	assert_fn(es, "prog_pie", "fx_static_b", "fx_static_b");
	assert_fn(es, "prog_pie", "fx_global_a", "fx_global_a");
	elf_syms__free(es);
}

static void debuglink_file_is_also_found_in_the_dot_debug_directory(void **state)
{
	struct elf_syms *es = open_fixture("dl2/prog", "empty");

	(void)state;
	assert_non_null(elf_syms__debug_path(es));
	assert_non_null(strstr(elf_syms__debug_path(es), "/dl2/.debug/prog.debug"));
	assert_fn(es, "prog_pie", "fx_static_b", "fx_static_b");
	elf_syms__free(es);
}

static void stripped_binary_finds_its_debug_file_by_build_id(void **state)
{
	struct elf_syms *es = open_fixture("bid/prog", "droot");

	(void)state;
	assert_non_null(elf_syms__debug_path(es));
	assert_non_null(strstr(elf_syms__debug_path(es), "/droot/.build-id/"));
	assert_fn(es, "prog_pie", "fx_static_b", "fx_static_b");
	assert_fn(es, "prog_pie", "fx_global_c", "fx_global_c");
	elf_syms__free(es);
}

/* Does @fd refer to the file tmp/@rel? */
static bool same_file(int fd, const char *rel)
{
	char path[256];
	struct stat a, b;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Source lines need the DWARF after load: the debug file's, else the object's own. */
static void the_dwarf_fd_is_the_debug_files_else_the_objects(void **state)
{
	struct elf_syms *own = open_fixture("prog_pie", "empty");
	struct elf_syms *dl = open_fixture("dl/prog", "empty");
	struct elf_syms *none = open_fixture("strip/libfx.so", "empty");
	int fd;

	(void)state;
	assert_int_equal(elf_syms__take_dwarf_fd(own), -ENOENT);	/* before load */
	assert_int_equal(elf_syms__load(own), 0);
	fd = elf_syms__take_dwarf_fd(own);
	assert_true(fd >= 0 && same_file(fd, "prog_pie"));
	close(fd);
	assert_int_equal(elf_syms__take_dwarf_fd(own), -ENOENT);	/* taken */
	assert_int_equal(elf_syms__load(dl), 0);
	fd = elf_syms__take_dwarf_fd(dl);
	assert_true(fd >= 0 && same_file(fd, "dl/prog.debug"));
	close(fd);
	/* stripped, no debug file: nothing to keep (negative control) */
	assert_int_equal(elf_syms__load(none), 0);
	assert_int_equal(elf_syms__take_dwarf_fd(none), -ENOENT);
	elf_syms__free(own);
	elf_syms__free(dl);
	elf_syms__free(none);
}

static void minidebuginfo_names_a_static_function_of_a_stripped_binary(void **state)
{
	struct elf_syms *es = open_fixture("mini/prog", "empty");

	(void)state;
	assert_null(elf_syms__debug_path(es));
	assert_fn(es, "prog_pie", "fx_static_b", "fx_static_b");
	assert_true(elf_syms__minidebug(es));
	/* exports still come from .dynsym */
	assert_fn(es, "prog_pie", "fx_global_a", "fx_global_a");
	elf_syms__free(es);
}

static void corrupt_minidebuginfo_names_nothing_and_breaks_nothing(void **state)
{
	struct elf_syms *es = open_fixture("mini/bad", "empty");

	(void)state;
	assert_fn(es, "prog_pie", "fx_static_b", NULL);
	assert_false(elf_syms__minidebug(es));
	elf_syms__free(es);
}

/* A debuginfod answer that comes after the first lookup: the same object names more. */
static void debug_file_added_after_load_names_what_was_unnamed(void **state)
{
	struct elf_syms *es = open_fixture("bid/prog", "empty");
	char path[512], wrong[256];
	const uint8_t *id;
	size_t len, n;

	(void)state;
	assert_fn(es, "prog_pie", "fx_static_b", NULL);
	id = elf_syms__build_id(es, &len);
	assert_non_null(id);
	n = (size_t)snprintf(path, sizeof(path), "%s/droot/.build-id/%02x/", tmp, id[0]);
	for (size_t i = 1; i < len; i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	/* another object's file (other build-id) is refused */
	snprintf(wrong, sizeof(wrong), "%s/libfx.so", tmp);
	assert_int_equal(elf_syms__add_debug_file(es, wrong), -ENOENT);
	assert_fn(es, "prog_pie", "fx_static_b", NULL);
	assert_int_equal(elf_syms__add_debug_file(es, path), 0);
	assert_fn(es, "prog_pie", "fx_static_b", "fx_static_b");
	assert_fn(es, "prog_pie", "fx_global_a", "fx_global_a");
	assert_string_equal(elf_syms__debug_path(es), path);
	assert_int_equal(elf_syms__add_debug_file(es, path), -EEXIST);
	elf_syms__free(es);
}

static void debuglink_file_with_wrong_crc_is_ignored(void **state)
{
	struct elf_syms *es = open_fixture("badcrc/prog", "empty");

	(void)state;
	assert_null(elf_syms__debug_path(es));
	/* .dynsym still names the exports; the static function is just unknown */
	assert_fn(es, "prog_pie", "fx_global_a", "fx_global_a");
	assert_fn(es, "prog_pie", "fx_static_b", NULL);
	elf_syms__free(es);
}

static void stripped_library_never_names_a_static_function_after_an_export(void **state)
{
	struct elf_syms *es = open_fixture("strip/libfx.so", "empty");

	(void)state;
	assert_null(elf_syms__debug_path(es));
	assert_fn(es, "libfx.so", "lib_a", "lib_a");
	assert_fn(es, "libfx.so", "lib_static_b", NULL);
	assert_fn(es, "libfx.so", "lib_c", "lib_c");
	elf_syms__free(es);
}

/* Every byte of lib_static_b is in one FDE function: its start and size. */
static void stripped_library_groups_an_unnamed_function_by_its_fde(void **state)
{
	struct elf_syms *es = open_fixture("strip/libfx.so", "empty");
	uint64_t off = 0, size = 0, start = 0, fsize = 0;

	(void)state;
	ref_sym("libfx.so", "lib_static_b", &off, &size);
	assert_int_equal(elf_syms__load(es), 0);
	for (uint64_t at = off; at < off + size; at++) {
		assert_int_equal(elf_syms__fde_func(es, at, &start, &fsize), 0);
		assert_int_equal(start, off);
		assert_int_equal(fsize, size);
	}
	/* the next function is another one */
	ref_sym("libfx.so", "lib_c", &off, &size);
	assert_int_equal(elf_syms__fde_func(es, off, &start, &fsize), 0);
	assert_int_equal(start, off);
	elf_syms__free(es);
}

static void object_with_symtab_keeps_no_fde_functions(void **state)
{
	struct elf_syms *es = open_fixture("libfx.so", "empty");
	uint64_t off = 0, size = 0, start, fsize;

	(void)state;
	ref_sym("libfx.so", "lib_static_b", &off, &size);
	assert_int_equal(elf_syms__load(es), 0);
	assert_int_equal(elf_syms__fde_func(es, off, &start, &fsize), -ENOENT);
	elf_syms__free(es);
}

static void size_zero_symbol_ends_where_the_next_function_starts(void **state)
{
	struct elf_syms *es = open_fixture("strip/libfx.so", "empty");
	uint64_t nosize_off = 0, after_off = 0, size = 0;
	char path[256];

	(void)state;
	ref_sym("libfx.so", "lib_after_nosize", &after_off, &size);
	snprintf(path, sizeof(path), "%s/libfx.so", tmp);
	assert_true(fx_sym_off(path, "lib_nosize", &nosize_off, &size));
	/* layout precondition of the fixture: asm stub, then the static function */
	assert_int_equal(size, 0);
	assert_true(nosize_off < after_off && after_off - nosize_off < 64);
	assert_string_equal(elf_syms__lookup_off(es, nosize_off, NULL), "lib_nosize");
	/* .dynsym alone would stretch lib_nosize over lib_after_nosize: .eh_frame_hdr stops it */
	assert_fn(es, "libfx.so", "lib_after_nosize", NULL);
	assert_fn(es, "libfx.so", "lib_d", "lib_d");
	elf_syms__free(es);
}

/* ld.so's _start is such a label: named when nothing sized encloses it */
static void untyped_assembly_label_is_named(void **state)
{
	struct elf_syms *es = open_fixture("libfx.so", "empty");
	uint64_t off = 0, size = 0;
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/libfx.so", tmp);
	assert_true(fx_sym_off(path, "lib_label", &off, &size));
	assert_string_equal(elf_syms__lookup_off(es, off + 1, NULL), "lib_label");
	/* and it does not take over a sized function */
	assert_fn(es, "libfx.so", "lib_d", "lib_d");
	elf_syms__free(es);
}

static void cxx_names_demangle_to_namespace_method_and_template(void **state)
{
	struct elf_syms *es = open_fixture("cxx", "empty");
	char buf[256];

	(void)state;
	assert_fn(es, "cxx", "_ZNK2ns6Widget4frobEi", "_ZNK2ns6Widget4frobEi");
	assert_fn(es, "cxx", "_ZN2ns5twiceIiEET_S1_", "_ZN2ns5twiceIiEET_S1_");
	assert_int_equal(demangle_into("_ZNK2ns6Widget4frobEi", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "ns::Widget::frob(int) const");
	assert_int_equal(demangle_into("_ZN2ns5twiceIiEET_S1_", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "int ns::twice<int>(int)");
	elf_syms__free(es);
}

static void rust_names_demangle_without_the_hash(void **state)
{
	char buf[256];

	(void)state;
	assert_int_equal(demangle_into("_ZN4core3fmt9Formatter3pad17h5f0b2a7c9d3e1f04E", buf,
				       sizeof(buf)), 0);
	assert_string_equal(buf, "core::fmt::Formatter::pad");
	assert_int_equal(demangle_into("_RNvNtCs1234_7mycrate3sub3foo", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mycrate::sub::foo");
}

static void demangling_leaves_c_names_and_truncates_safely(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(demangle_into("main", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(demangle_into("_Zgarbage", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(demangle_into("_ZNK2ns6Widget4frobEi", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "ns::Wid");
	assert_int_equal(demangle_into("_ZN3foo3barE", buf, 0), -ENOSPC);
}

static void vdso_image_from_memory_names_its_functions(void **state)
{
	uint64_t start = 0, end = 0, vaddr = 0, size = 0, off = 0;
	struct elf_syms *es;
	Elf *elf;

	(void)state;
	if (!fx_own_vdso(&start, &end)) {
		skip();
		return;
	}
	es = elf_syms__open_mem((const void *)(uintptr_t)start, end - start);
	assert_non_null(es);
	elf = elf_memory((char *)(uintptr_t)start, end - start);
	assert_non_null(elf);
	assert_true(fx_elf_sym(elf, "__vdso_clock_gettime", &vaddr, &size));
	assert_true(fx_vaddr_to_off(elf, vaddr, &off));
	elf_end(elf);
	/* the weak alias clock_gettime loses to the global __vdso_ name */
	assert_string_equal(elf_syms__lookup_off(es, off + 1, NULL), "__vdso_clock_gettime");
	elf_syms__free(es);
}

static void system_libc_local_function_is_named_from_debian_debug_file(void **state)
{
	uint64_t vaddr = 0, size = 0, off = 0;
	struct elf_syms *es;
	char *libc = NULL;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	Elf *delf, *lelf;
	int dfd, lfd;

	(void)state;
	f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	while (!libc && getline(&line, &cap, f) > 0) {
		char *p = strchr(line, '/');

		if (p && strstr(p, "/libc.so.6")) {
			p[strcspn(p, "\n")] = '\0';
			libc = strdup(p);
		}
	}
	free(line);
	fclose(f);
	assert_non_null(libc);
	lfd = open(libc, O_RDONLY | O_CLOEXEC);
	assert_true(lfd >= 0);
	es = elf_syms__open(dup(lfd), &(struct elf_syms_opts){ .path = libc });
	assert_non_null(es);
	if (!elf_syms__debug_path(es)) {
		elf_syms__free(es);
		close(lfd);
		free(libc);
		skip();	/* libc6-dbg is not installed */
		return;
	}
	/* _int_malloc is static in malloc.c: only the debug file knows it */
	dfd = open(elf_syms__debug_path(es), O_RDONLY | O_CLOEXEC);
	delf = elf_begin(dfd, ELF_C_READ, NULL);
	lelf = elf_begin(lfd, ELF_C_READ, NULL);
	assert_true(fx_elf_sym(delf, "_int_malloc", &vaddr, &size));
	assert_true(fx_vaddr_to_off(lelf, vaddr, &off));
	assert_string_equal(elf_syms__lookup_off(es, off + size / 2, NULL), "_int_malloc");
	/* aliases of malloc: the global name without underscores wins */
	assert_true(fx_elf_sym(delf, "malloc", &vaddr, &size));
	assert_true(fx_vaddr_to_off(lelf, vaddr, &off));
	assert_string_equal(elf_syms__lookup_off(es, off + 1, NULL), "malloc");
	elf_end(delf);
	elf_end(lelf);
	close(dfd);
	close(lfd);
	elf_syms__free(es);
	free(libc);
}

static void non_elf_file_is_rejected_and_its_fd_closed(void **state)
{
	char path[256];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/text.txt", tmp);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	errno = 0;
	assert_null(elf_syms__open(fd, NULL));
	assert_int_equal(errno, ENOEXEC);
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
}

static void truncated_elf_is_rejected_without_crashing(void **state)
{
	char path[256];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/truncated.so", tmp);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_null(elf_syms__open(fd, NULL));
}

static void offset_outside_every_segment_is_not_found(void **state)
{
	struct elf_syms *es = open_fixture("libfx.so", "empty");
	uint64_t vaddr;

	(void)state;
	assert_int_equal(elf_syms__off_to_vaddr(es, 1ull << 40, &vaddr), -ENOENT);
	assert_null(elf_syms__lookup_off(es, 1ull << 40, NULL));
	assert_null(elf_syms__lookup(es, 0, NULL));
	assert_null(elf_syms__lookup(es, UINT64_MAX, NULL));
	elf_syms__free(es);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pie_executable_names_global_and_static_functions),
		cmocka_unit_test(non_pie_executable_maps_offsets_through_its_load_address),
		cmocka_unit_test(shared_library_names_its_functions),
		cmocka_unit_test(stripped_binary_names_static_function_from_debuglink_file),
		cmocka_unit_test(debuglink_file_is_also_found_in_the_dot_debug_directory),
		cmocka_unit_test(stripped_binary_finds_its_debug_file_by_build_id),
		cmocka_unit_test(the_dwarf_fd_is_the_debug_files_else_the_objects),
		cmocka_unit_test(minidebuginfo_names_a_static_function_of_a_stripped_binary),
		cmocka_unit_test(corrupt_minidebuginfo_names_nothing_and_breaks_nothing),
		cmocka_unit_test(debug_file_added_after_load_names_what_was_unnamed),
		cmocka_unit_test(debuglink_file_with_wrong_crc_is_ignored),
		cmocka_unit_test(stripped_library_never_names_a_static_function_after_an_export),
		cmocka_unit_test(stripped_library_groups_an_unnamed_function_by_its_fde),
		cmocka_unit_test(object_with_symtab_keeps_no_fde_functions),
		cmocka_unit_test(size_zero_symbol_ends_where_the_next_function_starts),
		cmocka_unit_test(untyped_assembly_label_is_named),
		cmocka_unit_test(cxx_names_demangle_to_namespace_method_and_template),
		cmocka_unit_test(rust_names_demangle_without_the_hash),
		cmocka_unit_test(demangling_leaves_c_names_and_truncates_safely),
		cmocka_unit_test(vdso_image_from_memory_names_its_functions),
		cmocka_unit_test(system_libc_local_function_is_named_from_debian_debug_file),
		cmocka_unit_test(non_elf_file_is_rejected_and_its_fd_closed),
		cmocka_unit_test(truncated_elf_is_rejected_without_crashing),
		cmocka_unit_test(offset_outside_every_segment_is_not_found),
	};

	return cmocka_run_group_tests_name("elf_syms", tests, build_fixtures, remove_fixtures);
}
