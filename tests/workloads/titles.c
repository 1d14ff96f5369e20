// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two processes with one comm and two process titles, the way PostgreSQL
 * names its processes: the parent forks "alpha" and "beta"; each sets its
 * comm to "titlework" (prctl) and writes its title over its argv, padded
 * with NULs ("titlework: alpha", "titlework: beta"), then spins on the CPU.
 * alpha spins SECONDS of its own CPU time, beta half as much and exits
 * first (its label must outlive it). Each writes the CPU time it measured,
 * the ground truth, to STATS_DIR/<role>.
 *
 * LATE (seconds, default 0): each child first spins that much CPU under its
 * parent's command line, then sets its title, as a PostgreSQL backend sets
 * it only after authenticating its client. A profiler that read the title
 * at the child's first sample must read it again before the child is gone.
 *
 * usage: titles SECONDS STATS_DIR PADDING [LATE] (PADDING: room for the title)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time, not wall time: the truth does not depend on the machine's load */
static __attribute__((noinline)) void spin_titled(double secs)
{
	double end = cpu_now() + secs;

	while (cpu_now() < end)
		for (int i = 0; i < 20000; i++)
			sink += i;
}

static int child(int argc, char **argv, const char *role, double secs, double late)
{
	char *start = argv[0], *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	char title[64], path[4096];
	FILE *f;

	/* before the title overwrites it */
	snprintf(path, sizeof(path), "%s/%s", argv[2], role);
	if (late > 0)
		spin_titled(late);	/* still under the parent's command line */

	prctl(PR_SET_NAME, "titlework");
	snprintf(title, sizeof(title), "titlework: %s", role);
	if ((size_t)(end - start) < strlen(title) + 1) {
		fprintf(stderr, "titles: PADDING too short for the title\n");
		return 2;
	}
	/* PostgreSQL's setproctitle on Linux: the argv area, NUL-padded */
	memset(start, 0, (size_t)(end - start));
	memcpy(start, title, strlen(title));
	spin_titled(secs);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%.6f\n", cpu_now());
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const char *roles[] = { "alpha", "beta" };
	double secs, late = 0;
	int rc = 0, st;

	if (argc == 5)
		late = atof(argv[4]);
	if ((argc != 4 && argc != 5) || (secs = atof(argv[1])) <= 0 || late < 0) {
		fprintf(stderr, "usage: titles SECONDS STATS_DIR PADDING [LATE]\n");
		return 2;
	}
	for (int i = 0; i < 2; i++) {
		pid_t p = fork();

		if (p < 0)
			return 1;
		if (!p)
			_exit(child(argc, argv, roles[i], i ? secs / 2 : secs, late));
	}
	for (int i = 0; i < 2; i++)
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			rc = 1;
	return rc;
}
