// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tpfloor: load bench/workloads/tpfloor.bpf.c and attach the named
 * programs, print "attached N" on stderr, hold them until SIGINT/SIGTERM.
 *
 *   tpfloor OBJECT PROG[,PROG...] [TGID]
 *
 * floor_switch and floor_sys_exit are empty; the others price one kind of
 * per-switch work each and act on the process TGID (default: none).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	char want[512], name[128];
	struct bpf_map *m;
	__u32 tgid = 0, one = 1;
	int n = 0;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: tpfloor OBJECT PROG[,PROG...] [TGID]\n");
		return 2;
	}
	if (argc == 4)
		tgid = (__u32)strtoul(argv[3], NULL, 10);
	snprintf(want, sizeof(want), ",%s,", argv[2]);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		perror("tpfloor: open");
		return 1;
	}
	bpf_object__for_each_program(p, obj) {
		snprintf(name, sizeof(name), ",%s,", bpf_program__name(p));
		bpf_program__set_autoload(p, strstr(want, name) != NULL);
	}
	bpf_object__for_each_map(m, obj) {
		size_t sz;
		__u32 *ro;

		/* .rodata holds target_tgid only */
		if (!strstr(bpf_map__name(m), ".rodata"))
			continue;
		ro = (__u32 *)bpf_map__initial_value(m, &sz);
		if (ro && sz >= sizeof(*ro))
			*ro = tgid;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "tpfloor: load failed\n");
		return 1;
	}
	m = bpf_object__find_map_by_name(obj, "targets");
	if (m && tgid)
		bpf_map__update_elem(m, &tgid, sizeof(tgid), &one, sizeof(one), BPF_ANY);
	m = bpf_object__find_map_by_name(obj, "seen");
	if (m && tgid)
		bpf_map__update_elem(m, &tgid, sizeof(tgid), &one, sizeof(one), BPF_ANY);
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__autoload(p))
			continue;
		if (!bpf_program__attach(p)) {
			fprintf(stderr, "tpfloor: attach %s failed\n", bpf_program__name(p));
			return 1;
		}
		n++;
	}
	if (!n) {
		fprintf(stderr, "tpfloor: no program named in '%s'\n", argv[2]);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "attached %d\n", n);
	while (!stop)
		pause();
	bpf_object__close(obj);
	return 0;
}
