//! `RunHub`: a late subscriber replays then follows, the channel closes after the terminal
//! frame, nothing follows a terminal frame, and frames outlive the hub in the store.

use crate::support::runs;
use backend::scans::runs::{RunHub, RunStatus, Runs, frames};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

#[tokio::test]
async fn a_late_subscriber_replays_the_history_then_follows_until_closed() {
    let (_dir, store, runs, hub) = runs();
    let mut run = runs
        .create("ws-1", "proj-1")
        .await
        .expect("the run is stored");
    hub.open(&run);
    let early = hub
        .subscribe(run.id)
        .await
        .expect("store")
        .expect("the run");
    assert!(early.frames.is_empty());
    let mut early_live = early.live.expect("a queued run is live");
    hub.emit(&mut run, frames::progress("validate", "1 files"))
        .await;
    hub.emit(&mut run, frames::progress("analyze", "batch 1/1 (1 files)"))
        .await;

    let late = hub
        .subscribe(run.id)
        .await
        .expect("store")
        .expect("the run");
    assert_eq!(late.frames, run.frames);
    let mut late_live = late.live.expect("a running run is live");
    hub.emit(&mut run, frames::progress("store", "0 findings"))
        .await;
    hub.emit(&mut run, frames::DONE.to_owned()).await;

    assert_eq!(
        late_live.recv().await.expect("a frame"),
        "PROGRESS: store: 0 findings"
    );
    assert_eq!(late_live.recv().await.expect("a frame"), "DONE");
    assert!(matches!(late_live.recv().await, Err(RecvError::Closed)));
    for expected in &run.frames {
        assert_eq!(&early_live.recv().await.expect("a frame"), expected);
    }
    assert!(matches!(early_live.try_recv(), Err(TryRecvError::Closed)));

    let after = hub
        .subscribe(run.id)
        .await
        .expect("store")
        .expect("the run");
    assert_eq!((after.frames.len(), after.live.is_none()), (4, true));

    let elsewhere = RunHub::new(Runs::new(store.clone()));
    let replayed = elsewhere
        .subscribe(run.id)
        .await
        .expect("store")
        .expect("the run");
    assert_eq!(replayed.frames, run.frames);
    assert!(replayed.live.is_none());
    let stored = Runs::new(store)
        .get(run.id)
        .await
        .expect("store")
        .expect("the run");
    assert_eq!(
        (stored.status, stored.frames),
        (RunStatus::Done, run.frames)
    );
}

#[tokio::test]
async fn nothing_follows_a_terminal_frame() {
    let (_dir, _store, runs, hub) = runs();
    let mut run = runs
        .create("ws-1", "proj-1")
        .await
        .expect("the run is stored");
    hub.open(&run);
    hub.emit(&mut run, frames::error("validate", "no files to scan"))
        .await;
    hub.emit(&mut run, frames::DONE.to_owned()).await;
    hub.emit(&mut run, frames::progress("analyze", "late"))
        .await;
    assert_eq!(run.frames, ["ERROR: validate: no files to scan"]);
    assert_eq!(run.status, RunStatus::Error);
    let stored = runs.get(run.id).await.expect("store").expect("the run");
    assert_eq!(stored.frames, run.frames);
}

#[tokio::test]
async fn an_unknown_run_has_no_subscription() {
    let (_dir, _store, _runs, hub) = runs();
    let nobody = hub.subscribe(uuid::Uuid::new_v4()).await.expect("store");
    assert!(nobody.is_none());
}
