//! Atomic steps under contention: many tasks race on one key.

use backend::store::{Space, Store};
use std::time::Duration;

both!(
    one_of_twenty_takers_gets_the_code,
    fifty_increments_count_to_fifty
);

async fn one_of_twenty_takers_gets_the_code(store: Store) {
    store
        .put(Space::Codes, "race", b"hash", None)
        .await
        .expect("put");
    let takers: Vec<_> = (0..20)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.take(Space::Codes, "race").await })
        })
        .collect();
    let mut winners = 0;
    for taker in takers {
        let taken = taker.await.expect("the task completes").expect("take");
        winners += usize::from(taken.is_some());
    }
    assert_eq!(winners, 1);
}

async fn fifty_increments_count_to_fifty(store: Store) {
    let window = Duration::from_secs(60);
    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.increment(Space::Attempts, "otp:c1", window).await })
        })
        .collect();
    let mut seen = Vec::new();
    for task in tasks {
        seen.push(task.await.expect("the task completes").expect("increment"));
    }
    seen.sort_unstable();
    assert_eq!(
        seen,
        (1..=50).collect::<Vec<u64>>(),
        "each increment saw its own value"
    );
    assert_eq!(
        store.get(Space::Attempts, "otp:c1").await.expect("get"),
        Some(b"50".to_vec())
    );
    let remaining = store
        .ttl(Space::Attempts, "otp:c1")
        .await
        .expect("ttl")
        .expect("a TTL");
    assert!(remaining <= window, "{remaining:?}");
}
