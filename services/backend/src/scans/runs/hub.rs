//! `RunHub`: live frames for the runs this process is driving, with their history, so a
//! subscriber that arrives late replays what it missed and then follows.
//!
//! Every frame is stored with its run first, then appended to the history and broadcast under
//! one lock (the lock `subscribe` copies the history under), so a subscriber sees each frame
//! exactly once: either in the history it is handed or on its receiver. After the terminal frame the channel's sender is dropped:
//! receivers get that frame, then `Closed`. The last [`FINISHED_KEPT`] finished runs keep their
//! history here too (a run whose terminal frame the store refused is still replayed); older
//! ones, and runs another process drove, are replayed from the store with no receiver, as a
//! reader sees them ([`Runs::read`]: a run whose lease lapsed is ended there).
//!
//! Before storing a frame, [`RunHub::emit`] renews the run's lease. A lease that has lapsed
//! means a reader may already have ended the run, so the frame is replaced by that same
//! ending (`ERROR: <stage>: runner stopped`) and nothing follows it.

use super::{Run, Runs, frames, lease};
use crate::store::{StoreError, StoreResult};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::broadcast;
use uuid::Uuid;

/// Frames a receiver may fall behind by before it sees `Lagged` (and should resubscribe).
const CHANNEL_CAPACITY: usize = 256;
/// Finished runs whose history stays in memory.
const FINISHED_KEPT: usize = 1024;

/// What a subscriber gets: the frames so far, then the rest on `live`.
#[derive(Debug)]
pub struct Subscription {
    /// Every frame before the subscription, oldest first.
    pub frames: Vec<String>,
    /// The frames after them; `None` once the run has ended (or runs elsewhere).
    pub live: Option<broadcast::Receiver<String>>,
}

/// The hub: cheap to clone, clones share the channels.
#[derive(Clone, Debug)]
pub struct RunHub {
    runs: Runs,
    channels: Arc<Mutex<Channels>>,
}

#[derive(Debug, Default)]
struct Channels {
    by_run: HashMap<Uuid, Channel>,
    finished: VecDeque<Uuid>,
}

#[derive(Debug)]
struct Channel {
    frames: Vec<String>,
    sender: Option<broadcast::Sender<String>>,
}

impl RunHub {
    /// A hub persisting frames through `runs`.
    pub fn new(runs: Runs) -> Self {
        Self {
            runs,
            channels: Arc::default(),
        }
    }

    /// Opens `run`'s channel, so subscribers follow it from before its first frame.
    pub fn open(&self, run: &Run) {
        self.lock()
            .by_run
            .entry(run.id)
            .or_insert_with(|| Channel::new(&run.frames));
    }

    /// The frames of run `run_id` so far and a receiver for the rest; `Ok(None)` for a run
    /// that does not exist.
    pub async fn subscribe(&self, run_id: Uuid) -> StoreResult<Option<Subscription>> {
        if let Some(channel) = self.lock().by_run.get(&run_id) {
            return Ok(Some(Subscription {
                frames: channel.frames.clone(),
                live: channel.sender.as_ref().map(broadcast::Sender::subscribe),
            }));
        }
        Ok(self.runs.read(run_id).await?.map(|run| Subscription {
            frames: run.frames,
            live: None,
        }))
    }

    /// Renews the run's lease, appends `frame` to `run`, stores the run and broadcasts the
    /// frame. A frame after the terminal one is dropped (and logged): a run ends exactly once.
    /// A lapsed lease turns the frame into the abandoned ending. A store failure is logged and
    /// the frame still goes out, so a subscriber hears why a run ended even when the reason is
    /// the store.
    pub async fn emit(&self, run: &mut Run, frame: String) {
        if run.status.is_terminal() {
            log_after_terminal(run.id, &frame);
            return;
        }
        let frame = match self.runs.renew_lease(run.id).await {
            Ok(false) => lease::abandoned_frame(run),
            // Either renewed, or the store is failing and the save below says so.
            Ok(true) | Err(_) => frame,
        };
        run.record(&frame);
        if let Err(error) = self.runs.save(run).await {
            log_unsaved(run.id, &error);
        }
        let mut channels = self.lock();
        let history = &run.frames[..run.frames.len() - 1];
        let channel = channels
            .by_run
            .entry(run.id)
            .or_insert_with(|| Channel::new(history));
        let terminal = frames::is_terminal(&frame);
        channel.frames.push(frame.clone());
        if let Some(sender) = &channel.sender {
            // No receivers is not an error: nobody is watching yet.
            sender.send(frame).ok();
        }
        if terminal {
            channel.sender = None;
            channels.finish(run.id);
        }
    }

    /// A poisoned lock still holds consistent data: every critical section above only pushes
    /// and sets, and a panic between them loses at most the frame being added.
    fn lock(&self) -> MutexGuard<'_, Channels> {
        self.channels.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Channel {
    fn new(history: &[String]) -> Self {
        Self {
            frames: history.to_vec(),
            sender: Some(broadcast::channel(CHANNEL_CAPACITY).0),
        }
    }
}

impl Channels {
    /// Keeps the finished run's history, forgetting the oldest beyond [`FINISHED_KEPT`].
    fn finish(&mut self, run_id: Uuid) {
        self.finished.push_back(run_id);
        while self.finished.len() > FINISHED_KEPT {
            if let Some(oldest) = self.finished.pop_front() {
                self.by_run.remove(&oldest);
            }
        }
    }
}

fn log_after_terminal(run_id: Uuid, frame: &str) {
    tracing::error!(%run_id, frame, "frame after the terminal frame dropped");
}

fn log_unsaved(run_id: Uuid, error: &StoreError) {
    tracing::warn!(%run_id, %error, cause = ?error, "run frame not stored");
}
