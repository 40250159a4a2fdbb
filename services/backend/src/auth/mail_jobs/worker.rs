//! One pass over the due jobs: claim each, resolve its account, mail what it asks for, and
//! finish it, or schedule its retry.

use super::{FIRST_RETRY, Job, KEEP, MAX_RETRY_WAIT, Queued, mails};
use crate::auth::AuthError;
use crate::auth::otp::{OtpGuard, OtpPurpose};
use crate::auth::outbox::work_queue::{WorkQueue, backoff, millis};
use crate::auth::outbox::{Mail, Outbox, OutboxError};
use crate::auth::signups::{PendingSignups, SignupDetails};
use crate::auth::tokens::SingleUseTokens;
use crate::auth::users::Users;
use crate::store::{StoreError, StoreResult, now_ms};
use std::time::Duration;

/// Why a job did not complete: worth another try, or never going to work.
enum Failure {
    Transient(String),
    Permanent(String),
}

impl From<StoreError> for Failure {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(cause) => Self::Transient(cause),
            StoreError::Corrupt(cause) => Self::Permanent(cause),
        }
    }
}

impl From<AuthError> for Failure {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::Store(store) => store.into(),
            other => Self::Permanent(other.to_string()),
        }
    }
}

impl From<OutboxError> for Failure {
    fn from(error: OutboxError) -> Self {
        match error {
            OutboxError::Store(store) => store.into(),
            OutboxError::File(cause) => Self::Transient(format!("outbox file: {cause}")),
        }
    }
}

/// What the task works with: cheap to clone.
#[derive(Clone, Debug)]
pub(super) struct Worker {
    queue: WorkQueue,
    users: Users,
    otp: OtpGuard,
    tokens: SingleUseTokens,
    outbox: Outbox,
    signups: PendingSignups,
}

impl Worker {
    pub(super) fn new(
        queue: WorkQueue,
        users: Users,
        otp: OtpGuard,
        tokens: SingleUseTokens,
        outbox: Outbox,
        signups: PendingSignups,
    ) -> Self {
        Self {
            queue,
            users,
            otp,
            tokens,
            outbox,
            signups,
        }
    }

    pub(super) fn signups(&self) -> &PendingSignups {
        &self.signups
    }

    /// Works every due job once.
    pub(super) async fn work_due(&self) -> StoreResult<()> {
        let now = now_ms();
        for (id, queued) in self.queue.pending::<Queued>().await? {
            if queued.next_attempt_ms <= now {
                self.queue
                    .with_claim(&id, |queued: Queued| self.work(&id, queued))
                    .await?;
            }
        }
        Ok(())
    }

    async fn work(&self, id: &str, queued: Queued) -> StoreResult<()> {
        if queued.next_attempt_ms > now_ms() {
            return Ok(());
        }
        let kind = queued.job.kind();
        match self.resolve(&queued.job).await {
            Ok(()) => self.queue.finish(id).await,
            Err(Failure::Permanent(reason)) => {
                tracing::error!(job_id = id, kind, reason, "account mail job dropped");
                self.queue.finish(id).await
            }
            Err(Failure::Transient(reason)) => self.retry_later(id, queued, &reason).await,
        }
    }

    /// Schedules the job's next attempt, or gives it up once that would fall after its
    /// [`KEEP`].
    async fn retry_later(&self, id: &str, mut queued: Queued, reason: &str) -> StoreResult<()> {
        let now = now_ms();
        queued.attempts += 1;
        let wait = backoff(FIRST_RETRY, MAX_RETRY_WAIT, queued.attempts);
        queued.next_attempt_ms = now.saturating_add(millis(wait));
        let keep_until = queued.queued_at_ms.saturating_add(millis(KEEP));
        if keep_until <= queued.next_attempt_ms {
            log_given_up(id, &queued, reason);
            return self.queue.finish(id).await;
        }
        log_retry(id, &queued, reason, wait);
        let left = Duration::from_millis(keep_until - now);
        self.queue.replace(id, &queued, left).await
    }

    async fn resolve(&self, job: &Job) -> Result<(), Failure> {
        match job {
            Job::Signup { email, details } => self.signup(email, details).await,
            Job::Code { email } => self.resend(email).await,
            Job::ResetLink { email } => {
                if self.users.find_by_email(email).await?.is_some() {
                    self.send(mails::reset_link(&self.tokens, email).await?)
                        .await?;
                }
                Ok(())
            }
            Job::MagicLink { email } => {
                let user = self.users.find_by_email(email).await?;
                if user.is_some_and(|user| user.verified) {
                    self.send(mails::magic_link(&self.tokens, email).await?)
                        .await?;
                }
                Ok(())
            }
        }
    }

    /// A new account, or another signup of an unverified one: its code, bound to what this
    /// signup asked for. A verified account is left as it is and gets nothing.
    async fn signup(&self, email: &str, details: &SignupDetails) -> Result<(), Failure> {
        let created = self
            .users
            .create(email, &details.name, &details.password_hash)
            .await;
        let unverified = match created {
            Ok(_) => true,
            Err(AuthError::EmailTaken) => self
                .users
                .find_by_email(email)
                .await?
                .is_some_and(|user| !user.verified),
            Err(error) => return Err(error.into()),
        };
        if !unverified {
            return Ok(());
        }
        self.signups.put(email, details).await?;
        self.send_code(email, Some(details)).await
    }

    /// A fresh code for an unverified account, bound to its latest signup.
    async fn resend(&self, email: &str) -> Result<(), Failure> {
        let user = self.users.find_by_email(email).await?;
        if user.is_none_or(|user| user.verified) {
            return Ok(());
        }
        let latest = self.signups.latest(email).await?;
        self.send_code(email, latest.as_ref()).await
    }

    async fn send_code(&self, email: &str, details: Option<&SignupDetails>) -> Result<(), Failure> {
        let binding = details.map(SignupDetails::to_binding).transpose()?;
        let mail = mails::code(&self.otp, email, OtpPurpose::Signup, binding.as_deref()).await?;
        self.send(mail).await
    }

    async fn send(&self, mail: Mail) -> Result<(), Failure> {
        Ok(self.outbox.send(mail).await?)
    }
}

fn log_retry(id: &str, queued: &Queued, reason: &str, wait: Duration) {
    let (kind, attempts) = (queued.job.kind(), queued.attempts);
    tracing::warn!(
        job_id = id,
        kind,
        attempts,
        reason,
        ?wait,
        "account mail job will retry"
    );
}

fn log_given_up(id: &str, queued: &Queued, reason: &str) {
    let (kind, attempts) = (queued.job.kind(), queued.attempts);
    tracing::error!(
        job_id = id,
        kind,
        attempts,
        reason,
        "account mail job given up"
    );
}
