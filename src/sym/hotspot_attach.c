// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading one JVM's layout: libjvm.so's exported symbols, the vmStructs
 * tables behind them, the VM's version and its code heaps (hotspot_int.h).
 * Done once per process, when its first frame in anonymous code is named.
 */
#include "sym/hotspot_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sym/hotspot_elf.h"
#include "sym/loadbias.h"
#include "sym/objtab.h"
#include "util/clock.h"
#include "util/log.h"

/*
 * Majors known: Debian's 17.0.15 and Temurin's 25.0.3 were run (the
 * majors between are taken on their tables, every field checked by name
 * and C++ type); others are refused, not guessed: a field's meaning can
 * change while its name stays.
 */
#define HS_MAJOR_MIN	17
#define HS_MAJOR_MAX	25
#define HS_RETRY_NS	1000000000ull	/* an unreadable or uninitialized VM, again */

long hs_read(struct hs_proc *p, uint64_t addr, void *buf, size_t len)
{
	size_t got = 0;

	if (p->mem_fd < 0)
		return -EBADF;
	/* /proc/PID/mem: a read stops at the first unreadable page (-EIO if it is the first) */
	while (got < len) {
		ssize_t n = pread(p->mem_fd, (char *)buf + got, len - got, (off_t)(addr + got));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return got ? (long)got : -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (long)got;
}

int hs_read_exact(struct hs_proc *p, uint64_t addr, void *buf, size_t len)
{
	long n = hs_read(p, addr, buf, len);

	if (n < 0 && n != -EIO)
		return (int)n;
	return n == (long)len ? 0 : -EFAULT;
}

static long reader_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	return hs_read(arg, addr, buf, len);
}

static int read_u64(struct hs_proc *p, uint64_t addr, uint64_t *v)
{
	return hs_read_exact(p, addr, v, sizeof(*v));
}

/* The three tables, from the exported values at @he's symbols + @bias. */
static int read_tables(struct hs_proc *p, const struct hotspot_elf *he, uint64_t bias)
{
	const struct hotspot_reader r = { reader_read, p };
	uint64_t v[HS_SYM_NR];
	struct hotspot_table t[3] = {
		{ .kind = HOTSPOT_STRUCTS }, { .kind = HOTSPOT_TYPES }, { .kind = HOTSPOT_INTS },
	};
	int err;

	for (int k = 0; k < HS_SYM_NR; k++) {
		err = read_u64(p, he->sym[k] + bias, &v[k]);
		if (err)
			return err;
	}
	/* gHotSpotVMStructs & co. point at the tables; the others are the values */
	t[0].base = v[HS_SYM_STRUCTS];
	t[0].stride = v[HS_SYM_STRUCT_STRIDE];
	t[0].type_off = v[HS_SYM_STRUCT_TYPE];
	t[0].field_off = v[HS_SYM_STRUCT_FIELD];
	t[0].typestr_off = v[HS_SYM_STRUCT_TYPESTR];
	t[0].static_off = v[HS_SYM_STRUCT_STATIC];
	t[0].value_off = v[HS_SYM_STRUCT_OFFSET];
	t[0].addr_off = v[HS_SYM_STRUCT_ADDRESS];
	t[1].base = v[HS_SYM_TYPES];
	t[1].stride = v[HS_SYM_TYPE_STRIDE];
	t[1].type_off = v[HS_SYM_TYPE_NAME];
	t[1].value_off = v[HS_SYM_TYPE_SIZE];
	t[2].base = v[HS_SYM_INTS];
	t[2].stride = v[HS_SYM_INT_STRIDE];
	t[2].type_off = v[HS_SYM_INT_NAME];
	t[2].value_off = v[HS_SYM_INT_VALUE];
	for (int i = 0; i < 3; i++) {
		err = hotspot_vm_parse(&p->vm, &t[i], &r);
		if (err)
			return err;
	}
	return 0;
}

