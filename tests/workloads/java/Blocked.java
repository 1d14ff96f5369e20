// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Java threads blocked for a whole recording (t_hotspot_blocked): the main
 * thread, renamed "hc-sleeper" (its comm too), sleeps in
 * Blocked.sleepHere(), a thread "hc-parked" waits in
 * Blocked.waitHere() on a monitor nobody notifies; each is reached through
 * a compiled frame (Blocked.outer(), called often enough first to be
 * JIT-compiled) and the interpreter. Their stacks are walked from another
 * task at the stop (or an agent interval's end).
 *
 * usage: Blocked: "ready" on stdout once both are blocked, then blocks
 * until killed.
 */
public class Blocked {
	static final Object lock = new Object();
	static volatile long sink;

	static void sleepHere() throws InterruptedException {
		Thread.sleep(3_600_000L);
	}

	static void waitHere() throws InterruptedException {
		synchronized (lock) {
			lock.wait();
		}
	}

	/* compiled by the time it blocks: called in a loop first, then with block set */
	static long outer(long i, boolean block, boolean sleep) throws InterruptedException {
		if (block) {
			if (sleep)
				sleepHere();
			else
				waitHere();
		}
		return i * 7 + 1;
	}

	public static void main(String[] args) throws Exception {
		long s = 0;

		for (long i = 0; i < 3_000_000L; i++)
			s += outer(i, false, false);
		sink = s;
		Thread t = new Thread(() -> {
			try {
				outer(0, true, false);
			} catch (InterruptedException e) {
			}
		}, "hc-parked");
		t.setDaemon(true);
		t.start();
		Thread.sleep(200);
		/* the current thread's new name is its native one too */
		Thread.currentThread().setName("hc-sleeper");
		System.out.println("ready");
		System.out.flush();
		outer(0, true, true);
	}
}
