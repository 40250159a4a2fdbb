//! The SMTP queue: mail is kept in the store first, then delivered in the background, so a
//! request never waits for an SMTP server and a server that is down loses nothing.
//!
//! # Records (space [`Space::Outbox`], a [`WorkQueue`])
//! - `{id}`: a [`Pending`] mail (the mail, attempts so far, when the next one is due), kept
//!   [`KEEP`] from when it was queued; every id waiting for delivery is a member of the set
//!   [`PENDING`].
//! - `claim:{id}`: taken by the replica delivering that mail, for [`CLAIM`], so two replicas
//!   sharing Redis never send one mail twice.
//!
//! # Delivery
//! One task per process ([`MailQueue::start`]) wakes when a mail is queued here, and every
//! [`POLL`] in any case (mail queued by another replica, retries that fall due). A delivered
//! mail's record is deleted. A failed attempt is counted (`outbox_deliveries_total
//! {outcome="failed"}`), logged, and tried again after a doubling wait ([`FIRST_RETRY`] up to
//! [`MAX_RETRY_WAIT`]); after [`MAX_ATTEMPTS`] attempts, or at once when the server refuses
//! the mail for good (a 5xx reply, an address it will not take), it is given up: counted as
//! `abandoned`, logged as an error, and its record kept (out of the pending set) until its
//! [`KEEP`] runs out, for an operator to see. Logs name the mail's id and kind, never its
//! recipient, code or link.
//!
//! A pending record holds the code or link in clear until it is delivered (at most [`KEEP`]):
//! the price of not losing mail while SMTP is down. Single-use tokens and codes themselves are
//! still stored only as digests.

mod delivery;
mod metrics;

pub use metrics::OutboxMetrics;

use super::Mail;
use super::work_queue::{WorkQueue, work_until_dropped};
use crate::config::SmtpConfig;
use crate::store::{Space, Store, StoreResult, now_ms};
use delivery::Deliverer;
use lettre::{AsyncSmtpTransport, Tokio1Executor};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

pub use super::work_queue::PENDING;
/// How long a queued mail's record is kept, delivered or not.
pub const KEEP: Duration = Duration::from_secs(24 * 60 * 60);
/// How long a replica holds a mail while it tries to deliver it.
pub const CLAIM: Duration = Duration::from_secs(120);
/// The longest one SMTP delivery may take (connect, dialogue, data).
pub const SEND_TIMEOUT: Duration = Duration::from_secs(20);
/// How often the delivery task looks for due mail without being woken.
pub const POLL: Duration = Duration::from_secs(1);
/// The wait after the first failed attempt; each later wait doubles it.
pub const FIRST_RETRY: Duration = Duration::from_secs(2);
/// No wait between attempts is longer than this.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(5 * 60);
/// Attempts before a mail is given up.
pub const MAX_ATTEMPTS: u32 = 8;

/// A queued mail as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Pending {
    mail: Mail,
    attempts: u32,
    queued_at_ms: u64,
    next_attempt_ms: u64,
    #[serde(default)]
    abandoned: bool,
}

/// The queue: cheap to clone. The delivery task stops once every clone is gone.
#[derive(Clone, Debug)]
pub struct MailQueue {
    queue: WorkQueue,
    wake: Arc<Notify>,
    deliverer: Deliverer,
}

impl MailQueue {
    /// A queue in `store` delivering through the SMTP server `config` names.
    ///
    /// # Errors
    /// When the transport cannot be set up (the URL was checked with the settings).
    pub fn new(
        store: Store,
        config: &SmtpConfig,
        metrics: OutboxMetrics,
    ) -> Result<Self, lettre::transport::smtp::Error> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(&config.url)?
            .timeout(Some(SEND_TIMEOUT))
            .build();
        let queue = WorkQueue::new(store, Space::Outbox, CLAIM);
        let deliverer = Deliverer::new(queue.clone(), transport, config.from.clone(), metrics);
        Ok(Self {
            queue,
            wake: Arc::new(Notify::new()),
            deliverer,
        })
    }

    /// Spawns the delivery task. Call it once, inside a Tokio runtime.
    pub fn start(&self) {
        let wake = Arc::downgrade(&self.wake);
        let deliverer = self.deliverer.clone();
        tokio::spawn(async move {
            work_until_dropped(wake, POLL, "mail", || deliverer.deliver_due()).await;
        });
    }

    /// Keeps `mail` for delivery and wakes the delivery task; returns without waiting for it.
    pub async fn enqueue(&self, mail: Mail) -> StoreResult<()> {
        let now = now_ms();
        let pending = Pending {
            mail,
            attempts: 0,
            queued_at_ms: now,
            next_attempt_ms: now,
            abandoned: false,
        };
        self.queue.push(&pending, KEEP).await?;
        self.wake.notify_one();
        Ok(())
    }
}
