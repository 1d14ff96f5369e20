// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The Rust release build of tests/integration/t_lld.sh: an arithmetic loop
// (spin_a) and std's sort (spin_b), after the same 100 ms warmup and 300 ms
// pause as lldmain.c. usage: lldrust SECONDS
use std::time::{Duration, Instant};

// std::hint::black_box needs Rust 1.66; Debian 12 has 1.63
fn black_box(x: u64) -> u64 {
    unsafe { std::ptr::read_volatile(&x) }
}

#[inline(never)]
fn spin_a(n: u64) -> u64 {
    let mut x = black_box(1u64);
    for _ in 0..n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    }
    x
}

#[inline(never)]
fn spin_b(n: u64) -> u64 {
    let mut v: Vec<u64> = (0..n / 64).map(|i| i ^ 0x9e37).collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    v.iter().sum()
}

#[inline(never)]
fn warmup() -> u64 {
    let t0 = Instant::now();
    let mut s = black_box(1u64);
    // its own loop, not spin_a: stacks cut short before the tables exist stay apart
    while t0.elapsed() < Duration::from_millis(100) {
        for _ in 0..20000 {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
    }
    s
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let mut s = warmup();
    std::thread::sleep(Duration::from_millis(300));
    let t0 = Instant::now();
    while t0.elapsed().as_secs_f64() < secs {
        s = s.wrapping_add(spin_a(300000)).wrapping_add(spin_b(300000));
    }
    println!("{}", black_box(s) & 1);
}
