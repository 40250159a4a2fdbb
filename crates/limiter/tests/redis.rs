//! The Redis backend against a real Redis in Docker (built offline by
//! `scripts/offline-images.sh`; `REDIS_IMAGE` overrides it). Two limiter instances stand for
//! two replicas. Set `ESTATE_SKIP_DOCKER=1` to skip where there is no Docker; CI never does.

use limiter::{KeyDigest, Limiter, Outcome, RedisConfig, retry_after_secs};
use std::net::TcpListener;
use std::time::{Duration, Instant};
use testcontainers::core::{IntoContainerPort, WaitFor};
use testcontainers::runners::AsyncRunner;
use testcontainers::{ContainerAsync, GenericImage, ImageExt};

fn docker_skipped() -> bool {
    let skip = std::env::var("ESTATE_SKIP_DOCKER").is_ok_and(|value| value == "1");
    if skip {
        eprintln!("ESTATE_SKIP_DOCKER=1: skipping a Redis-backed test");
    }
    skip
}

/// Starts Redis on a fixed free host port, so a stopped and restarted container comes back
/// on the same address.
async fn start_redis() -> (ContainerAsync<GenericImage>, String) {
    let image = std::env::var("REDIS_IMAGE").unwrap_or_else(|_| "estate/redis:7".to_owned());
    let (name, tag) = image.rsplit_once(':').unwrap_or((image.as_str(), "latest"));
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port();
    let container = GenericImage::new(name, tag)
        .with_exposed_port(6379.tcp())
        .with_wait_for(WaitFor::message_on_stdout("Ready to accept connections"))
        .with_mapped_port(port, 6379.tcp())
        .start()
        .await
        .expect("Redis container (run scripts/offline-images.sh)");
    (container, format!("redis://127.0.0.1:{port}"))
}

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
    if docker_skipped() {
        return;
    }
    let (_redis, url) = start_redis().await;
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
    if docker_skipped() {
        return;
    }
    let (redis, url) = start_redis().await;
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

    redis.stop_with_timeout(Some(0)).await.unwrap();
    for attempt in 0..20 {
        let started = Instant::now();
        let decision = first.check(credential, KeyDigest::of("while-down")).await;
        assert!(
            started.elapsed() < Duration::from_millis(250),
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

    redis.start().await.unwrap();
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
    if docker_skipped() {
        return;
    }
    let (redis, url) = start_redis().await;
    let limiter = replica(&url, "300/1h", Duration::from_secs(30));
    let credential = limiter.group_id("credential").expect("a declared group");
    assert!(
        limiter
            .check(credential, KeyDigest::of("warm-up"))
            .await
            .is_allowed()
    );
    redis.pause().await.unwrap();
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
    // Three timeouts open the breaker; the other 97 decisions never wait.
    assert!(elapsed < Duration::from_millis(400), "{elapsed:?}");
    assert_eq!(limiter.count(credential, Outcome::Fallback), 100);
    redis.unpause().await.unwrap();
}
