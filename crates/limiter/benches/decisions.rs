//! Our in-memory decision against governor's default keyed limiter, side by side in one run,
//! on the same pre-digested keys; plus the digest's own cost per key.
//!
//! `cargo bench -p limiter --bench decisions`

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use futures_util::FutureExt;
use governor::{Quota, RateLimiter};
use limiter::{KeyDigest, Limiter};
use std::hint::black_box;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

const LIVE_KEYS: [usize; 2] = [1_000, 20_000];
const BUDGET: u32 = 1_000_000;

fn keys(count: usize) -> Arc<Vec<KeyDigest>> {
    Arc::new(
        (0..count)
            .map(|n| KeyDigest::of(format!("198.51.{}.{}", n / 256, n % 256)))
            .collect(),
    )
}

fn ours() -> Limiter {
    Limiter::builder("bench")
        .group(
            "group",
            limiter::Policy::new(BUDGET, Duration::from_secs(1)).expect("a valid budget"),
        )
        .build()
        .expect("the limiter builds")
}

fn governor() -> Arc<governor::DefaultKeyedRateLimiter<[u8; 16]>> {
    Arc::new(RateLimiter::keyed(Quota::per_second(
        NonZeroU32::new(BUDGET).expect("non-zero"),
    )))
}

/// Runs `iters` decisions spread over `threads` threads and returns the wall time.
fn timed(iters: u64, threads: u64, decide: impl Fn(usize) + Send + Sync) -> Duration {
    let per_thread = iters / threads;
    let started = Instant::now();
    thread::scope(|scope| {
        for thread in 0..threads {
            let decide = &decide;
            scope.spawn(move || {
                for i in 0..per_thread {
                    decide(usize::try_from(i * threads + thread).unwrap_or(0));
                }
            });
        }
    });
    started.elapsed()
}

fn decisions(c: &mut Criterion) {
    for threads in [1u64, 2] {
        let mut group = c.benchmark_group(format!("decision/{threads}-thread"));
        for live in LIVE_KEYS {
            let keys = keys(live);
            let limiter = ours();
            let id = limiter.group_id("group").expect("a declared group");
            group.bench_function(BenchmarkId::new("ours", live), |b| {
                b.iter_custom(|iters| {
                    timed(iters, threads, |i| {
                        black_box(limiter.check(id, keys[i % live]).now_or_never());
                    })
                });
            });
            let reference = governor();
            group.bench_function(BenchmarkId::new("governor", live), |b| {
                b.iter_custom(|iters| {
                    timed(iters, threads, |i| {
                        let _ = black_box(reference.check_key(keys[i % live].as_bytes()));
                    })
                });
            });
        }
        group.finish();
    }
}

/// Where one decision's time goes: the clock read, and the bounded store with no clock.
fn breakdown(c: &mut Criterion) {
    let clock = limiter::SystemClock::new();
    c.bench_function("breakdown/clock-read/instant", |b| {
        b.iter(|| black_box(limiter::Clock::now(&clock)))
    });
    let coarse = limiter::clock::CoarseClock::new();
    c.bench_function("breakdown/clock-read/coarse", |b| {
        b.iter(|| black_box(limiter::Clock::now(&coarse)))
    });
    let keys = keys(20_000);
    let store = limiter::memory::MemoryStore::new(20_000);
    let gcra = limiter::gcra::Gcra::new(
        &limiter::Policy::new(BUDGET, Duration::from_secs(1)).expect("a valid budget"),
    );
    let mut i = 0usize;
    c.bench_function("breakdown/store-only/20000", |b| {
        b.iter(|| {
            i = (i + 1) % keys.len();
            let bucket = limiter::memory::BucketKey {
                group: 0,
                key: keys[i],
            };
            black_box(store.decide(bucket, &gcra, u64::try_from(i).unwrap_or(0)))
        });
    });
}

fn digest(c: &mut Criterion) {
    let raw = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0";
    c.bench_function("digest/sha256-16-of-a-bearer", |b| {
        b.iter(|| KeyDigest::of(black_box(raw)))
    });
    c.bench_function("digest/ipv4", |b| {
        b.iter(|| KeyDigest::of(black_box("203.0.113.7")))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = decisions, breakdown, digest
}
criterion_main!(benches);
