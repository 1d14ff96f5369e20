# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""bench/python.sh's workload: a pure-Python hot loop under a stack of
DEPTH Python frames (level -> level -> ... -> spin), for CPU_SECONDS of
its own CPU time.  usage: pydeep.py CPU_SECONDS [DEPTH]"""
import sys
import time


def spin():
    x = 0
    for i in range(20000):
        x += i * i
    return x


def level(n):
    if n == 0:
        return spin()
    return level(n - 1)


def main():
    seconds = float(sys.argv[1])
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 28
    t = time.process_time()
    while time.process_time() - t < seconds:
        level(depth)


if __name__ == "__main__":
    main()
