//! Sets (the index behind a listing that must not read a whole space), reading many keys at
//! once, and renewing a record's TTL (a lease).

use backend::store::{Space, Store};
use std::time::Duration;
use tokio::time::sleep;

both!(
    a_set_holds_distinct_members_sorted,
    a_set_is_apart_from_records_and_other_sets,
    get_many_answers_in_order_with_gaps_for_missing_and_expired,
    expire_renews_a_live_record,
    expire_never_revives_an_expired_record,
    put_in_set_writes_the_record_and_its_membership_together,
);

async fn put_in_set_writes_the_record_and_its_membership_together(store: Store) {
    let space = Space::MailJobs;
    store
        .put_in_set(
            space,
            "pending",
            "job-1",
            b"first",
            Some(Duration::from_secs(60)),
        )
        .await
        .expect("written");
    store
        .put_in_set(space, "pending", "job-2", b"second", None)
        .await
        .expect("written");
    let members = store.set_members(space, "pending").await.expect("members");
    assert_eq!(members, ["job-1", "job-2"]);
    let records = store.get_many(space, &members).await.expect("read");
    assert_eq!(records, [Some(b"first".to_vec()), Some(b"second".to_vec())]);
    let ttl = store.ttl(space, "job-1").await.expect("a ttl");
    assert!(
        ttl.is_some_and(|left| left <= Duration::from_secs(60)),
        "{ttl:?}"
    );
    store.fault_switch().fail_writes(true);
    assert!(
        store
            .put_in_set(space, "pending", "job-3", b"third", None)
            .await
            .is_err()
    );
    store.fault_switch().fail_writes(false);
    let members = store.set_members(space, "pending").await.expect("members");
    assert_eq!(members, ["job-1", "job-2"], "a failed write leaves nothing");
}

async fn a_set_holds_distinct_members_sorted(store: Store) {
    let space = Space::Runs;
    assert!(
        store
            .set_members(space, "ws-1")
            .await
            .expect("members")
            .is_empty()
    );
    let mut added = Vec::new();
    for member in ["run-b", "run-a", "run-c", "run-a"] {
        added.push(store.add_to_set(space, "ws-1", member).await.expect("add"));
    }
    assert_eq!(
        added,
        [true, true, true, false],
        "the second run-a was there"
    );
    let members = store.set_members(space, "ws-1").await.expect("members");
    assert_eq!(members, ["run-a", "run-b", "run-c"]);
    let removed = [
        store
            .remove_from_set(space, "ws-1", "run-b")
            .await
            .expect("remove"),
        store
            .remove_from_set(space, "ws-1", "run-b")
            .await
            .expect("remove"),
    ];
    assert_eq!(removed, [true, false]);
    let members = store.set_members(space, "ws-1").await.expect("members");
    assert_eq!(members, ["run-a", "run-c"]);
}

async fn a_set_is_apart_from_records_and_other_sets(store: Store) {
    let space = Space::Runs;
    store.add_to_set(space, "ws-1", "run-a").await.expect("add");
    store
        .add_to_set(space, "ws-10", "run-z")
        .await
        .expect("add");
    store
        .add_to_set(Space::Outbox, "ws-1", "other-space")
        .await
        .expect("add");
    store
        .put(space, "ws-1", b"a record", None)
        .await
        .expect("put");

    let record = store.get(space, "ws-1").await.expect("get");
    assert_eq!(record.as_deref(), Some(&b"a record"[..]));
    let listed = store.list(space, "").await.expect("list");
    assert_eq!(listed.len(), 1, "a set is no record: {listed:?}");
    let members = [
        store.set_members(space, "ws-1").await.expect("members"),
        store.set_members(space, "ws-10").await.expect("members"),
        store
            .set_members(Space::Outbox, "ws-1")
            .await
            .expect("members"),
    ];
    assert_eq!(members, [["run-a"], ["run-z"], ["other-space"]]);
}

async fn get_many_answers_in_order_with_gaps_for_missing_and_expired(store: Store) {
    let space = Space::Runs;
    store.put(space, "a", b"1", None).await.expect("put");
    store.put(space, "c", b"3", None).await.expect("put");
    store
        .put(space, "short", b"x", Some(Duration::from_millis(150)))
        .await
        .expect("put");
    sleep(Duration::from_millis(250)).await;
    let keys: Vec<String> = ["c", "missing", "a", "short"].map(str::to_owned).to_vec();
    let found = store.get_many(space, &keys).await.expect("get_many");
    assert_eq!(
        found,
        [Some(b"3".to_vec()), None, Some(b"1".to_vec()), None]
    );
    assert!(
        store
            .get_many(space, &[])
            .await
            .expect("get_many")
            .is_empty()
    );
    let many: Vec<String> = (0..450).map(|n| format!("k{n:03}")).collect();
    for key in many.iter().step_by(7) {
        store
            .put(space, key, key.as_bytes(), None)
            .await
            .expect("put");
    }
    let found = store
        .get_many(space, &many)
        .await
        .expect("more than one batch");
    assert_eq!(found.len(), 450);
    for (index, value) in found.iter().enumerate() {
        let expected = (index % 7 == 0).then(|| many[index].as_bytes().to_vec());
        assert_eq!(value, &expected, "{}", many[index]);
    }
}

async fn expire_renews_a_live_record(store: Store) {
    let space = Space::RunLeases;
    // Margins of 800 ms either way: a loaded machine's sleeps overrun, and the renewal must
    // still land before the first expiry and be read back before the second.
    let short = Duration::from_millis(2_000);
    store
        .put(space, "lease", b"owner", Some(short))
        .await
        .expect("put");
    sleep(Duration::from_millis(1_200)).await;
    assert!(store.expire(space, "lease", short).await.expect("renewed"));
    sleep(Duration::from_millis(1_200)).await;
    let value = store.get(space, "lease").await.expect("get");
    assert_eq!(
        value.as_deref(),
        Some(&b"owner"[..]),
        "renewed past its first expiry"
    );
    let left = store.ttl(space, "lease").await.expect("ttl");
    assert!(left.is_some_and(|left| left <= short), "{left:?}");
}

async fn expire_never_revives_an_expired_record(store: Store) {
    let space = Space::RunLeases;
    let short = Duration::from_millis(200);
    store
        .put(space, "lease", b"owner", Some(short))
        .await
        .expect("put");
    sleep(Duration::from_millis(300)).await;
    let renewals = [
        store.expire(space, "lease", short).await.expect("answered"),
        store
            .expire(space, "never-there", short)
            .await
            .expect("answered"),
    ];
    assert_eq!(renewals, [false, false]);
    assert_eq!(
        store.get(space, "lease").await.expect("get"),
        None,
        "never revived"
    );
}
