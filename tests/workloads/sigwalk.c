// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Blocks inside a signal handler: main -> send_signals() raises SIGUSR1 N
 * times; the handler on_signal() -> sleep_in_handler() sleeps 20 ms. The
 * handler returns through the kernel's signal frame (glibc's __restore_rt),
 * so an off-CPU stack reaches main only by unwinding through it.
 * usage: sigwalk N
 */
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) void sleep_in_handler(void)
{
	struct timespec ts = { 0, 20000000 };

	nanosleep(&ts, NULL);
	KEEP_FRAME();
}

static void on_signal(int sig)
{
	(void)sig;
	sleep_in_handler();
	KEEP_FRAME();
}

__attribute__((noinline)) void send_signals(int n)
{
	for (int i = 0; i < n; i++)
		raise(SIGUSR1);
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	send_signals(argc > 1 ? atoi(argv[1]) : 20);
	return 0;
}