/* _s_vm_release ("17.0.15+6-Debian-1deb12u1") into p->version, else "unknown"; the major. */
static int read_version(struct hs_proc *p)
{
	uint64_t rel = 0;
	int32_t major = 0;
	long n = 0;

	snprintf(p->version, sizeof(p->version), "unknown");
	if (hotspot_vm_has(&p->vm, HS_VM_RELEASE) && !read_u64(p, p->vm.v[HS_VM_RELEASE], &rel) &&
	    rel) {
		char buf[HS_VERSION_LEN] = "";

		n = hs_read(p, rel, buf, sizeof(buf) - 1);
		if (n > 0 && buf[0]) {
			buf[n] = '\0';
			for (char *c = buf; *c; c++)
				if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
					*c = '?';
			snprintf(p->version, sizeof(p->version), "%s", buf);
		}
	}
	if (hotspot_vm_has(&p->vm, HS_VM_MAJOR) &&
	    hs_read_exact(p, p->vm.v[HS_VM_MAJOR], &major, sizeof(major)))
		major = 0;
	return major;
}

/* CodeHeap at @addr into @h; its segment size's log2 in *@shift. */
static int read_heap(struct hs_proc *p, uint64_t addr, struct hs_heap *h, unsigned int *shift)
{
	const uint64_t *v = p->vm.v;
	int32_t log2 = 0;
	int err;

	err = read_u64(p, addr + v[HS_HEAP_MEMORY] + v[HS_VS_LOW], &h->lo);
	if (!err)
		err = read_u64(p, addr + v[HS_HEAP_MEMORY] + v[HS_VS_HIGH], &h->hi);
	if (!err)
		err = read_u64(p, addr + v[HS_HEAP_SEGMAP] + v[HS_VS_LOW], &h->segmap);
	if (!err)
		err = hs_read_exact(p, addr + v[HS_HEAP_LOG2_SEG], &log2, sizeof(log2));
	if (err)
		return err;
	/* HotSpot's CodeCacheSegmentSize is 2^4 to 2^10 */
	if (log2 < 4 || log2 > 16 || h->lo >= h->hi || !h->segmap)
		return -EINVAL;
	*shift = (unsigned int)log2;
	return 0;
}

/*
 * CodeCache::_heaps and its bounds. 0; -EAGAIN before the VM made them
 * (early in its start); -EINVAL for values no VM has; a read's -errno.
 */
static int read_heaps(struct hs_proc *p)
{
	const uint64_t *v = p->vm.v;
	uint64_t ga, data, ptrs[HS_MAX_HEAPS];
	unsigned int shift = 0;
	int32_t len = 0;
	int err;

	err = read_u64(p, v[HS_CC_LOW], &p->cc_lo);
	if (!err)
		err = read_u64(p, v[HS_CC_HIGH], &p->cc_hi);
	if (!err)
		err = read_u64(p, v[HS_CC_HEAPS], &ga);
	if (err)
		return err;
	if (!ga || p->cc_lo >= p->cc_hi)
		return -EAGAIN;
	err = hs_read_exact(p, ga + v[HS_GA_LEN], &len, sizeof(len));
	if (!err)
		err = read_u64(p, ga + v[HS_GA_DATA], &data);
	if (err)
		return err;
	if (len <= 0 || !data)
		return -EAGAIN;
	if (len > HS_MAX_HEAPS)
		return -EINVAL;
	err = hs_read_exact(p, data, ptrs, (size_t)len * sizeof(ptrs[0]));
	if (err)
		return err;
	p->nr_heaps = 0;
	for (int32_t i = 0; i < len; i++) {
		struct hs_heap *h = &p->heaps[p->nr_heaps];
		unsigned int s;

		if (!ptrs[i])
			return -EAGAIN;
		err = read_heap(p, ptrs[i], h, &s);
		if (err)
			return err;
		if (p->nr_heaps && s != shift)
			return -EINVAL;
		shift = s;
		p->nr_heaps++;
	}
	p->seg_shift = shift;
	return 0;
}

