//! Reads, writes, single-use records, JSON and the fault switch, on both implementations.

use crate::support::{assert_unavailable, every_operation};
use backend::store::{Space, Store, StoreError};
use serde::{Deserialize, Serialize};
use std::time::Duration;

both!(
    get_put_delete_round_trip,
    spaces_are_separate,
    insert_new_refuses_an_existing_key,
    take_returns_the_value_once,
    json_round_trips_and_garbage_is_corrupt,
    increment_on_a_non_counter_is_corrupt,
    the_fault_switch_fails_every_call_until_it_is_off,
);

async fn get_put_delete_round_trip(store: Store) {
    let space = Space::Users;
    assert_eq!(store.get(space, "ada").await.expect("get"), None);
    store.put(space, "ada", b"first", None).await.expect("put");
    store.put(space, "ada", b"second", None).await.expect("put");
    assert_eq!(
        store.get(space, "ada").await.expect("get"),
        Some(b"second".to_vec())
    );
    assert!(store.delete(space, "ada").await.expect("delete"));
    assert!(!store.delete(space, "ada").await.expect("delete again"));
    assert_eq!(store.get(space, "ada").await.expect("get"), None);
}

async fn spaces_are_separate(store: Store) {
    store
        .put(Space::Users, "ada", b"user", None)
        .await
        .expect("put");
    store
        .put(Space::Projects, "ada", b"project", None)
        .await
        .expect("put");
    store.delete(Space::Users, "ada").await.expect("delete");
    let project = store.get(Space::Projects, "ada").await.expect("get");
    assert_eq!(project, Some(b"project".to_vec()));
}

async fn insert_new_refuses_an_existing_key(store: Store) {
    let ttl = Some(Duration::from_secs(60));
    assert!(
        store
            .insert_new(Space::Invitations, "i1", b"one", ttl)
            .await
            .expect("insert")
    );
    assert!(
        !store
            .insert_new(Space::Invitations, "i1", b"two", None)
            .await
            .expect("insert")
    );
    assert_eq!(
        store.get(Space::Invitations, "i1").await.expect("get"),
        Some(b"one".to_vec()),
        "the refused insert changed nothing"
    );
    assert!(
        store
            .ttl(Space::Invitations, "i1")
            .await
            .expect("ttl")
            .is_some()
    );
    store
        .delete(Space::Invitations, "i1")
        .await
        .expect("delete");
    assert!(
        store
            .insert_new(Space::Invitations, "i1", b"three", None)
            .await
            .expect("insert")
    );
}

async fn take_returns_the_value_once(store: Store) {
    store
        .put(Space::Codes, "c1", b"hash", None)
        .await
        .expect("put");
    assert_eq!(
        store.take(Space::Codes, "c1").await.expect("take"),
        Some(b"hash".to_vec())
    );
    assert_eq!(
        store.take(Space::Codes, "c1").await.expect("take again"),
        None
    );
    assert_eq!(store.get(Space::Codes, "c1").await.expect("get"), None);
    assert_eq!(store.take(Space::Codes, "never").await.expect("take"), None);
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Project {
    name: String,
    key: String,
}

async fn json_round_trips_and_garbage_is_corrupt(store: Store) {
    let project = Project {
        name: "Estate".to_owned(),
        key: "EST".to_owned(),
    };
    store
        .put_json(Space::Projects, "p1", &project, None)
        .await
        .expect("put_json");
    let read: Option<Project> = store
        .get_json(Space::Projects, "p1")
        .await
        .expect("get_json");
    assert_eq!(read, Some(project));
    let missing: Option<Project> = store
        .get_json(Space::Projects, "p2")
        .await
        .expect("get_json");
    assert_eq!(missing, None);

    store
        .put(Space::Projects, "p3", b"{not json", None)
        .await
        .expect("put");
    match store.get_json::<Project>(Space::Projects, "p3").await {
        Err(error @ StoreError::Corrupt(_)) => {
            assert_eq!(error.to_string(), "store record unreadable");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

async fn increment_on_a_non_counter_is_corrupt(store: Store) {
    store
        .put(Space::Attempts, "a", b"five", None)
        .await
        .expect("put");
    let result = store
        .increment(Space::Attempts, "a", Duration::from_secs(60))
        .await;
    assert!(matches!(result, Err(StoreError::Corrupt(_))), "{result:?}");
}

async fn the_fault_switch_fails_every_call_until_it_is_off(store: Store) {
    let clone = store.clone();
    store.fault_switch().fail(true);
    for (name, _, result) in every_operation(&clone).await {
        assert_unavailable(result, name);
    }
    store.fault_switch().fail(false);
    for (name, _, result) in every_operation(&clone).await {
        assert!(result.is_ok(), "{name}: {result:?}");
    }
}
