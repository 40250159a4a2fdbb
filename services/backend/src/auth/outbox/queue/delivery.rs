//! One delivery pass: find the due mail, claim each, send it, and record what happened.

use super::super::message::{self, Unsendable};
use super::super::work_queue::{WorkQueue, backoff, millis};
use super::{FIRST_RETRY, KEEP, MAX_ATTEMPTS, MAX_RETRY_WAIT, OutboxMetrics, Pending};
use crate::store::{StoreResult, now_ms};
use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use std::sync::Arc;
use std::time::Duration;

/// Why an attempt failed: worth another try, or never going to work.
enum Failure {
    Transient(String),
    Permanent(String),
}

/// What the delivery task works with: cheap to clone.
#[derive(Clone)]
pub(super) struct Deliverer {
    queue: WorkQueue,
    transport: Arc<AsyncSmtpTransport<Tokio1Executor>>,
    from: Mailbox,
    metrics: OutboxMetrics,
}

impl std::fmt::Debug for Deliverer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Deliverer")
            .field("from", &self.from.to_string())
            .finish_non_exhaustive()
    }
}

impl Deliverer {
    pub(super) fn new(
        queue: WorkQueue,
        transport: AsyncSmtpTransport<Tokio1Executor>,
        from: Mailbox,
        metrics: OutboxMetrics,
    ) -> Self {
        Self {
            queue,
            transport: Arc::new(transport),
            from,
            metrics,
        }
    }

    /// Tries every due mail once.
    pub(super) async fn deliver_due(&self) -> StoreResult<()> {
        for id in self.due().await? {
            self.attempt(&id).await?;
        }
        Ok(())
    }

    /// The ids of the pending mail whose next attempt is due.
    async fn due(&self) -> StoreResult<Vec<String>> {
        let now = now_ms();
        let pending = self.queue.pending::<Pending>().await?;
        Ok(pending
            .into_iter()
            .filter(|(_, pending)| pending.next_attempt_ms <= now)
            .map(|(id, _)| id)
            .collect())
    }

    /// Claims mail `id` (another replica may hold it) and tries it.
    async fn attempt(&self, id: &str) -> StoreResult<()> {
        self.queue
            .with_claim(id, |pending: Pending| self.attempt_claimed(id, pending))
            .await
            .map(drop)
    }

    async fn attempt_claimed(&self, id: &str, pending: Pending) -> StoreResult<()> {
        if pending.abandoned || pending.next_attempt_ms > now_ms() {
            return Ok(());
        }
        match self.send(&pending).await {
            Ok(()) => {
                self.queue.finish(id).await?;
                self.metrics.count("sent");
                Ok(())
            }
            Err(failure) => self.record_failure(id, pending, failure).await,
        }
    }

    async fn send(&self, pending: &Pending) -> Result<(), Failure> {
        let message = message::build(&self.from, &pending.mail)
            .map_err(|error: Unsendable| Failure::Permanent(error.to_string()))?;
        match self.transport.send(message).await {
            Ok(_) => Ok(()),
            Err(error) => Err(classify(&error)),
        }
    }

    /// Counts and logs a failed attempt, then schedules the next one or gives the mail up.
    async fn record_failure(
        &self,
        id: &str,
        mut pending: Pending,
        failure: Failure,
    ) -> StoreResult<()> {
        pending.attempts += 1;
        self.metrics.count("failed");
        let now = now_ms();
        let keep_until = pending.queued_at_ms.saturating_add(millis(KEEP));
        let (permanent, reason) = match failure {
            Failure::Permanent(reason) => (true, reason),
            Failure::Transient(reason) => (false, reason),
        };
        if permanent || pending.attempts >= MAX_ATTEMPTS {
            pending.abandoned = true;
            self.metrics.count("abandoned");
            log_abandoned(id, &pending, &reason);
            self.queue.drop_pending(id).await?;
        } else {
            let wait = retry_wait(pending.attempts);
            pending.next_attempt_ms = now.saturating_add(millis(wait));
            log_retry(id, &pending, &reason, wait);
        }
        if keep_until <= now {
            return self.queue.finish(id).await;
        }
        let left = Duration::from_millis(keep_until - now);
        self.queue.replace(id, &pending, left).await
    }
}

/// A server's reply is named by its code only: its text may quote the recipient.
fn classify(error: &lettre::transport::smtp::Error) -> Failure {
    let reason = error
        .status()
        .map_or_else(|| error.to_string(), |code| format!("SMTP reply {code}"));
    if error.is_permanent() {
        Failure::Permanent(reason)
    } else {
        Failure::Transient(reason)
    }
}

/// [`FIRST_RETRY`] after the first failure, doubling, at most [`MAX_RETRY_WAIT`].
fn retry_wait(attempts: u32) -> Duration {
    backoff(FIRST_RETRY, MAX_RETRY_WAIT, attempts)
}

fn log_retry(id: &str, pending: &Pending, reason: &str, wait: Duration) {
    let (kind, attempts) = (pending.mail.kind, pending.attempts);
    tracing::warn!(
        mail_id = id,
        ?kind,
        attempts,
        reason,
        ?wait,
        "mail not delivered; will retry"
    );
}

fn log_abandoned(id: &str, pending: &Pending, reason: &str) {
    let (kind, attempts) = (pending.mail.kind, pending.attempts);
    tracing::error!(
        mail_id = id,
        ?kind,
        attempts,
        reason,
        "mail not delivered; given up"
    );
}

#[cfg(test)]
mod tests {
    use super::retry_wait;
    use std::time::Duration;

    #[test]
    fn waits_double_from_two_seconds_up_to_five_minutes() {
        let waits: Vec<u64> = (1..=9).map(|n| retry_wait(n).as_secs()).collect();
        assert_eq!(waits, [2, 4, 8, 16, 32, 64, 128, 256, 300]);
        assert_eq!(retry_wait(u32::MAX), Duration::from_secs(300));
    }
}