/* Bytes from a block's start that hold its header and every blob field read. */
static size_t head_len(const struct hotspot_vm *vm)
{
	static const enum hotspot_slot fields[] = { HS_BLOB_NAME, HS_BLOB_SIZE, HS_NM_METHOD,
						    HS_BLOB_KIND };
	uint64_t end = vm->v[HS_HB_SIZE];

	if (hotspot_vm_has(vm, HS_HB_USED) && hotspot_vm_has(vm, HS_HB_HEADER) &&
	    vm->v[HS_HB_HEADER] + vm->v[HS_HB_USED] + 1 > end)
		end = vm->v[HS_HB_HEADER] + vm->v[HS_HB_USED] + 1;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (hotspot_vm_has(vm, fields[i]) && vm->v[HS_HB_SIZE] + vm->v[fields[i]] + 8 > end)
			end = vm->v[HS_HB_SIZE] + vm->v[fields[i]] + 8;
	return end <= HS_HEAD_MAX ? (size_t)end : 0;
}

static void wait_retry(struct hs_proc *p, bool unreadable)
{
	p->state = HS_WAIT;
	p->wait_unreadable = unreadable;
	p->retry_ns = clock_mono_ns() + HS_RETRY_NS;
}

/* libjvm.so's symbols and where it is loaded; -ENOENT with @why set when it lacks them. */
static int open_jvm(struct hs_proc *p, const char *proc_root, struct hotspot_elf *he,
		    uint64_t *bias, char *why, size_t why_len)
{
	enum hotspot_sym missing = HS_SYM_STRUCTS;
	int fd, err;

	fd = objtab_open_mapped(proc_root, p->tgid, &p->jvm);
	if (fd < 0)
		return fd;
	err = hotspot_elf_read(fd, he, &missing);
	close(fd);
	if (err == -ENOENT)
		snprintf(why, why_len, "%s exports no %s", p->jvm.path,
			 hotspot_elf_sym_name(missing));
	if (err)
		return err;
	if (load_bias(&he->ll, &p->jvm, (uint64_t)sysconf(_SC_PAGESIZE), bias)) {
		snprintf(why, why_len, "its mapping of %s fits none of its segments", p->jvm.path);
		return -ENOEXEC;
	}
	return 0;
}

void hs_attach(struct hs_proc *p, const char *proc_root, char *why, size_t why_len)
{
	struct hotspot_elf he;
	char path[4096], what[128];
	uint64_t bias = 0;
	int err, major;

	why[0] = '\0';
	err = open_jvm(p, proc_root, &he, &bias, why, why_len);
	if (err) {
		if (why[0])
			p->state = HS_REFUSED;
		else
			wait_retry(p, true);
		return;
	}
	if (p->mem_fd < 0) {
		snprintf(path, sizeof(path), "%s/%u/mem", proc_root, p->tgid);
		p->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	memset(&p->vm, 0, sizeof(p->vm));
	err = read_tables(p, &he, bias);
	p->malformed = err == -EINVAL;
	if (err == -EINVAL) {
		snprintf(why, why_len, "its vmStructs tables are malformed");
		p->state = HS_REFUSED;
		return;
	}
	if (err) {
		wait_retry(p, true);
		return;
	}
	major = read_version(p);
	if (hotspot_vm_missing(&p->vm, what, sizeof(what))) {
		snprintf(why, why_len, "%s not in this VM's vmStructs (version %s)", what,
			 p->version);
	} else if (major < HS_MAJOR_MIN || major > HS_MAJOR_MAX) {
		snprintf(why, why_len, "version %s (JDK %d) not known (JDK %d to %d)", p->version,
			 major, HS_MAJOR_MIN, HS_MAJOR_MAX);
	} else if (!(p->head_len = head_len(&p->vm))) {
		snprintf(why, why_len, "CodeBlob fields past %d bytes (version %s)", HS_HEAD_MAX,
			 p->version);
	}
	if (why[0]) {
		p->state = HS_REFUSED;
		return;
	}
	err = read_heaps(p);
	if (err == -EINVAL) {
		snprintf(why, why_len, "its code heaps are not as vmStructs describes (version %s)",
			 p->version);
		p->state = HS_REFUSED;
	} else if (err) {
		wait_retry(p, err != -EAGAIN);
	} else {
		p->state = HS_READY;
		pr_debug("hotspot: pid %u: version %s, %zu code heaps in [%#llx, %#llx), segments "
			 "of %u bytes\n", p->tgid, p->version, p->nr_heaps,
			 (unsigned long long)p->cc_lo, (unsigned long long)p->cc_hi,
			 1u << p->seg_shift);
	}
}
