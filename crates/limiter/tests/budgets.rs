//! Budgets as a client meets them: exact Retry-After per policy, continuous refill, several
//! limits on one request, and a flood of distinct keys against the bounded map.

use limiter::CommonSettings;
use limiter::{FakeClock, KeyDigest, Limiter, Outcome, Policy, retry_after_secs};
use std::sync::Arc;
use std::time::Duration;

fn limiter(groups: &[(&str, &str)], clock: &FakeClock) -> Limiter {
    groups
        .iter()
        .fold(Limiter::builder("test"), |builder, (name, budget)| {
            builder.group(name, budget.parse::<Policy>().expect("a valid budget"))
        })
        .clock(Arc::new(clock.clone()))
        .build()
        .expect("the limiter builds")
}

#[tokio::test]
async fn retry_after_is_the_refusing_buckets_arithmetic() {
    // (budget, time spent after emptying the bucket, expected Retry-After)
    let cases = [
        ("300/1h", 0, 12),
        ("20/15m", 0, 45),
        ("60/1m", 0, 1),
        ("120/15m", 0, 8),
        ("15000/60s", 0, 1),
        ("60/60s", 729, 1),
    ];
    for (budget, spent_ms, expected) in cases {
        let clock = FakeClock::new();
        let limiter = limiter(&[("group", budget)], &clock);
        let group = limiter.group_id("group").expect("a declared group");
        let key = KeyDigest::of("203.0.113.7");
        let limit = budget.parse::<Policy>().expect("a valid budget").limit();
        for _ in 0..limit {
            assert!(limiter.check(group, key).await.is_allowed(), "{budget}");
        }
        clock.advance(Duration::from_millis(spent_ms));
        let wait = limiter
            .check(group, key)
            .await
            .retry_after()
            .expect("refused");
        assert_eq!(retry_after_secs(wait), expected, "{budget}: wait {wait:?}");
    }
}

#[tokio::test]
async fn the_last_271_ms_still_read_one_second() {
    let clock = FakeClock::new();
    let limiter = limiter(&[("write", "60/60s")], &clock);
    let write = limiter.group_id("write").expect("a declared group");
    let key = KeyDigest::of("token");
    for _ in 0..60 {
        limiter.check(write, key).await;
    }
    clock.advance(Duration::from_millis(729));
    let wait = limiter.check(write, key).await.retry_after().unwrap();
    assert_eq!(wait, Duration::from_millis(271));
    assert_eq!(retry_after_secs(wait), 1);
}

#[tokio::test]
async fn refill_is_continuous_not_a_window_reset() {
    // The reference run: 126 sequential lookups over ~3 minutes all pass at 300/1h, because
    // the bucket hands back one token every 12 s; the burst after them gets exactly what is left.
    let clock = FakeClock::new();
    let limiter = limiter(&[("credential", "300/1h")], &clock);
    let credential = limiter.group_id("credential").expect("a declared group");
    let key = KeyDigest::of("198.51.100.4");
    let step = Duration::from_secs(180) / 126;
    for request in 0..126 {
        assert!(
            limiter.check(credential, key).await.is_allowed(),
            "request {request}"
        );
        clock.advance(step);
    }
    clock.advance(Duration::from_secs(180) - step * 126);
    let mut burst_allowed = 0;
    while limiter.check(credential, key).await.is_allowed() {
        burst_allowed += 1;
    }
    // 300 - 126 + the 15 tokens refunded in those 180 s (one per 12 s).
    assert_eq!(burst_allowed, 300 - 126 + 15);
    let wait = limiter.check(credential, key).await.retry_after().unwrap();
    assert_eq!(retry_after_secs(wait), 12);
}

#[tokio::test]
async fn several_limits_refuse_on_any_with_the_refusers_wait() {
    let clock = FakeClock::new();
    let limiter = Limiter::builder("backend")
        .group("email", "20/1h".parse().expect("a valid budget"))
        .hidden_group("email_recipient", "10/1h".parse().expect("a valid budget"))
        .clock(Arc::new(clock.clone()))
        .build()
        .expect("the limiter builds");
    let (per_ip, per_recipient) = (
        limiter.group_id("email").expect("a declared group"),
        limiter
            .group_id("email_recipient")
            .expect("a declared group"),
    );

    // Many sources, one inbox: the recipient ceiling refuses the 11th.
    let inbox = KeyDigest::of("victim@example.com");
    for source in 0..10 {
        let ip = KeyDigest::of(format!("192.0.2.{source}"));
        assert!(
            limiter
                .check_all(&[(per_ip, ip), (per_recipient, inbox)])
                .await
                .refusal()
                .is_none()
        );
    }
    let verdict = limiter
        .check_all(&[
            (per_ip, KeyDigest::of("192.0.2.99")),
            (per_recipient, inbox),
        ])
        .await;
    let (group, wait) = verdict.refusal().unwrap();
    assert_eq!((group, retry_after_secs(wait)), (per_recipient, 360));

    // One source, many inboxes: the per-IP ceiling refuses the 21st, and recipients it
    // never reached are not charged.
    let ip = KeyDigest::of("203.0.113.50");
    for inbox in 0..20 {
        let inbox = KeyDigest::of(format!("user{inbox}@example.com"));
        assert!(
            limiter
                .check_all(&[(per_ip, ip), (per_recipient, inbox)])
                .await
                .refusal()
                .is_none()
        );
    }
    let fresh_inbox = KeyDigest::of("fresh@example.com");
    let verdict = limiter
        .check_all(&[(per_ip, ip), (per_recipient, fresh_inbox)])
        .await;
    let (group, wait) = verdict.refusal().unwrap();
    assert_eq!((group, retry_after_secs(wait)), (per_ip, 180));
    assert_eq!(verdict.checked.len(), 1, "stops at the first refusal");
    assert_eq!(
        limiter.check(per_recipient, fresh_inbox).await.remaining(),
        9
    );
}

#[tokio::test]
async fn a_million_distinct_keys_leave_the_map_bounded() {
    let clock = FakeClock::new();
    let limiter = Limiter::builder("flood")
        .group("credential", "300/1h".parse().expect("a valid budget"))
        .max_tracked_keys(20_000)
        .clock(Arc::new(clock.clone()))
        .build()
        .expect("the limiter builds");
    let credential = limiter.group_id("credential").expect("a declared group");
    let victim = KeyDigest::of("first-seen");
    for _ in 0..300 {
        limiter.check(credential, victim).await;
    }
    assert!(!limiter.check(credential, victim).await.is_allowed());
    for n in 0..1_000_000u32 {
        assert!(
            limiter
                .check(credential, KeyDigest::of(n.to_le_bytes()))
                .await
                .is_allowed()
        );
        if n % 10_000 == 0 {
            assert!(limiter.tracked_keys() <= 20_000, "at key {n}");
        }
    }
    assert!(limiter.tracked_keys() <= 20_000);
    // The flood's buckets (one request each, a little in debt) pushed each other out; the
    // exhausted bucket, deepest in debt, was never the least and is still enforced.
    assert!(!limiter.check(credential, victim).await.is_allowed());
    let evicted = limiter.count(credential, Outcome::Evicted);
    assert!(evicted >= 1_000_000 - 20_000, "evicted {evicted}");
}
