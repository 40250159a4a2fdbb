//! What outlives one `Store` value: the embedded file across a restart, and one Redis seen
//! by two replicas.

use crate::support::{Redis, assert_unavailable};
use backend::store::{Space, Store};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_records_and_their_ttls_survive_a_restart() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let window = Duration::from_secs(600);
    let store = Store::embedded(dir.path()).expect("opens");
    store
        .put(Space::Users, "ada", b"account", None)
        .await
        .expect("put");
    store
        .put(Space::Codes, "c1", b"hash", Some(window))
        .await
        .expect("put");
    store
        .put(
            Space::Tokens,
            "brief",
            b"t",
            Some(Duration::from_millis(200)),
        )
        .await
        .expect("put");
    assert_eq!(
        store
            .increment(Space::Attempts, "login:ada", window)
            .await
            .expect("inc"),
        1
    );
    assert_unavailable(
        Store::embedded(dir.path()).map(drop),
        "a second open of a file in use",
    );
    drop(store);
    tokio::time::sleep(Duration::from_millis(300)).await;

    let store = Store::embedded(dir.path()).expect("reopens");
    assert_eq!(
        store.get(Space::Users, "ada").await.expect("get"),
        Some(b"account".to_vec())
    );
    assert_eq!(
        store.get(Space::Codes, "c1").await.expect("get"),
        Some(b"hash".to_vec())
    );
    let remaining = store
        .ttl(Space::Codes, "c1")
        .await
        .expect("ttl")
        .expect("a TTL");
    assert!(
        remaining > Duration::from_secs(598) && remaining <= window,
        "{remaining:?}"
    );
    assert_eq!(store.get(Space::Tokens, "brief").await.expect("get"), None);
    assert_eq!(
        store
            .increment(Space::Attempts, "login:ada", window)
            .await
            .expect("inc"),
        2
    );
    assert!(dir.path().join("estate.redb").is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_creates_its_data_dir() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let data_dir = dir.path().join("nested").join("data");
    let store = Store::embedded(&data_dir).expect("opens");
    store
        .put(Space::Users, "ada", b"account", None)
        .await
        .expect("put");
    assert!(data_dir.join("estate.redb").is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_redis_replicas_share_records_and_counters() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let (first, second) = (
        crate::support::store_on(&redis, "estate"),
        crate::support::store_on(&redis, "estate"),
    );
    first
        .put(Space::Users, "ada", b"account", None)
        .await
        .expect("put");
    assert_eq!(
        second.get(Space::Users, "ada").await.expect("get"),
        Some(b"account".to_vec())
    );

    let window = Duration::from_secs(60);
    let tasks: Vec<_> = (0..40)
        .map(|task| {
            let replica = if task % 2 == 0 {
                first.clone()
            } else {
                second.clone()
            };
            tokio::spawn(async move { replica.increment(Space::Attempts, "otp:c1", window).await })
        })
        .collect();
    for task in tasks {
        task.await.expect("the task completes").expect("increment");
    }
    assert_eq!(
        second
            .increment(Space::Attempts, "otp:c1", window)
            .await
            .expect("inc"),
        41
    );

    first
        .put(Space::Codes, "c1", b"hash", None)
        .await
        .expect("put");
    assert_eq!(
        second.take(Space::Codes, "c1").await.expect("take"),
        Some(b"hash".to_vec())
    );
    assert_eq!(
        first.take(Space::Codes, "c1").await.expect("take"),
        None,
        "single use"
    );

    let other_estate = crate::support::store_on(&redis, "other");
    assert_eq!(
        other_estate.get(Space::Users, "ada").await.expect("get"),
        None,
        "prefixes separate"
    );
}
