//! The login ceiling: five failures, a ten-minute lock that refuses even the right password,
//! a reset on success; one counter per normalised address, account or not; persisted.

use crate::support::{Redis, embedded, replica};
use backend::auth::attempts::{FailureOutcome, LoginAttempts};
use backend::store::Store;
use std::time::Duration;

const LOCK: Duration = Duration::from_secs(600);

fn ceiling(store: Store) -> LoginAttempts {
    LoginAttempts::new(store, 5, LOCK)
}

/// Four counted failures, then the fifth locks: the sequence every test starts from.
async fn fail_five_times(attempts: &LoginAttempts, email: &str) -> Duration {
    for expected in 1..=4 {
        assert_eq!(
            attempts.record_failure(email).await.expect("counted"),
            FailureOutcome::Counted { failures: expected },
            "failure {expected}"
        );
        assert_eq!(attempts.locked(email).await.expect("checked"), None);
    }
    match attempts.record_failure(email).await.expect("counted") {
        FailureOutcome::Locked { remaining } => remaining,
        other => panic!("the fifth failure should lock, got {other:?}"),
    }
}

fn assert_fresh_lock(remaining: Option<Duration>) {
    let remaining = remaining.expect("locked");
    assert!(
        remaining > Duration::from_secs(599) && remaining <= LOCK,
        "{remaining:?}"
    );
    assert!(matches!(remaining.as_secs(), 599 | 600), "{remaining:?}");
}

#[tokio::test]
async fn five_failures_lock_for_ten_minutes() {
    let (_dir, store) = embedded();
    let attempts = ceiling(store);
    let remaining = fail_five_times(&attempts, "ada@example.com").await;
    assert_fresh_lock(Some(remaining));
    // The next attempt, right password or not, finds the lock before any password check.
    assert_fresh_lock(attempts.locked("ada@example.com").await.expect("checked"));
    // A failure while locked is not counted and reports the same lock.
    match attempts
        .record_failure("ada@example.com")
        .await
        .expect("ok")
    {
        FailureOutcome::Locked { remaining } => assert_fresh_lock(Some(remaining)),
        other => panic!("{other:?}"),
    }
    assert_eq!(attempts.locked("bob@example.com").await.expect("ok"), None);
}

#[tokio::test]
async fn success_resets_the_count_and_the_lock() {
    let (_dir, store) = embedded();
    let attempts = ceiling(store);
    for _ in 0..3 {
        attempts
            .record_failure("ada@example.com")
            .await
            .expect("counted");
    }
    attempts.reset("ada@example.com").await.expect("reset");
    assert_eq!(
        attempts
            .record_failure("ada@example.com")
            .await
            .expect("counted"),
        FailureOutcome::Counted { failures: 1 }
    );
    attempts.reset("ada@example.com").await.expect("reset");
    fail_five_times(&attempts, "ada@example.com").await;
    attempts.reset("ada@example.com").await.expect("reset");
    assert_eq!(attempts.locked("ada@example.com").await.expect("ok"), None);
}

#[tokio::test]
async fn case_variants_share_one_counter() {
    let (_dir, store) = embedded();
    let attempts = ceiling(store);
    let variants = [
        "ada@example.com",
        "ADA@example.com",
        " Ada@Example.Com",
        "ada@EXAMPLE.COM",
    ];
    for (failures, variant) in (1..).zip(variants) {
        assert_eq!(
            attempts.record_failure(variant).await.expect("counted"),
            FailureOutcome::Counted { failures }
        );
    }
    let locked = attempts
        .record_failure("aDa@example.com\n")
        .await
        .expect("ok");
    assert!(
        matches!(locked, FailureOutcome::Locked { .. }),
        "{locked:?}"
    );
    assert_fresh_lock(attempts.locked("ADA@EXAMPLE.COM").await.expect("ok"));
}

#[tokio::test]
async fn an_address_without_an_account_locks_the_same_way() {
    let (_dir, store) = embedded();
    let attempts = ceiling(store);
    // Nothing in this ceiling knows whether an account exists; the steps are the same.
    let remaining = fail_five_times(&attempts, "nobody@nowhere.example").await;
    assert_fresh_lock(Some(remaining));
    assert_fresh_lock(attempts.locked("nobody@nowhere.example").await.expect("ok"));
}

#[tokio::test]
async fn the_lock_survives_a_restart() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = Store::embedded(dir.path()).expect("opens");
    let attempts = ceiling(store);
    attempts
        .record_failure("bob@example.com")
        .await
        .expect("counted");
    fail_five_times(&attempts, "ada@example.com").await;
    drop(attempts);

    let reopened = ceiling(Store::embedded(dir.path()).expect("reopens"));
    assert_fresh_lock(reopened.locked("ada@example.com").await.expect("ok"));
    assert_eq!(
        reopened
            .record_failure("bob@example.com")
            .await
            .expect("counted"),
        FailureOutcome::Counted { failures: 2 },
        "the count survives too"
    );
}

#[tokio::test]
async fn the_lock_expires() {
    let (_dir, store) = embedded();
    let attempts = LoginAttempts::new(store, 2, Duration::from_millis(300));
    attempts
        .record_failure("ada@example.com")
        .await
        .expect("counted");
    let locked = attempts
        .record_failure("ada@example.com")
        .await
        .expect("ok");
    assert!(
        matches!(locked, FailureOutcome::Locked { .. }),
        "{locked:?}"
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(attempts.locked("ada@example.com").await.expect("ok"), None);
    assert_eq!(
        attempts
            .record_failure("ada@example.com")
            .await
            .expect("counted"),
        FailureOutcome::Counted { failures: 1 },
        "a fresh count after the lock"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_on_one_redis_share_the_count_and_the_lock() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let (first, second) = (ceiling(replica(&redis)), ceiling(replica(&redis)));
    for (failures, replica) in (1..=4).zip([&first, &second, &first, &second]) {
        assert_eq!(
            replica
                .record_failure("Ada@example.com")
                .await
                .expect("counted"),
            FailureOutcome::Counted { failures }
        );
    }
    let locked = first.record_failure("ada@example.com").await.expect("ok");
    assert!(
        matches!(locked, FailureOutcome::Locked { .. }),
        "{locked:?}"
    );
    assert_fresh_lock(second.locked("ADA@example.com").await.expect("ok"));
    second.reset("ada@example.com").await.expect("reset");
    assert_eq!(first.locked("ada@example.com").await.expect("ok"), None);
}
