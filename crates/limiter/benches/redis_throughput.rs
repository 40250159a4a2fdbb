//! Redis backend decisions per second with 16 concurrent tasks, against the server at
//! `REDIS_URL`. `scripts/bench-redis.sh` starts Redis, runs this, and runs `redis-benchmark`
//! with the same script on the same server for comparison.
//!
//! `REDIS_URL=redis://127.0.0.1:6379 cargo bench -p limiter --bench redis_throughput`

use limiter::CommonSettings;
use limiter::{KeyDigest, Limiter, Outcome, RedisConfig};
use std::time::{Duration, Instant};

const TASKS: u32 = 16;
const PER_TASK: u32 = 5_000;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Ok(url) = std::env::var("REDIS_URL") else {
        eprintln!("REDIS_URL is not set; scripts/bench-redis.sh sets it");
        return;
    };
    let mut config = RedisConfig::new(url);
    config.timeout = Duration::from_secs(1);
    let limiter = Limiter::builder("bench")
        .group("group", "1000000000/1h".parse().expect("a valid budget"))
        .redis(config)
        .build()
        .expect("the limiter builds");
    let id = limiter.group_id("group").expect("a declared group");
    let started = Instant::now();
    let tasks: Vec<_> = (0..TASKS)
        .map(|task| {
            let limiter = limiter.clone();
            tokio::spawn(async move {
                for n in 0..PER_TASK {
                    limiter
                        .check(
                            id,
                            KeyDigest::of(format!("k{}", (task * PER_TASK + n) % 10_000)),
                        )
                        .await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("the task completes");
    }
    let elapsed = started.elapsed().as_secs_f64();
    let decisions = f64::from(TASKS * PER_TASK);
    println!(
        "limiter redis decisions: {decisions} in {elapsed:.2} s = {:.0} decisions/s",
        decisions / elapsed
    );
    println!(
        "fallback decisions: {}",
        limiter.count(id, Outcome::Fallback)
    );
}
