// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The symbolizer facade end to end: a real child process named after it
 * exited, a fake /proc tree for the fallback paths and limits, the vdso of
 * this process, kernel names from a kallsyms fixture. Also the keymap.
 */
#include "sym/symbolizer.h"
#include "sym/procmaps.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures/sym/fixture_elf.h"
#include "sym/keymap.h"
#include "sym/objtab.h"
#include "sym/srcline.h"

#define FAKE_PID 4242
#define CT_PID 4343		/* fake containerized process: pid 7 in its namespace */
#define CT_ESCAPE_PID 4344	/* same, but its /tmp is a symlink pointing outside */
#define LIB_BASE 0x10000000ull
#define OTHER_BASE 0x20000000ull
#define ANON_BASE 0x30000000ull
#define GONE_BASE 0x40000000ull
#define DATA_BASE 0x50000000ull		/* a mapped file that is no ELF (memfd-like JIT) */

static char tmp[64];
static char fake_root[128];	/* a /proc look-alike: FAKE_PID/{maps,status,root/} */

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Fake process FAKE_PID maps libfx.so, another library, anon memory, a deleted file. */
static int build_fake_proc(void)
{
	char path[256], maps[2048];
	struct stat lib, other, data;
	int n;

	snprintf(path, sizeof(path), "%s/%d/root/lib/libfx.so", fake_root, FAKE_PID);
	if (stat(path, &lib))
		return -1;
	snprintf(path, sizeof(path), "%s/%d/root/lib/other.so", fake_root, FAKE_PID);
	if (stat(path, &other))
		return -1;
	snprintf(path, sizeof(path), "%s/%d/root/lib/code.bin", fake_root, FAKE_PID);
	if (write_file(path, "not an ELF object\n") || stat(path, &data))
		return -1;
	n = snprintf(maps, sizeof(maps),
		     "%llx-%llx r-xp 00000000 fd:01 %llu /lib/libfx.so\n"
		     "this line is garbage\n"
		     "%llx-%llx r-xp 00000000 fd:01 %llu /lib/other.so\n"
		     "%llx-%llx rwxp 00000000 00:00 0 \n"
		     "%llx-%llx r-xp 00000000 fd:01 999 /lib/gone.so (deleted)\n"
		     "%llx-%llx r-xs 00000000 fd:01 %llu /lib/code.bin\n",
		     LIB_BASE, LIB_BASE + 0x10000, (unsigned long long)lib.st_ino, OTHER_BASE,
		     OTHER_BASE + 0x10000, (unsigned long long)other.st_ino, ANON_BASE,
		     ANON_BASE + 0x1000, GONE_BASE, GONE_BASE + 0x1000, DATA_BASE,
		     DATA_BASE + 0x1000, (unsigned long long)data.st_ino);
	if (n >= (int)sizeof(maps))
		return -1;
	snprintf(path, sizeof(path), "%s/%d/maps", fake_root, FAKE_PID);
	if (write_file(path, maps))
		return -1;
	/* the fake process runs as someone else: its perf map must not be ours */
	snprintf(path, sizeof(path), "%s/%d/status", fake_root, FAKE_PID);
	snprintf(maps, sizeof(maps), "Name:\tfake\nUid:\t%u\t%u\t%u\t%u\n", 12345u, 12345u,
		 12345u, 12345u);
	if (write_file(path, maps))
		return -1;
	snprintf(path, sizeof(path), "%s/perf-%d.map", tmp, FAKE_PID);
	snprintf(maps, sizeof(maps), "%llx 100 planted_name\n", ANON_BASE);
	if (write_file(path, maps))
		return -1;
	/* as root the file would be root-owned, which is trusted: give it away */
	if (!geteuid() && chown(path, 54321, 54321))
		return -1;
	return 0;
}

