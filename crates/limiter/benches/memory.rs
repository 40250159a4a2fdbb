//! Heap held after one million distinct keys: ours (bounded at 20 000 buckets) against
//! governor's default keyed limiter (unbounded until swept), counted by the allocator.
//!
//! `cargo bench -p limiter --bench memory`

use futures_util::FutureExt;
use governor::{Quota, RateLimiter};
use limiter::{KeyDigest, Limiter};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::num::NonZeroU32;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const KEYS: u32 = 1_000_000;

fn held_bytes(region: &Region<'_, System>) -> f64 {
    let change = region.change();
    (change.bytes_allocated as f64 - change.bytes_deallocated as f64) / 1_048_576.0
}

fn main() {
    let keys: Vec<KeyDigest> = (0..KEYS).map(|n| KeyDigest::of(n.to_le_bytes())).collect();

    let region = Region::new(GLOBAL);
    let ours = Limiter::builder("memory")
        .group("group", "300/1h".parse().expect("a valid budget"))
        .build()
        .expect("the limiter builds");
    let id = ours.group_id("group").expect("a declared group");
    for key in &keys {
        let _ = ours.check(id, *key).now_or_never();
    }
    let ours_mib = held_bytes(&region);
    let tracked = ours.tracked_keys();
    drop(ours);

    let region = Region::new(GLOBAL);
    let reference = RateLimiter::keyed(Quota::per_hour(NonZeroU32::new(300).expect("non-zero")));
    for key in &keys {
        let _ = reference.check_key(key.as_bytes());
    }
    let reference_mib = held_bytes(&region);
    let reference_len = reference.len();

    println!("keys offered         : {KEYS}");
    println!("ours      tracked    : {tracked:>8}   heap held: {ours_mib:>7.2} MiB");
    println!("governor  tracked    : {reference_len:>8}   heap held: {reference_mib:>7.2} MiB");
}
