/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Java frames of HotSpot JVMs named without a perf map and without JVM
 * flags: a pc in the VM's code cache leads through the code heap's segment
 * map to its CodeBlob; a compiled method's (nmethod's) Method* gives
 * "pkg.Class.method". Everything is read from the process's memory
 * (<proc>/PID/mem), laid out as the VM's own vmStructs tables say
 * (sym/hotspot_vmstructs.h); a VM whose tables lack something we read, or
 * of a version we do not know, is refused with one line. Nothing of the
 * target is executed.
 */
#ifndef HC_SYM_HOTSPOT_H
#define HC_SYM_HOTSPOT_H

#include <stddef.h>
#include <stdint.h>

struct procmap;

/* Not thread-safe: its symbolizer's thread only. */
struct hotspot;

struct hotspot_stats {
	uint64_t named;		/* frames named from a JVM's code cache */
	uint64_t no_blob;	/* frames in a code heap where no live blob holds the pc */
	uint64_t unreadable;	/* frames of a JVM whose memory could not be read */
	uint64_t refused;	/* frames of JVMs refused (layout or version unknown) */
	uint64_t interp;	/* interpreted frames the walk gave no Method* for ("[interpreter]") */
	uint64_t stale;		/* interpreted frames whose Method* fails its check (unloaded, misread) */
	uint64_t procs;		/* JVMs whose tables were read */
	uint64_t procs_refused;	/* JVMs refused, each said once */
};

/* Reads <@proc_root>/PID/{mem,map_files,root} (a fake tree in tests). NULL + errno. */
struct hotspot *hotspot__new(const char *proc_root);
void hotspot__free(struct hotspot *hs);	/* NULL is a no-op */

/*
 * @tgid maps libjvm.so with @m (any of its mappings; hotspot_elf_candidate()
 * says which files): remember it. Nothing is read until a frame is named.
 * The same mapping again is a no-op; another one replaces the entry (an
 * exec). 0 or -ENOMEM.
 */
int hotspot__add_process(struct hotspot *hs, uint32_t tgid, const struct procmap *m);

/*
 * @tgid exited or exec'd: its caches and mem fd go, and nothing is read
 * for it again (the pid may be reused); its frames named later count as
 * unreadable. The entry itself goes at the next hotspot__prune(). NULL @hs
 * is a no-op.
 */
void hotspot__forget(struct hotspot *hs, uint32_t tgid);

/* Free the entries hotspot__forget() marked (between naming passes). NULL: no-op. */
void hotspot__prune(struct hotspot *hs);

/*
 * Name @pc, an address in anonymous executable memory of @tgid, into @buf
 * (NUL-terminated, truncated to @len): "pkg.Class.method" for compiled
 * Java code, "[interpreter]" for the template interpreter, the blob's name
 * for stubs ("StubRoutines (2)"). The first call for a process reads its
 * tables. 0: named; -ENOENT: not a JVM, or @pc outside its code cache (not
 * counted); -EPERM: the VM was refused; -ENXIO: no blob at @pc; -ESRCH:
 * the process is gone (counted unreadable); -EFAULT (or another -errno):
 * its memory could not be read. Each but -ENOENT counts.
 */
int hotspot__name(struct hotspot *hs, uint32_t tgid, uint64_t pc, char *buf, size_t len);

/* What an interpreted frame is called when its method is not known. */
#define HOTSPOT_INTERPRETER "[interpreter]"

/*
 * Name an interpreted frame of @tgid that the BPF walk gave as @frame (a
 * tagged Method*, abi/hotspot.h hc_hs_method_frame()) into @buf, as
 * hotspot__name() names compiled ones. The Method* is first checked against
 * the ConstMethod* bits the walk saw: -ESTALE (counted) when they differ (a
 * method unloaded since, or a word that was no Method*). Other returns as
 * hotspot__name()'s, all counted.
 */
int hotspot__method_name(struct hotspot *hs, uint32_t tgid, uint64_t frame, char *buf, size_t len);

void hotspot__stats(const struct hotspot *hs, struct hotspot_stats *st);

#endif /* HC_SYM_HOTSPOT_H */
