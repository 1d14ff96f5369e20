// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tpfloor: load bench/workloads/tpfloor.bpf.c and attach the named empty
 * programs, print "attached" on stderr, hold them until SIGINT/SIGTERM.
 *
 *   tpfloor OBJECT PROG[,PROG...]     (floor_switch, floor_sys_exit)
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <signal.h>
#include <stdio.h>
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
	int n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: tpfloor OBJECT PROG[,PROG...]\n");
		return 2;
	}
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
	if (bpf_object__load(obj)) {
		fprintf(stderr, "tpfloor: load failed\n");
		return 1;
	}
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
