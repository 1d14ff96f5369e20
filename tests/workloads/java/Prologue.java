// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Java leaves at a compiled frame's edges (t_hotspot_edges): a hot loop
 * calls leaf(), too big for the JIT to inline (its bytecode is past C2's
 * FreqInlineSize of 325 bytes, on a path never taken), so every call runs
 * leaf's prologue and epilogue around a few instructions of work: about
 * half of leaf's samples land in one of them.
 *
 * usage: Prologue SECONDS: "ready" on stdout after a second (leaf is
 * compiled by then), the loop for SECONDS in all.
 */
public class Prologue {
	static volatile long sink;

	static long leaf(long x) {
		if (x >= 0)
			return x * 31 + 7;
		long y = x;
		y = y * 3 + 0;
		y = y * 4 + 1;
		y = y * 5 + 2;
		y = y * 6 + 3;
		y = y * 7 + 4;
		y = y * 8 + 5;
		y = y * 9 + 6;
		y = y * 3 + 7;
		y = y * 4 + 8;
		y = y * 5 + 9;
		y = y * 6 + 10;
		y = y * 7 + 11;
		y = y * 8 + 12;
		y = y * 9 + 13;
		y = y * 3 + 14;
		y = y * 4 + 15;
		y = y * 5 + 16;
		y = y * 6 + 17;
		y = y * 7 + 18;
		y = y * 8 + 19;
		y = y * 9 + 20;
		y = y * 3 + 21;
		y = y * 4 + 22;
		y = y * 5 + 23;
		y = y * 6 + 24;
		y = y * 7 + 25;
		y = y * 8 + 26;
		y = y * 9 + 27;
		y = y * 3 + 28;
		y = y * 4 + 29;
		y = y * 5 + 30;
		y = y * 6 + 31;
		y = y * 7 + 32;
		y = y * 8 + 33;
		y = y * 9 + 34;
		y = y * 3 + 35;
		y = y * 4 + 36;
		y = y * 5 + 37;
		y = y * 6 + 38;
		y = y * 7 + 39;
		y = y * 8 + 40;
		y = y * 9 + 41;
		y = y * 3 + 42;
		y = y * 4 + 43;
		y = y * 5 + 44;
		y = y * 6 + 45;
		y = y * 7 + 46;
		y = y * 8 + 47;
		y = y * 9 + 48;
		y = y * 3 + 49;
		y = y * 4 + 50;
		y = y * 5 + 51;
		y = y * 6 + 52;
		y = y * 7 + 53;
		y = y * 8 + 54;
		y = y * 9 + 55;
		y = y * 3 + 56;
		y = y * 4 + 57;
		y = y * 5 + 58;
		y = y * 6 + 59;
		y = y * 7 + 60;
		y = y * 8 + 61;
		y = y * 9 + 62;
		y = y * 3 + 63;
		y = y * 4 + 64;
		y = y * 5 + 65;
		y = y * 6 + 66;
		y = y * 7 + 67;
		y = y * 8 + 68;
		y = y * 9 + 69;
		y = y * 3 + 70;
		y = y * 4 + 71;
		y = y * 5 + 72;
		y = y * 6 + 73;
		y = y * 7 + 74;
		y = y * 8 + 75;
		y = y * 9 + 76;
		y = y * 3 + 77;
		y = y * 4 + 78;
		y = y * 5 + 79;
		y = y * 6 + 80;
		y = y * 7 + 81;
		y = y * 8 + 82;
		y = y * 9 + 83;
		y = y * 3 + 84;
		y = y * 4 + 85;
		y = y * 5 + 86;
		y = y * 6 + 87;
		y = y * 7 + 88;
		y = y * 8 + 89;
		y = y * 9 + 90;
		y = y * 3 + 91;
		y = y * 4 + 92;
		y = y * 5 + 93;
		y = y * 6 + 94;
		y = y * 7 + 95;
		y = y * 8 + 96;
		y = y * 9 + 97;
		y = y * 3 + 98;
		y = y * 4 + 99;
		y = y * 5 + 100;
		y = y * 6 + 101;
		y = y * 7 + 102;
		y = y * 8 + 103;
		y = y * 9 + 104;
		y = y * 3 + 105;
		y = y * 4 + 106;
		y = y * 5 + 107;
		y = y * 6 + 108;
		y = y * 7 + 109;
		y = y * 8 + 110;
		y = y * 9 + 111;
		y = y * 3 + 112;
		y = y * 4 + 113;
		y = y * 5 + 114;
		y = y * 6 + 115;
		y = y * 7 + 116;
		y = y * 8 + 117;
		y = y * 9 + 118;
		y = y * 3 + 119;
		return y;
	}

	public static void main(String[] args) {
		long t0 = System.nanoTime(), end = t0 + Long.parseLong(args[0]) * 1_000_000_000L, s = 0;
		boolean ready = false;

		while (System.nanoTime() < end) {
			for (int i = 0; i < 100000; i++)
				s += leaf(i);
			if (!ready && System.nanoTime() - t0 > 1_000_000_000L) {
				System.out.println("ready");
				System.out.flush();
				ready = true;
			}
		}
		sink = s;
	}
}
