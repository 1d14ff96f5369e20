# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Pure-Python CPU split by design, for t_python: main -> caller_a -> hot_a
takes SHARE_A of the CPU, main -> caller_b -> hot_b the rest. Each slice is
timed with time.process_time (the thread's CPU time) and the measured
totals are written to OUT as "a_seconds b_seconds" when done.

usage: pysplit.py CPU_SECONDS OUT [SHARE_A] [--sleeper] [--zlib]
  --sleeper  a second thread sleeps in time.sleep from sleeper_wait (off-CPU)
  --zlib     first caller_z -> zlib.compress (a C extension's hot loop) for
             0.3 s of CPU, not part of the split
"""
import sys
import threading
import time
import zlib

CHUNK = 20000


def hot_a(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def hot_b(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def caller_a():
    t = time.process_time()
    hot_a(CHUNK)
    return time.process_time() - t


def caller_b():
    t = time.process_time()
    hot_b(CHUNK)
    return time.process_time() - t


DATA = bytes(range(256)) * 4096


def caller_z():
    zlib.compress(DATA, 9)


def sleeper_wait(stop):
    while not stop.is_set():
        time.sleep(0.05)


def main():
    seconds, out = float(sys.argv[1]), sys.argv[2]
    share_a = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3][0] != "-" else 0.7
    stop = threading.Event()
    sleeper = None
    if "--sleeper" in sys.argv:
        sleeper = threading.Thread(target=sleeper_wait, args=(stop,), name="sleeper")
        sleeper.start()
    if "--zlib" in sys.argv:
        t = time.process_time()
        while time.process_time() - t < 0.3:
            caller_z()
    ta = tb = 0.0
    # SECONDS of the thread's own CPU time, whatever the machine's load
    while ta + tb < seconds:
        # whichever is behind its share runs next: the split holds at every moment
        if ta <= share_a * (ta + tb):
            ta += caller_a()
        else:
            tb += caller_b()
    stop.set()
    if sleeper:
        sleeper.join()
    with open(out, "w") as f:
        f.write("%.6f %.6f\n" % (ta, tb))


if __name__ == "__main__":
    main()
