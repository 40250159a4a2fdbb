//! The per-workspace run index: `Runs::in_workspace` reads the workspace's set and only the
//! records it names, never the whole space.

use crate::support::runs;
use backend::scans::runs::{RunHub, RunStatus, Runs, frames};
use backend::store::Space;
use std::time::Duration;

#[tokio::test]
async fn a_workspace_lists_its_own_runs_through_its_index() {
    let (_dir, store, runs, hub) = runs();
    let first = runs.create("ws-a", "p1").await.expect("stored");
    let mut second = runs.create("ws-a", "p2").await.expect("stored");
    hub.emit(&mut second, frames::DONE.to_owned()).await;
    let other = runs.create("ws-b", "p3").await.expect("stored");

    let mut unindexed = other.clone();
    unindexed.id = uuid::Uuid::new_v4();
    unindexed.workspace_id = "ws-a".to_owned();
    runs.save(&unindexed)
        .await
        .expect("a record no index names");

    let listed = runs.in_workspace("ws-a").await.expect("listed");
    let mut ids: Vec<_> = listed.iter().map(|run| run.id).collect();
    ids.sort_unstable();
    let mut expected = [first.id, second.id];
    expected.sort_unstable();
    assert_eq!(ids, expected, "only the indexed ones");
    let done = listed
        .iter()
        .find(|run| run.id == second.id)
        .expect("listed");
    assert_eq!(done.status, RunStatus::Done);
    let members = store
        .set_members(Space::Runs, "ws-b")
        .await
        .expect("members");
    assert_eq!(members, [other.id.to_string()]);
    assert!(
        runs.in_workspace("ws-none")
            .await
            .expect("listed")
            .is_empty()
    );
}

#[tokio::test]
async fn an_unreadable_or_foreign_record_is_left_out() {
    let (_dir, store, runs, _hub) = runs();
    let kept = runs.create("ws-a", "p1").await.expect("stored");
    store
        .add_to_set(Space::Runs, "ws-a", "not-a-run")
        .await
        .expect("indexed");
    store
        .put(Space::Runs, "not-a-run", b"{", None)
        .await
        .expect("stored");
    let foreign = runs.create("ws-b", "p2").await.expect("stored");
    store
        .add_to_set(Space::Runs, "ws-a", &foreign.id.to_string())
        .await
        .expect("a wrong index entry");
    store
        .add_to_set(Space::Runs, "ws-a", "gone")
        .await
        .expect("an entry without a record");
    let listed = runs.in_workspace("ws-a").await.expect("listed");
    assert_eq!(
        listed.iter().map(|run| run.id).collect::<Vec<_>>(),
        [kept.id]
    );
}

#[tokio::test]
async fn listing_ends_the_runs_whose_lease_lapsed() {
    let (_dir, store, _runs, _hub) = runs();
    let short = Runs::with_lease(store.clone(), Duration::from_millis(800));
    let mut running = short.create("ws-a", "p1").await.expect("stored");
    RunHub::new(short.clone())
        .emit(&mut running, frames::progress("validate", "1 files"))
        .await;
    let alive = short.create("ws-a", "p2").await.expect("stored");
    let _keeper = short.keep_leased(alive.id);
    tokio::time::sleep(Duration::from_millis(1200)).await;

    let listed = short.in_workspace("ws-a").await.expect("listed");
    let ended = listed
        .iter()
        .find(|run| run.id == running.id)
        .expect("listed");
    assert_eq!(ended.status, RunStatus::Error);
    assert_eq!(
        ended.frames.last().map(String::as_str),
        Some("ERROR: validate: runner stopped")
    );
    let kept = listed
        .iter()
        .find(|run| run.id == alive.id)
        .expect("listed");
    assert_eq!(kept.status, RunStatus::Queued, "its lease is kept");
    let stored = short.get(running.id).await.expect("read").expect("the run");
    assert_eq!(&stored, ended, "the ending is stored");
}
