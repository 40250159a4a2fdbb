//! Account mail off the request path: what a request that mails an address leaves for the
//! background, so its answer and its timing are the same whether or not the address has an
//! account.
//!
//! Signup, resend-otp (and pre-register), forgot-password and magic-link each write one
//! [`Job`] naming the address, the same for every address, and answer. Looking the account
//! up, creating it, issuing the code or the single-use link and handing the mail to the
//! outbox all happen here, after the answer, in one task per process. The job is durable (in
//! the store) before the request answers, so nothing is lost when the process dies after
//! answering: the job waits for the next pass of any replica.
//!
//! # Records (space `MailJobs`, a [`WorkQueue`])
//! - `{id}`: a [`Queued`] job, kept [`KEEP`]; pending in the set `pending`.
//! - `claim:{id}`: held by the replica working it, for [`CLAIM`], so two replicas on one Redis
//!   never work one job twice. A job whose replica died is worked again once its claim lapses.
//!
//! # Delivery
//! The task wakes when a job is written here, and every [`POLL`] in any case (jobs written by
//! another replica, retries that fall due, jobs left by a process that died). A job is worked
//! at least once: a process that dies after mailing and before finishing it mails again on
//! the retry (a second code replaces the first; a second link works like the first). A job
//! that fails on a store or outbox outage is tried again after [`FIRST_RETRY`], doubling up to
//! [`MAX_RETRY_WAIT`], until its [`KEEP`] runs out; one that can never work (an unreadable
//! record) is logged and dropped. Logs name the job's id and kind, never its address.
//!
//! # Layout
//! - [`mails`]: the code, reset-link and magic-link mails, which the signed-in routes also
//!   send directly (they reveal nothing: the caller is the account).
//! - `worker`: one pass over the due jobs.

pub mod mails;
mod worker;

use super::otp::OtpGuard;
use super::outbox::Outbox;
use super::outbox::work_queue::{WorkQueue, work_until_dropped};
use super::signups::{PendingSignups, SignupDetails};
use super::tokens::SingleUseTokens;
use super::users::Users;
use crate::store::{Space, Store, StoreResult, now_ms};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use worker::Worker;

/// How long a job is kept, worked or not.
pub const KEEP: Duration = Duration::from_secs(24 * 60 * 60);
/// How long a replica holds a job while it works it (a few store writes and a file append).
pub const CLAIM: Duration = Duration::from_secs(10);
/// How often the task looks for due jobs without being woken.
pub const POLL: Duration = Duration::from_secs(1);
/// The wait after a job's first failed attempt; each later wait doubles it.
pub const FIRST_RETRY: Duration = Duration::from_secs(1);
/// No wait between attempts is longer than this.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

/// What a request asked to be mailed, by address (normalised); the account is resolved later.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Job {
    /// Create the account (or, unverified, record this signup) and mail its code; nothing for
    /// a verified account.
    Signup {
        /// The address.
        email: String,
        /// The name and password hash the signup asked for.
        details: SignupDetails,
    },
    /// Mail a fresh code to an unverified account.
    Code {
        /// The address.
        email: String,
    },
    /// Mail a password-reset link to an account.
    ResetLink {
        /// The address.
        email: String,
    },
    /// Mail a sign-in link to a verified account.
    MagicLink {
        /// The address.
        email: String,
    },
}

impl Job {
    /// The kind, for logs (never the address).
    pub const fn kind(&self) -> &'static str {
        match self {
            Self::Signup { .. } => "signup",
            Self::Code { .. } => "code",
            Self::ResetLink { .. } => "reset_link",
            Self::MagicLink { .. } => "magic_link",
        }
    }
}

/// A job as stored.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Queued {
    job: Job,
    attempts: u32,
    queued_at_ms: u64,
    next_attempt_ms: u64,
}

/// The job queue: cheap to clone. The task stops once every clone is gone.
#[derive(Clone, Debug)]
pub struct MailJobs {
    queue: WorkQueue,
    wake: Arc<Notify>,
    worker: Worker,
}

impl MailJobs {
    /// Jobs in `store`, worked with these services.
    pub fn new(
        store: &Store,
        users: Users,
        otp: OtpGuard,
        tokens: SingleUseTokens,
        outbox: Outbox,
    ) -> Self {
        let queue = WorkQueue::new(store.clone(), Space::MailJobs, CLAIM);
        let signups = PendingSignups::new(store.clone());
        let worker = Worker::new(queue.clone(), users, otp, tokens, outbox, signups);
        Self {
            queue,
            wake: Arc::new(Notify::new()),
            worker,
        }
    }

    /// Spawns the task that works the jobs. Call it once, inside a Tokio runtime.
    pub fn start(&self) {
        let wake = Arc::downgrade(&self.wake);
        let worker = self.worker.clone();
        tokio::spawn(async move {
            work_until_dropped(wake, POLL, "account mail", || worker.work_due()).await;
        });
    }

    /// Keeps `job` and wakes the task; returns once the job is durable, never waiting for it.
    pub async fn enqueue(&self, job: Job) -> StoreResult<()> {
        let now = now_ms();
        let queued = Queued {
            job,
            attempts: 0,
            queued_at_ms: now,
            next_attempt_ms: now,
        };
        self.queue.push(&queued, KEEP).await?;
        self.wake.notify_one();
        Ok(())
    }

    /// Whether every job written so far has been worked (tests wait for it before reading
    /// the outbox).
    pub async fn settled(&self) -> StoreResult<bool> {
        self.queue.is_empty().await
    }

    /// The signups waiting for their code.
    pub fn signups(&self) -> &PendingSignups {
        self.worker.signups()
    }
}
