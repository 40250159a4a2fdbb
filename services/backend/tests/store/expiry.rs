//! Time to live: expiry, remaining time, and counters whose window later increments do not
//! extend. TTLs are short and sleeps bounded (each test well under 2 s).

use backend::store::{Space, Store};
use std::time::Duration;
use tokio::time::sleep;

both!(
    expired_records_read_as_absent,
    an_expired_key_is_free_and_others_stay,
    ttl_reports_the_remaining_time,
    increments_keep_the_first_expiry,
    an_expired_counter_starts_a_new_window,
);

const SHORT: Duration = Duration::from_millis(200);

async fn expired_records_read_as_absent(store: Store) {
    let space = Space::Tokens;
    for key in ["get", "take", "delete"] {
        store.put(space, key, b"v", Some(SHORT)).await.expect("put");
    }
    assert_eq!(
        store.get(space, "get").await.expect("get"),
        Some(b"v".to_vec())
    );
    sleep(SHORT + Duration::from_millis(100)).await;

    assert_eq!(store.get(space, "get").await.expect("get"), None);
    assert_eq!(store.ttl(space, "get").await.expect("ttl"), None);
    assert_eq!(store.take(space, "take").await.expect("take"), None);
    assert!(!store.delete(space, "delete").await.expect("delete"));
}

async fn an_expired_key_is_free_and_others_stay(store: Store) {
    let space = Space::Invitations;
    store
        .put(space, "expiring", b"old", Some(SHORT))
        .await
        .expect("put");
    store.put(space, "kept", b"v", None).await.expect("put");
    sleep(SHORT + Duration::from_millis(100)).await;

    let inserted = store.insert_new(space, "expiring", b"new", None).await;
    assert!(inserted.expect("insert"), "an expired key is free");
    assert_eq!(
        store.get(space, "expiring").await.expect("get"),
        Some(b"new".to_vec())
    );
    assert_eq!(
        store.get(space, "kept").await.expect("get"),
        Some(b"v".to_vec())
    );
}

async fn ttl_reports_the_remaining_time(store: Store) {
    let space = Space::Codes;
    store
        .put(space, "code", b"h", Some(Duration::from_secs(600)))
        .await
        .expect("put");
    let remaining = store.ttl(space, "code").await.expect("ttl").expect("a TTL");
    assert!(
        remaining <= Duration::from_secs(600) && remaining > Duration::from_secs(599),
        "{remaining:?}"
    );
    assert_eq!(store.ttl(space, "missing").await.expect("ttl"), None);

    store
        .put(space, "code", b"h", None)
        .await
        .expect("put without TTL");
    assert_eq!(
        store.ttl(space, "code").await.expect("ttl"),
        None,
        "a put replaces the TTL"
    );
}

async fn increments_keep_the_first_expiry(store: Store) {
    let (space, key) = (Space::Attempts, "login:ada");
    let later = Duration::from_secs(600);
    let first = store
        .increment(space, key, Duration::from_millis(400))
        .await;
    assert_eq!(first.expect("increment"), 1);
    sleep(Duration::from_millis(200)).await;
    assert_eq!(
        store.increment(space, key, later).await.expect("increment"),
        2
    );
    let remaining = store.ttl(space, key).await.expect("ttl").expect("a TTL");
    assert!(
        remaining <= Duration::from_millis(200),
        "not extended: {remaining:?}"
    );
    assert_eq!(
        store.get(space, key).await.expect("get"),
        Some(b"2".to_vec())
    );

    sleep(remaining + Duration::from_millis(100)).await;
    assert_eq!(store.get(space, key).await.expect("get"), None);
}

async fn an_expired_counter_starts_a_new_window(store: Store) {
    let (space, key) = (Space::Attempts, "otp:c1");
    for _ in 0..3 {
        store.increment(space, key, SHORT).await.expect("increment");
    }
    sleep(SHORT + Duration::from_millis(100)).await;
    let later = Duration::from_secs(600);
    assert_eq!(
        store.increment(space, key, later).await.expect("increment"),
        1
    );
    let remaining = store.ttl(space, key).await.expect("ttl").expect("a TTL");
    assert!(
        remaining > Duration::from_secs(599),
        "a new window: {remaining:?}"
    );
}
