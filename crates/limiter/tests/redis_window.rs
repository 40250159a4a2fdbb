//! The shared sliding window against a real Redis in Docker (`testkit::Redis`; skipped when
//! `ESTATE_SKIP_DOCKER=1`). Two windows on one Redis stand for two replicas.

use limiter::CommonSettings;
use limiter::{KeyDigest, Outcome, Policy, RedisConfig, SlidingWindow, retry_after_secs};
use std::time::{Duration, Instant};
use testkit::Redis;

fn budget(text: &str) -> Policy {
    text.parse().expect("a valid budget")
}

fn shared(url: &str, group: &str, per_subject: &str, global: &str) -> SlidingWindow {
    let mut config = RedisConfig::new(url);
    config.cool_down = Duration::from_millis(300);
    SlidingWindow::builder("limiter-test", group, budget(per_subject), budget(global))
        .redis(config)
        .build()
        .expect("the window builds")
}

/// What a client can see of a decision: served, what is left, the waits in whole seconds.
fn seen(decision: limiter::Decision) -> (bool, u32, Option<u64>, u64) {
    (
        decision.is_allowed(),
        decision.remaining(),
        decision.retry_after().map(retry_after_secs),
        retry_after_secs(decision.reset_after()),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shared_window_decides_like_the_local_one() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let (per_subject, global) = ("3/2s", "5/2s");
    let remote = shared(&redis.url, "parity", per_subject, global);
    let local = SlidingWindow::new(
        budget(per_subject),
        budget(global),
        100,
        limiter::system_clock(),
    );
    // Steps 300 ms apart: every wait (2 s minus a multiple of 300 ms) and every arrival's age
    // stays at least 100 ms away from a whole second, so the two clocks round alike.
    let schedule = "aaaabbccabcaabcc";
    let (mut served, mut refused) = (0, 0);
    for (step, subject) in schedule.chars().enumerate() {
        let subject = KeyDigest::of(format!("subject-{subject}"));
        let expected = local.check(subject);
        let actual = remote.decide(subject).await;
        assert_eq!(seen(actual), seen(expected), "step {step}");
        let drift = actual
            .retry_after()
            .unwrap_or_default()
            .abs_diff(expected.retry_after().unwrap_or_default());
        assert!(drift < Duration::from_millis(100), "step {step}: {drift:?}");
        if expected.is_allowed() {
            served += 1;
        } else {
            refused += 1;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert!(
        served >= 5 && refused >= 3,
        "{served} served, {refused} refused"
    );
    assert_eq!(remote.count_of(Outcome::Fallback), 0);
}

/// Every decision of `attempts` tasks spread over `windows`, on `subjects(task, attempt)`.
async fn spend(
    windows: &[std::sync::Arc<SlidingWindow>],
    tasks: usize,
    attempts: usize,
    subject: fn(usize, usize) -> String,
) -> u32 {
    let mut running = Vec::new();
    for task in 0..tasks {
        let window = windows[task % windows.len()].clone();
        running.push(tokio::spawn(async move {
            let mut allowed = 0u32;
            for attempt in 0..attempts {
                let key = KeyDigest::of(subject(task, attempt));
                allowed += u32::from(window.decide(key).await.is_allowed());
            }
            allowed
        }));
    }
    let mut allowed = 0;
    for task in running {
        allowed += task.await.expect("the task completes");
    }
    allowed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_one_window_and_one_backstop_exactly() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let replicas = [
        std::sync::Arc::new(shared(&redis.url, "chat", "60/1m", "100/1m")),
        std::sync::Arc::new(shared(&redis.url, "chat", "60/1m", "100/1m")),
    ];
    let one_subject = spend(&replicas, 16, 10, |_, _| "subject-ann".to_owned()).await;
    assert_eq!(
        one_subject, 60,
        "160 attempts on two replicas, one window of 60"
    );
    for replica in &replicas {
        let refused = replica.decide(KeyDigest::of("subject-ann")).await;
        let wait = refused.retry_after().expect("refused");
        assert!((59..=60).contains(&retry_after_secs(wait)), "{wait:?}");
    }

    let many = spend(&replicas, 16, 5, |task, attempt| {
        format!("s-{task}-{attempt}")
    })
    .await;
    assert_eq!(
        many, 40,
        "80 subjects after 60 served: the backstop of 100 holds"
    );
    for replica in &replicas {
        assert_eq!(replica.count_of(Outcome::Fallback), 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_request_spends_neither_budget_and_logs_expire() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let window = shared(&redis.url, "spend", "2/1m", "3/2s");
    let (ann, bob, cy) = (
        KeyDigest::of("ann"),
        KeyDigest::of("bob"),
        KeyDigest::of("cy"),
    );
    assert!(window.decide(ann).await.is_allowed());
    assert!(window.decide(ann).await.is_allowed());
    for _ in 0..5 {
        let refused = window.decide(ann).await;
        assert_eq!(refused.retry_after().map(retry_after_secs), Some(60));
    }
    assert!(
        window.decide(bob).await.is_allowed(),
        "ann's refusals left the backstop alone"
    );
    for _ in 0..3 {
        let refused = window.decide(cy).await;
        assert_eq!(
            refused.retry_after().map(retry_after_secs),
            Some(2),
            "the backstop"
        );
    }

    let mut connection = redis::Client::open(redis.url.as_str())
        .expect("a Redis URL")
        .get_multiplexed_async_connection()
        .await
        .expect("a connection");
    let ann_key = format!("rl:limiter-test:spend:{}", ann.to_hex());
    let ttl: i64 = redis::cmd("PTTL")
        .arg(&ann_key)
        .query_async(&mut connection)
        .await
        .expect("PTTL");
    assert!(
        (55_000..=60_000).contains(&ttl),
        "{ann_key} expires with its window: {ttl}"
    );
    let cy_key = format!("rl:limiter-test:spend:{}", cy.to_hex());
    let exists: u8 = redis::cmd("EXISTS")
        .arg(&cy_key)
        .query_async(&mut connection)
        .await
        .expect("EXISTS");
    assert_eq!(exists, 0, "a refused subject leaves nothing behind");

    tokio::time::sleep(Duration::from_millis(2_100)).await;
    let global_key = "rl:limiter-test:spend:global";
    let exists: u8 = redis::cmd("EXISTS")
        .arg(global_key)
        .query_async(&mut connection)
        .await
        .expect("EXISTS");
    assert_eq!(exists, 0, "the backstop's log expired with its window");
    assert!(
        window.decide(cy).await.is_allowed(),
        "cy's refusals spent nothing"
    );
    assert!(window.decide(cy).await.is_allowed());
    assert!(
        !window.decide(cy).await.is_allowed(),
        "cy's own window of 2"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_redis_falls_back_within_the_timeout_and_recovers() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let (first, second) = (
        shared(&redis.url, "down", "5/1m", "1000/1m"),
        shared(&redis.url, "down", "5/1m", "1000/1m"),
    );
    assert!(first.decide(KeyDigest::of("warm-up")).await.is_allowed());

    redis.container.pause().await.expect("the container pauses");
    let started = Instant::now();
    for attempt in 0..30 {
        let asked = Instant::now();
        let decision = first.decide(KeyDigest::of("while-down")).await;
        assert!(
            asked.elapsed() < Duration::from_millis(500),
            "attempt {attempt}: {:?}",
            asked.elapsed()
        );
        assert_eq!(
            decision.is_allowed(),
            attempt < 5,
            "the local window, attempt {attempt}"
        );
        if attempt >= 5 {
            assert_eq!(decision.retry_after().map(retry_after_secs), Some(60));
        }
    }
    // Three timeouts of 50 ms open the breaker; the rest are decided at once.
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(first.count_of(Outcome::Fallback), 30);

    redis
        .container
        .unpause()
        .await
        .expect("the container resumes");
    let resumed = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let fallbacks = first.count_of(Outcome::Fallback);
        first.decide(KeyDigest::of("probe")).await;
        if first.count_of(Outcome::Fallback) == fallbacks {
            break;
        }
        assert!(
            resumed.elapsed() < Duration::from_secs(20),
            "Redis never came back"
        );
    }
    let key = KeyDigest::of("after-recovery");
    for _ in 0..5 {
        assert!(first.decide(key).await.is_allowed());
    }
    assert!(
        !second.decide(key).await.is_allowed(),
        "the second replica sees the first one's spending again"
    );
}
