//! The Redis backend behind Sentinel: a budget spent on the first primary is still spent on the
//! replica a failover promotes, and the limiter follows it without a restart (real containers:
//! a primary, a replica, three Sentinels; `ESTATE_SKIP_DOCKER=1` skips).

use limiter::CommonSettings;
use limiter::{KeyDigest, Limiter, Outcome, RedisConfig};
use std::time::{Duration, Instant};
use testkit::SentinelSet;

/// The longest the failover may take before the test fails.
const FAILOVER_WITHIN: Duration = Duration::from_secs(20);

fn replica(url: &str) -> Limiter {
    let mut config = RedisConfig::new(url);
    config.cool_down = Duration::from_millis(300);
    Limiter::builder("backend")
        .group("credential", "5/1h".parse().expect("a valid budget"))
        .redis(config)
        .build()
        .expect("the limiter builds")
}

/// Decides on fresh keys until one is decided by Redis again, not locally; how long it took.
async fn until_redis_decides(limiter: &Limiter, failed_at: Instant) -> Duration {
    let credential = limiter.group_id("credential").expect("a declared group");
    let mut probe = 0_u32;
    while failed_at.elapsed() < FAILOVER_WITHIN {
        probe += 1;
        let before = limiter.count(credential, Outcome::Fallback);
        let decision = limiter
            .check(credential, KeyDigest::of(format!("probe-{probe}")))
            .await;
        if decision.is_allowed() && limiter.count(credential, Outcome::Fallback) == before {
            return failed_at.elapsed();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("Redis decided nothing within {FAILOVER_WITHIN:?} of the failure");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_spent_before_the_failover_is_still_spent_after_it() {
    let Some(sentinels) = SentinelSet::start().await else {
        return;
    };
    let limiter = replica(&sentinels.url());
    let credential = limiter.group_id("credential").expect("a declared group");
    let key = KeyDigest::of("198.51.100.7");
    for attempt in 1..=5 {
        assert!(
            limiter.check(credential, key).await.is_allowed(),
            "attempt {attempt} is within the budget"
        );
    }
    assert!(!limiter.check(credential, key).await.is_allowed());
    assert_eq!(limiter.count(credential, Outcome::Fallback), 0);
    // Replication is asynchronous: give the replica time to hold the spent budget.
    tokio::time::sleep(Duration::from_secs(1)).await;

    sentinels.kill_primary();
    let window = until_redis_decides(&limiter, Instant::now()).await;
    println!("the limiter decided on Redis again {window:?} after the primary was killed");

    let fallbacks = limiter.count(credential, Outcome::Fallback);
    assert!(
        !limiter.check(credential, key).await.is_allowed(),
        "the spent budget survived the failover"
    );
    assert_eq!(limiter.count(credential, Outcome::Fallback), fallbacks);
    let restarted = replica(&sentinels.url());
    assert!(
        !decided_by_redis(&restarted, key).await,
        "a replica started after the failover sees the same spent budget"
    );
}

/// Whether `key` is allowed, asked until Redis decides (a new limiter finds the primary first).
async fn decided_by_redis(limiter: &Limiter, key: KeyDigest) -> bool {
    let credential = limiter.group_id("credential").expect("a declared group");
    for _ in 0..50 {
        let before = limiter.count(credential, Outcome::Fallback);
        let allowed = limiter.check(credential, key).await.is_allowed();
        if limiter.count(credential, Outcome::Fallback) == before {
            return allowed;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("Redis decided nothing in 50 tries");
}
