//! The Redis backend against a real Redis in Docker (built offline by
//! `scripts/offline-images.sh`; `REDIS_IMAGE` overrides it). Two limiter instances stand for
//! two replicas. Set `ESTATE_SKIP_DOCKER=1` to skip where there is no Docker; CI never does.

use limiter::CommonSettings;
use limiter::{KeyDigest, Limiter, Outcome, RedisConfig, retry_after_secs};
use std::time::{Duration, Instant};
use testkit::Redis;

fn replica(url: &str, budget: &str, cool_down: Duration) -> Limiter {
    let mut config = RedisConfig::new(url);
    config.cool_down = cool_down;
    Limiter::builder("backend")
        .group("credential", budget.parse().expect("a valid budget"))
        .redis(config)
        .build()
        .expect("the limiter builds")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_one_budget_exactly() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let url = redis.url.clone();
    let replicas = [
        replica(&url, "300/1h", Duration::from_secs(2)),
        replica(&url, "300/1h", Duration::from_secs(2)),
    ];
    let key = KeyDigest::of("198.51.100.20");
    let mut tasks = Vec::new();
    for task in 0..16 {
        let limiter = replicas[task % 2].clone();
        tasks.push(tokio::spawn(async move {
            let credential = limiter.group_id("credential").expect("a declared group");
            let mut allowed = 0u32;
            for _ in 0..25 {
                allowed += u32::from(limiter.check(credential, key).await.is_allowed());
            }
            allowed
        }));
    }
    let mut allowed = 0;
    for task in tasks {
        allowed += task.await.expect("the task completes");
    }
    assert_eq!(
        allowed, 300,
        "400 attempts across two replicas, one budget of 300"
    );
    for limiter in &replicas {
        let credential = limiter.group_id("credential").expect("a declared group");
        let wait = limiter
            .check(credential, key)
            .await
            .retry_after()
            .expect("refused");
        assert!((11..=12).contains(&retry_after_secs(wait)), "{wait:?}");
        assert_eq!(limiter.count(credential, Outcome::Fallback), 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_down_degrades_to_local_decisions_and_recovers() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let url = redis.url.clone();
    let cool_down = Duration::from_millis(300);
    let (first, second) = (
        replica(&url, "5/1h", cool_down),
        replica(&url, "5/1h", cool_down),
    );
    let credential = first.group_id("credential").expect("a declared group");
    assert!(
        first
            .check(credential, KeyDigest::of("warm-up"))
            .await
            .is_allowed()
    );

    redis.container.stop_with_timeout(Some(0)).await.unwrap();
    for attempt in 0..20 {
        let started = Instant::now();
        let decision = first.check(credential, KeyDigest::of("while-down")).await;
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "attempt {attempt}: {:?}",
            started.elapsed()
        );
        assert_eq!(
            decision.is_allowed(),
            attempt < 5,
            "local budget while down, attempt {attempt}"
        );
    }
    assert_eq!(first.count(credential, Outcome::Fallback), 20);

    redis.container.start().await.unwrap();
    let shared_again = Instant::now();
    let key = KeyDigest::of("after-restart");
    loop {
        let fallbacks = first.count(credential, Outcome::Fallback);
        first.check(credential, KeyDigest::of("probe")).await;
        if first.count(credential, Outcome::Fallback) == fallbacks {
            break;
        }
        assert!(
            shared_again.elapsed() < Duration::from_secs(20),
            "Redis never came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for _ in 0..5 {
        assert!(first.check(credential, key).await.is_allowed());
    }
    let refused = second.check(credential, key).await;
    assert!(
        !refused.is_allowed(),
        "the second replica sees the first one's spending"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_redis_costs_one_timeout_then_the_breaker_answers_at_once() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let url = redis.url.clone();
    let limiter = replica(&url, "300/1h", Duration::from_secs(30));
    let credential = limiter.group_id("credential").expect("a declared group");
    assert!(
        limiter
            .check(credential, KeyDigest::of("warm-up"))
            .await
            .is_allowed()
    );
    redis.container.pause().await.unwrap();
    let started = Instant::now();
    for _ in 0..100 {
        assert!(
            limiter
                .check(credential, KeyDigest::of("hung"))
                .await
                .is_allowed()
        );
    }
    let elapsed = started.elapsed();
    // Three timeouts open the breaker; the other 97 decisions never wait (100 waits of 50 ms
    // would take 5 s; the margin is for a loaded CI machine).
    assert!(elapsed < Duration::from_secs(1), "{elapsed:?}");
    assert_eq!(limiter.count(credential, Outcome::Fallback), 100);
    redis.container.unpause().await.unwrap();
}