/* A process in a pid namespace, with anon exec memory and its own /tmp. */
static int build_fake_container(uint32_t pid, bool escape)
{
	char path[256], text[512];

	if (fx_sh("mkdir -p %s/%u/root", fake_root, pid))
		return -1;
	snprintf(path, sizeof(path), "%s/%u/maps", fake_root, pid);
	snprintf(text, sizeof(text), "%llx-%llx r-xp 00000000 00:00 0 \n", ANON_BASE,
		 ANON_BASE + 0x1000);
	if (write_file(path, text))
		return -1;
	snprintf(path, sizeof(path), "%s/%u/status", fake_root, pid);
	snprintf(text, sizeof(text), "Uid:\t%u\t%u\t%u\t%u\nNSpid:\t%u\t7\n", geteuid(),
		 geteuid(), geteuid(), geteuid(), pid);
	if (write_file(path, text))
		return -1;
	/* decoys: the host-side names must never be used for a namespaced process */
	snprintf(path, sizeof(path), "%s/perf-%u.map", tmp, pid);
	snprintf(text, sizeof(text), "%llx 100 host_decoy\n", ANON_BASE);
	if (write_file(path, text))
		return -1;
	snprintf(path, sizeof(path), "%s/perf-7.map", tmp);
	if (write_file(path, text))
		return -1;
	if (escape)
		return fx_sh("ln -s %s %s/%u/root/tmp", tmp, fake_root, pid);
	snprintf(path, sizeof(path), "%s/%u/root/tmp", fake_root, pid);
	if (mkdir(path, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/%u/root/tmp/perf-7.map", fake_root, pid);
	snprintf(text, sizeof(text), "%llx 100 container_jit_fn\n", ANON_BASE);
	return write_file(path, text);
}

static int build_fixtures(void **state)
{
	(void)state;
	strcpy(tmp, "/tmp/hc-symbolizer-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(fake_root, sizeof(fake_root), "%s/proc", tmp);
	if (fx_sh("cd %s && cc -O1 -g -fno-inline -fPIE -pie -o child %s/child.c", tmp, FX_DIR) ||
	    fx_sh("mkdir -p %s/%d/root/lib && cd %s/%d/root/lib && cc -O1 -g -fno-inline "
		  "-fno-toplevel-reorder -shared -fPIC -o libfx.so %s/lib.c && cp libfx.so "
		  "other.so", fake_root, FAKE_PID, fake_root, FAKE_PID, FX_DIR))
		return -1;
	return build_fake_proc() || build_fake_container(CT_PID, false) ||
	       build_fake_container(CT_ESCAPE_PID, true);
}

static int remove_fixtures(void **state)
{
	(void)state;
	if (tmp[0])
		fx_sh("rm -rf %s", tmp);
	return 0;
}

static struct symbolizer *new_fake(size_t max_objects)
{
	struct symbolizer_opts o = {
		.proc_root = fake_root,
		.perfmap_dir = tmp,
		.kallsyms = FX_DIR "/kallsyms.txt",
		.debug_root = tmp,
		.max_objects = max_objects,
	};
	struct symbolizer *s = symbolizer__new(&o);

	assert_non_null(s);
	return s;
}

/* Name @f, asserting the name, the flags and the return value. */
static void assert_user(struct symbolizer *s, const struct sym_ufr *f, const char *want,
			unsigned int want_flags, int want_ret)
{
	unsigned int flags = ~0u;
	char buf[256];
	int ret;

	ret = symbolizer__user_name(s, f, buf, sizeof(buf), &flags);
	assert_string_equal(buf, want);
	assert_int_equal(flags, want_flags);
	assert_int_equal(ret, want_ret);
}

static uint64_t lib_off(const char *name)
{
	char path[256];
	uint64_t off = 0, size = 0;

	snprintf(path, sizeof(path), "%s/%d/root/lib/libfx.so", fake_root, FAKE_PID);
	assert_true(fx_sym_off(path, name, &off, &size));
	return off;
}

struct child {
	pid_t pid;
	uint64_t hot, stat, jit, getpid;
};

static void start_child(struct child *c)
{
	unsigned long long a[4];
	char path[256], dir[128], *line = NULL;
	size_t cap = 0;
	int fds[2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/child", tmp);
	snprintf(dir, sizeof(dir), "%s", tmp);
	assert_int_equal(pipe(fds), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (!c->pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl(path, path, dir, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	assert_non_null(f);
	assert_true(getline(&line, &cap, f) > 0);
	assert_int_equal(sscanf(line, "%llx %llx %llx %llx", &a[0], &a[1], &a[2], &a[3]), 4);
	free(line);
	fclose(f);
	c->hot = a[0];
	c->stat = a[1];
	c->jit = a[2];
	c->getpid = a[3];
}

static void stop_child(const struct child *c)
{
	int status;

	kill(c->pid, SIGKILL);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
}

static void names_survive_the_exit_of_the_process(void **state)
{
	struct symbolizer_opts o = { .perfmap_dir = tmp, .kallsyms = FX_DIR "/kallsyms.txt" };
	struct sym_ufr hot, stat, jit1, jit2, libc;
	struct symbolizer_stats st;
	struct symbolizer *s;
	struct child c;
	unsigned int flags;
	char buf[256];

	(void)state;
	s = symbolizer__new(&o);
	assert_non_null(s);
	start_child(&c);
	assert_int_equal(symbolizer__add_process(s, c.pid), 0);
	symbolizer__normalize(s, c.pid, c.hot + 1, &hot);
	symbolizer__normalize(s, c.pid, c.stat + 2, &stat);
	symbolizer__normalize(s, c.pid, c.jit + 0x10, &jit1);
	symbolizer__normalize(s, c.pid, c.jit + 0x104, &jit2);
	symbolizer__normalize(s, c.pid, c.getpid + 1, &libc);
	stop_child(&c);

	assert_true(hot.obj > 0);
	assert_int_equal(hot.tgid, 0);
	assert_int_equal(stat.obj, hot.obj);	/* one object per file */
	assert_true(libc.obj > 0 && libc.obj != hot.obj);
	assert_true(jit1.obj > 0);
	assert_int_equal(jit1.tgid, c.pid);
	assert_int_equal(jit1.addr, c.jit + 0x10);	/* raw ip for anon memory */

	assert_user(s, &hot, "child_hot", 0, 0);
	assert_user(s, &stat, "child_static", 0, 0);
	assert_user(s, &jit1, "jit stub one", SYM_F_JIT, 0);
	assert_user(s, &jit2, "jit_two", SYM_F_JIT, 0);
	assert_int_equal(symbolizer__user_name(s, &libc, buf, sizeof(buf), &flags), 0);
	assert_int_equal(flags, 0);
	if (strcmp(buf, "getpid") && strcmp(buf, "__getpid"))
		fail_msg("libc getpid named '%s'", buf);

	symbolizer__stats(s, &st);
	assert_int_equal(st.procs, 1);
	assert_int_equal(st.procs_gone, 0);
	assert_true(st.objects >= 3);	/* child, libc, ld.so (+ vdso) */
	assert_int_equal(st.object_errors, 0);
	assert_int_equal(st.unmapped, 0);

	/* the pid is gone now: a new snapshot is impossible */
	symbolizer__forget_process(s, c.pid);
	assert_int_equal(symbolizer__add_process(s, c.pid), -ESRCH);
	symbolizer__normalize(s, c.pid, c.hot, &hot);
	assert_int_equal(hot.obj, 0);
	assert_user(s, &hot, "[unknown]", SYM_F_UNKNOWN, 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.procs_gone, 1);
	assert_int_equal(st.unmapped, 1);
	symbolizer__free(s);
}

static void names_this_process_vdso_from_its_memory(void **state)
{
	uint64_t start = 0, end = 0, vaddr = 0, size = 0, off = 0;
	struct symbolizer *s = symbolizer__new(NULL);
	struct sym_ufr f;
	Elf *elf;

	(void)state;
	assert_non_null(s);
	if (!fx_own_vdso(&start, &end)) {
		symbolizer__free(s);
		skip();
		return;
	}
	elf = elf_memory((char *)(uintptr_t)start, end - start);
	assert_non_null(elf);
	assert_true(fx_elf_sym(elf, "__vdso_clock_gettime", &vaddr, &size));
	assert_true(fx_vaddr_to_off(elf, vaddr, &off));
	elf_end(elf);
	symbolizer__normalize(s, (uint32_t)getpid(), start + off + 1, &f);
	assert_true(f.obj > 0);
	assert_int_equal(f.addr, off + 1);
	assert_user(s, &f, "__vdso_clock_gettime", 0, 0);
	symbolizer__free(s);
}

static void falls_back_to_the_process_root_when_map_files_is_unavailable(void **state)
{
	struct symbolizer *s = new_fake(0);
	struct symbolizer_stats st;
	struct sym_ufr f;

	(void)state;
	assert_int_equal(symbolizer__add_process(s, FAKE_PID), 0);
	symbolizer__normalize(s, FAKE_PID, LIB_BASE + lib_off("lib_static_b") + 3, &f);
	assert_true(f.obj > 0);
	assert_int_equal(f.addr, lib_off("lib_static_b") + 3);
	assert_user(s, &f, "lib_static_b", 0, 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.procs, 1);
	/* libfx.so and other.so open; the deleted file cannot be opened by path,
	 * code.bin is no ELF */
	assert_int_equal(st.objects, 2);
	assert_int_equal(st.object_errors, 2);
	symbolizer__free(s);
}

/*
 * A process gone before its maps were read (no /proc entry) is named from
 * the maps BPF read at its exit, but only through files another process
 * brought into the table; a hint never overrides a snapshot read from /proc.
 */
static void exit_maps_name_a_gone_process_through_known_files(void **state)
{
	struct symbolizer *s = new_fake(0);
	struct symbolizer_stats st;
	struct procmap h[3];
	char path[256];
	struct stat lib;
	struct sym_ufr f;
	const uint64_t base = 0x7f0000000000ull, gone = 999999;

	(void)state;
	snprintf(path, sizeof(path), "%s/%d/root/lib/libfx.so", fake_root, FAKE_PID);
	assert_int_equal(stat(path, &lib), 0);
	memset(h, 0, sizeof(h));
	/* libfx.so (fd:01, its inode) at another base, and a file nobody maps */
	h[0] = (struct procmap){ .start = base, .end = base + 0x10000, .inode = lib.st_ino,
				 .dev_major = 0xfd, .dev_minor = 1, .kind = PROCMAP_FILE, .path = "" };
	h[1] = (struct procmap){ .start = base + 0x20000, .end = base + 0x21000, .inode = 4242,
				 .dev_major = 0xfd, .dev_minor = 1, .kind = PROCMAP_FILE, .path = "" };
	/* before anyone mapped libfx.so: a hint alone opens nothing */
	assert_int_equal(symbolizer__add_exit_maps(s, gone, h, 2), 0);
	symbolizer__normalize(s, gone, base + lib_off("lib_static_b") + 3, &f);
	assert_int_equal(f.obj, 0);
	symbolizer__forget_process(s, gone);

	assert_int_equal(symbolizer__add_process(s, FAKE_PID), 0);
	assert_int_equal(symbolizer__add_exit_maps(s, gone, h, 1), 0);
	/* a second call adds to the first, overlaps skipped */
	assert_int_equal(symbolizer__add_exit_maps(s, gone, h, 2), 0);
	symbolizer__normalize(s, gone, base + lib_off("lib_static_b") + 3, &f);
	assert_true(f.obj > 0);
	assert_int_equal(f.addr, lib_off("lib_static_b") + 3);
	assert_user(s, &f, "lib_static_b", 0, 0);
	symbolizer__normalize(s, gone, base + 0x20010, &f);
	assert_int_equal(f.obj, 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.procs_exit_maps, 2);

	/* a snapshot from /proc wins: FAKE_PID's libfx.so stays at LIB_BASE */
	assert_int_equal(symbolizer__add_exit_maps(s, FAKE_PID, h, 2), 0);
	symbolizer__normalize(s, FAKE_PID, LIB_BASE + lib_off("lib_static_b"), &f);
	assert_user(s, &f, "lib_static_b", 0, 0);
	symbolizer__normalize(s, FAKE_PID, base + lib_off("lib_static_b"), &f);
	assert_int_equal(f.obj, 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.procs_exit_maps, 2);
	symbolizer__free(s);
}

/*
 * normalize_stack(): leaf as is, callers as ip - 1, and the index of the
 * first ip in no mapping of a known process (a frame-pointer walk gone
 * astray); a process whose maps are unknown has none.
 */
static void normalize_stack_finds_the_first_unmapped_ip(void **state)
{
	struct symbolizer *s = new_fake(0);
	uint64_t off = lib_off("lib_static_b");
	uint64_t ips[4] = { LIB_BASE + off + 3, LIB_BASE + off + 5, 0x10, LIB_BASE + off + 7 };
	struct sym_ufr f[4];

	(void)state;
	assert_int_equal(symbolizer__add_process(s, FAKE_PID), 0);
	assert_int_equal(symbolizer__normalize_stack(s, FAKE_PID, ips, 4, UINT64_MAX, f), 2);
	assert_int_equal(f[0].addr, off + 3);
	assert_int_equal(f[1].addr, off + 4);	/* a return address: ip - 1 */
	assert_true(f[0].obj > 0 && f[1].obj == f[0].obj);
	assert_int_equal(f[2].obj, 0);
	assert_int_equal(f[3].addr, off + 6);
	/* a leaf in no mapping (sampled inside execve: the old image's ip) */
	ips[0] = 0x10;
	assert_int_equal(symbolizer__normalize_stack(s, FAKE_PID, ips, 2, UINT64_MAX, f), 0);
	/* no snapshot (gone before a read): nothing known to be garbage */
	assert_int_equal(symbolizer__add_gone(s, 999998), -ESRCH);
	assert_int_equal(symbolizer__normalize_stack(s, 999998, ips, 4, UINT64_MAX, f), 4);
	symbolizer__free(s);
}

static void offset_outside_every_symbol_is_named_basename_plus_offset(void **state)
{
	struct symbolizer *s = new_fake(0);
	struct sym_ufr f;

	(void)state;
	symbolizer__normalize(s, FAKE_PID, LIB_BASE + 0x10, &f);	/* the ELF header */
	assert_user(s, &f, "libfx.so+0x10", SYM_F_UNKNOWN, 0);
	symbolizer__normalize(s, FAKE_PID, GONE_BASE + 0x20, &f);
	assert_true(f.obj > 0);
	assert_user(s, &f, "gone.so+0x20", SYM_F_UNKNOWN, -ENOENT);
	symbolizer__free(s);
}

/* record -b names branch sites "func+0x3": the offset from the function's start */
static void name_off_gives_the_distance_from_the_function_start(void **state)
{
	struct symbolizer *s = new_fake(0);
	unsigned int flags = ~0u;
	uint64_t sym_off = 0;
	struct sym_ufr f;
	char buf[64];

	(void)state;
	symbolizer__normalize(s, FAKE_PID, LIB_BASE + lib_off("lib_static_b") + 3, &f);
	assert_int_equal(symbolizer__user_name_off(s, &f, buf, sizeof(buf), &flags, &sym_off), 0);
	assert_string_equal(buf, "lib_static_b");
	assert_int_equal(flags, 0);
	assert_int_equal(sym_off, 3);
	/* no symbol there: the usual fallback name and no offset */
	symbolizer__normalize(s, FAKE_PID, LIB_BASE + 0x10, &f);
	symbolizer__user_name_off(s, &f, buf, sizeof(buf), &flags, &sym_off);
	assert_string_equal(buf, "libfx.so+0x10");
	assert_int_equal(flags, SYM_F_UNKNOWN);
	assert_true(sym_off == UINT64_MAX);
	symbolizer__free(s);
}

static void jit_map_owned_by_a_stranger_is_not_used(void **state)
{
	struct symbolizer *s = new_fake(0);
	struct sym_ufr f;

	(void)state;
	symbolizer__normalize(s, FAKE_PID, ANON_BASE + 8, &f);
	assert_true(f.obj > 0);
	assert_int_equal(f.tgid, FAKE_PID);
	assert_user(s, &f, "[unknown]", SYM_F_JIT | SYM_F_UNKNOWN, 0);
	/* a mapped file that is no ELF object is JIT code too: same perf map */
	symbolizer__normalize(s, FAKE_PID, DATA_BASE + 8, &f);
	assert_int_equal(f.tgid, FAKE_PID);
	assert_int_equal(f.addr, DATA_BASE + 8);
	assert_user(s, &f, "[unknown]", SYM_F_JIT | SYM_F_UNKNOWN, 0);
	symbolizer__free(s);
}

static void namespaced_process_is_named_from_the_perf_map_in_its_root(void **state)
{
	struct symbolizer *s = new_fake(0);
	struct sym_ufr f;

	(void)state;
	symbolizer__normalize(s, CT_PID, ANON_BASE + 8, &f);
	assert_true(f.obj > 0);
	assert_int_equal(f.tgid, CT_PID);
	/* the process may be gone by the time frames are named */
	symbolizer__forget_process(s, CT_PID);
	assert_user(s, &f, "container_jit_fn", SYM_F_JIT, 0);
	symbolizer__normalize(s, CT_ESCAPE_PID, ANON_BASE + 8, &f);
	assert_true(f.obj > 0);
	assert_user(s, &f, "[unknown]", SYM_F_JIT | SYM_F_UNKNOWN, 0);
	symbolizer__free(s);
}

static void objects_beyond_the_limit_are_counted_and_unknown(void **state)
{
	struct symbolizer *s = new_fake(1);
	struct symbolizer_stats st;
	struct sym_ufr f;

	(void)state;
	symbolizer__normalize(s, FAKE_PID, LIB_BASE + lib_off("lib_a"), &f);
	assert_user(s, &f, "lib_a", 0, 0);
	symbolizer__normalize(s, FAKE_PID, OTHER_BASE + lib_off("lib_a"), &f);
	assert_int_equal(f.obj, 0);
	assert_user(s, &f, "[unknown]", SYM_F_UNKNOWN, 0);
	symbolizer__stats(s, &st);
	assert_true(st.objects_dropped >= 1);
	assert_int_equal(st.objects, 1);
	symbolizer__free(s);
}

static void ip_outside_every_mapping_is_unknown_and_counted(void **state)
{
	struct symbolizer *s = new_fake(0);
	struct symbolizer_stats st;
	struct sym_ufr f;

	(void)state;
	symbolizer__normalize(s, FAKE_PID, 0x1234, &f);
	assert_int_equal(f.obj, 0);
	assert_int_equal(f.addr, 0x1234);
	assert_user(s, &f, "[unknown]", SYM_F_UNKNOWN, 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.unmapped, 1);
	symbolizer__free(s);
}

static void names_kernel_ips_from_kallsyms(void **state)
{
	struct symbolizer *s = new_fake(0);
	unsigned int flags;
	char buf[64];

	(void)state;
	assert_int_equal(symbolizer__kernel_name(s, 0xffffffff81000010, buf, sizeof(buf), &flags),
			 0);
	assert_string_equal(buf, "startup_64");
	assert_int_equal(flags, 0);
	assert_int_equal(symbolizer__kernel_name(s, 0xffffffffc0001010, buf, sizeof(buf), &flags),
			 0);
	assert_string_equal(buf, "nft_do_chain");	/* no " [nf_tables]" */
	assert_int_equal(symbolizer__kernel_name(s, 0xffffffffc0008090, buf, sizeof(buf), &flags),
			 0);
	assert_string_equal(buf, "mycrate::foo");
	assert_int_equal(symbolizer__kernel_name(s, 0x1000, buf, sizeof(buf), &flags), 0);
	assert_string_equal(buf, "[unknown]");
	assert_int_equal(flags, SYM_F_UNKNOWN);
	symbolizer__free(s);
}

/*
 * A walk that stopped short is marked by a frame of its own (record/
 * session_agg.c): named "[walk cut]", flags none (not unknown: the mark
 * says what is missing), no object, no source line.
 */
static void a_cut_mark_is_named_and_has_no_object(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	struct sym_ufr f = { .obj = SYM_OBJ_MARK, .addr = SYM_MARK_WALK_CUT };
	struct objtab_info oi;
	struct srcline_frame lf[2];

	(void)state;
	assert_non_null(s);
	assert_user(s, &f, SYM_MARK_WALK_CUT_NAME, 0, 0);
	assert_int_equal(symbolizer__object(s, &f, &oi), -ENOENT);
	assert_true(symbolizer__srcline(s, &f, lf, 2) <= 0);
	symbolizer__free(s);
}

static void no_demangle_keeps_mangled_names(void **state)
{
	struct symbolizer_opts o = { .kallsyms = FX_DIR "/kallsyms.txt", .no_demangle = true };
	struct symbolizer *s = symbolizer__new(&o);
	char buf[64];

	(void)state;
	assert_non_null(s);
	assert_int_equal(symbolizer__kernel_name(s, 0xffffffffc0008090, buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, "_RNvCs1234_7mycrate3foo");
	symbolizer__free(s);
}

static void missing_kallsyms_gives_unknown_and_the_error(void **state)
{
	struct symbolizer_opts o = { .kallsyms = "/nonexistent/kallsyms" };
	struct symbolizer *s = symbolizer__new(&o);
	unsigned int flags;
	char buf[64];

	(void)state;
	assert_non_null(s);
	assert_int_equal(symbolizer__kernel_name(s, 0xffffffff81000010, buf, sizeof(buf), &flags),
			 -ENOENT);
	assert_string_equal(buf, "[unknown]");
	assert_int_equal(flags, SYM_F_UNKNOWN);
	symbolizer__free(s);
}

static void names_are_truncated_to_the_buffer(void **state)
{
	struct symbolizer *s = new_fake(0);
	struct sym_ufr f = { 0 }, bad = { .obj = 999 };
	unsigned int flags;
	char buf[5];

	(void)state;
	symbolizer__normalize(s, FAKE_PID, LIB_BASE + lib_off("lib_static_b"), &f);
	assert_int_equal(symbolizer__user_name(s, &f, buf, sizeof(buf), &flags), 0);
	assert_string_equal(buf, "lib_");
	assert_int_equal(symbolizer__user_name(s, &f, buf, 0, &flags), -EINVAL);
	assert_int_equal(symbolizer__user_name(s, &bad, buf, sizeof(buf), &flags), -ENOENT);
	assert_string_equal(buf, "[unk");
	assert_int_equal(flags, SYM_F_UNKNOWN);
	symbolizer__free(s);
}

static void trim_frees_the_objects_of_exited_processes_and_reuses_their_ids(void **state)
{
	struct symbolizer *s = new_fake(3);
	struct symbolizer_stats st;
	struct sym_ufr f, g;

	(void)state;
	/* libfx.so, other.so, gone.so, code.bin: one over the limit of 3 */
	assert_int_equal(symbolizer__add_process(s, FAKE_PID), 0);
	symbolizer__normalize(s, FAKE_PID, LIB_BASE + lib_off("lib_a"), &f);
	assert_true(f.obj > 0);
	/* a live process keeps its objects */
	assert_int_equal(symbolizer__trim(s), 0);
	assert_user(s, &f, "lib_a", 0, 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.objects_live, 3);
	assert_int_equal(st.procs_live, 1);
	/*
	 * After its exit nothing refers to them: freed once unused for a whole
	 * interval (libfx.so was named in this one: freed at the next trim)
	 */
	symbolizer__forget_process(s, FAKE_PID);
	assert_user(s, &f, "lib_a", 0, 0);
	assert_int_equal(symbolizer__trim(s), 2);
	assert_int_equal(symbolizer__trim(s), 1);
	symbolizer__stats(s, &st);
	assert_int_equal(st.objects_live, 0);
	assert_int_equal(st.objects_evicted, 3);
	assert_user(s, &f, "[unknown]", SYM_F_UNKNOWN, -ENOENT);
	/* the process seen again: its objects are reopened under the freed ids */
	symbolizer__normalize(s, FAKE_PID, LIB_BASE + lib_off("lib_c"), &g);
	assert_int_equal(g.obj, f.obj);
	assert_user(s, &g, "lib_c", 0, 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.objects_live, 3);
	symbolizer__free(s);
}

static void trim_forgets_processes_that_exited_unannounced(void **state)
{
	struct symbolizer *s = new_fake(0);
	struct symbolizer_stats st;
	struct sym_ufr f;

	(void)state;
	/* a copy of the fake process (hard links: same inodes) whose exit record is lost */
	assert_int_equal(fx_sh("cp -al %s/%d %s/%d", fake_root, FAKE_PID, fake_root, FAKE_PID + 9),
			 0);
	symbolizer__normalize(s, FAKE_PID + 9, LIB_BASE + lib_off("lib_a"), &f);
	symbolizer__normalize(s, FAKE_PID, LIB_BASE + lib_off("lib_a"), &f);
	assert_int_equal(fx_sh("rm -rf %s/%d", fake_root, FAKE_PID + 9), 0);
	assert_int_equal(symbolizer__trim(s), 0);	/* FAKE_PID still maps them */
	symbolizer__stats(s, &st);
	assert_int_equal(st.procs_pruned, 1);
	assert_int_equal(st.procs_live, 1);
	assert_user(s, &f, "lib_a", 0, 0);
	symbolizer__free(s);
}

static void a_miss_rereads_the_maps_only_for_an_ip_newer_than_the_snapshot(void **state)
{
	struct symbolizer *s = new_fake(0);
	struct symbolizer_stats st;
	struct sym_ufr f;
	int pid = FAKE_PID + 10;

	(void)state;
	/* a process that maps only libfx.so, then other.so as well (dlopen) */
	assert_int_equal(fx_sh("cp -al %s/%d %s/%d && rm %s/%d/maps && grep libfx %s/%d/maps > "
			       "%s/%d/maps", fake_root, FAKE_PID, fake_root, pid, fake_root, pid,
			       fake_root, FAKE_PID, fake_root, pid), 0);
	assert_int_equal(symbolizer__add_process(s, pid), 0);
	assert_int_equal(fx_sh("grep -e libfx -e other.so %s/%d/maps > %s/%d/maps.new && mv "
			       "%s/%d/maps.new %s/%d/maps", fake_root, FAKE_PID, fake_root, pid,
			       fake_root, pid, fake_root, pid), 0);
	/* on the stack before the snapshot was taken: stale, not worth a read */
	symbolizer__normalize_at(s, pid, OTHER_BASE + lib_off("lib_a"), 0, &f);
	assert_int_equal(f.obj, 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.rereads, 0);
	/* after it: the mapping may be new */
	symbolizer__normalize_at(s, pid, OTHER_BASE + lib_off("lib_a"), UINT64_MAX, &f);
	assert_true(f.obj > 0);
	assert_user(s, &f, "lib_a", 0, 0);
	symbolizer__stats(s, &st);
	assert_int_equal(st.rereads, 1);
	symbolizer__free(s);
	fx_sh("rm -rf %s/%d", fake_root, pid);
}

static void free_accepts_null(void **state)
{
	(void)state;
	symbolizer__free(NULL);
}

static void keymap_matches_a_reference_under_random_puts_and_deletes(void **state)
{
	enum { N = 512 };
	static uint64_t ref[N];	/* 0: absent, else value */
	struct keymap m;
	unsigned int seed = 3;
	uint64_t v;
	size_t i, iter = 0, count = 0;

	(void)state;
	keymap__init(&m);
	for (i = 0; i < 20000; i++) {
		uint64_t k;

		seed = seed * 1103515245 + 12345;
		k = (seed >> 8) % N;
		if ((seed >> 4) % 3) {
			assert_int_equal(keymap__put(&m, k, k * 7, i + 1), 0);
			ref[k] = i + 1;
		} else {
			assert_int_equal(keymap__del(&m, k, k * 7, NULL), ref[k] != 0);
			ref[k] = 0;
		}
	}
	for (i = 0; i < N; i++) {
		assert_int_equal(keymap__get(&m, i, i * 7, &v), ref[i] != 0);
		if (ref[i])
			assert_int_equal(v, ref[i]);
		assert_false(keymap__get(&m, i, i * 7 + 1, NULL));
		count += ref[i] != 0;
	}
	assert_int_equal(m.nr, count);
	i = 0;
	while (keymap__next(&m, &iter, &v))
		i++;
	assert_int_equal(i, count);
	keymap__release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_survive_the_exit_of_the_process),
		cmocka_unit_test(names_this_process_vdso_from_its_memory),
		cmocka_unit_test(falls_back_to_the_process_root_when_map_files_is_unavailable),
		cmocka_unit_test(offset_outside_every_symbol_is_named_basename_plus_offset),
		cmocka_unit_test(name_off_gives_the_distance_from_the_function_start),
		cmocka_unit_test(jit_map_owned_by_a_stranger_is_not_used),
		cmocka_unit_test(namespaced_process_is_named_from_the_perf_map_in_its_root),
		cmocka_unit_test(objects_beyond_the_limit_are_counted_and_unknown),
		cmocka_unit_test(ip_outside_every_mapping_is_unknown_and_counted),
		cmocka_unit_test(names_kernel_ips_from_kallsyms),
		cmocka_unit_test(a_cut_mark_is_named_and_has_no_object),
		cmocka_unit_test(no_demangle_keeps_mangled_names),
		cmocka_unit_test(missing_kallsyms_gives_unknown_and_the_error),
		cmocka_unit_test(names_are_truncated_to_the_buffer),
		cmocka_unit_test(trim_frees_the_objects_of_exited_processes_and_reuses_their_ids),
		cmocka_unit_test(trim_forgets_processes_that_exited_unannounced),
		cmocka_unit_test(a_miss_rereads_the_maps_only_for_an_ip_newer_than_the_snapshot),
		cmocka_unit_test(exit_maps_name_a_gone_process_through_known_files),
		cmocka_unit_test(normalize_stack_finds_the_first_unmapped_ip),
		cmocka_unit_test(free_accepts_null),
		cmocka_unit_test(keymap_matches_a_reference_under_random_puts_and_deletes),
	};

	return cmocka_run_group_tests_name("symbolizer", tests, build_fixtures, remove_fixtures);
}
