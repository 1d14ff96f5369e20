// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Two hot methods with a known CPU split, for tests/integration/t_hotspot.sh:
// main calls alpha(2 N) then beta(N) over and over, the same loop body in
// both, so alpha gets ~2/3 of the work. Each call's CPU time is measured on
// the thread's own clock, which is the truth the profile is checked against.
//
// A daemon thread "hc-waiter" meanwhile blocks in awaitOrders(), in
// Object.wait(20) on a monitor nobody notifies, over and over: the
// off-CPU profile must name that method (it stays interpreted: 50 calls a
// second never reach a JIT threshold). It takes no CPU from main.
//
// usage: java HotCold WARMUP_S RUN_S TRUTH_FILE [STOP_FILE]
//   prints "ready" once WARMUP_S seconds have passed (the JIT has compiled
//   both), then runs RUN_S more seconds, or until STOP_FILE exists, and
//   writes to TRUTH_FILE "alpha_ns beta_ns alpha_iters beta_iters"
//   (measured after "ready" only). A profiler names JIT frames from the
//   VM's memory when it writes its profile: the test stops us after that.
import java.io.File;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class HotCold {
	static final long N = 400_000;
	static long sink;
	static final Object orders = new Object();

	static void awaitOrders() throws InterruptedException {
		synchronized (orders) {
			for (;;)
				orders.wait(20);
		}
	}

	// ~1 ns an iteration: a dependent chain the JIT can neither vectorize nor drop
	static long alpha(long n) {
		long s = sink;
		for (long i = 0; i < n; i++) {
			s = s * 6364136223846793005L + i;
			s ^= s >>> 29;
		}
		return s;
	}

	static long beta(long n) {
		long s = sink;
		for (long i = 0; i < n; i++) {
			s = s * 6364136223846793005L + i;
			s ^= s >>> 29;
		}
		return s;
	}

	public static void main(String[] args) throws Exception {
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		long warmup = Long.parseLong(args[0]) * 1_000_000_000L;
		long run = Long.parseLong(args[1]) * 1_000_000_000L;
		File stop = args.length > 3 ? new File(args[3]) : null;
		long start = System.nanoTime(), t0, t1, t2;
		long aNs = 0, bNs = 0, aIt = 0, bIt = 0;
		boolean measuring = false;
		Thread waiter = new Thread(() -> {
			try {
				awaitOrders();
			} catch (InterruptedException e) {
			}
		}, "hc-waiter");

		waiter.setDaemon(true);
		waiter.start();

		for (;;) {
			long now = System.nanoTime();

			if (!measuring && now - start >= warmup) {
				measuring = true;
				start = now;
				System.out.println("ready");
				System.out.flush();
			} else if (measuring && (now - start >= run || (stop != null && stop.exists()))) {
				break;
			}
			t0 = mx.getCurrentThreadCpuTime();
			sink += alpha(2 * N);
			t1 = mx.getCurrentThreadCpuTime();
			sink += beta(N);
			t2 = mx.getCurrentThreadCpuTime();
			if (measuring) {
				aNs += t1 - t0;
				bNs += t2 - t1;
				aIt += 2 * N;
				bIt += N;
			}
		}
		try (PrintWriter w = new PrintWriter(args[2])) {
			w.println(aNs + " " + bNs + " " + aIt + " " + bIt);
		}
		System.out.println(sink);
	}
}
