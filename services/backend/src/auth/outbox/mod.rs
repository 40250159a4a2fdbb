//! Outgoing mail (docs/DESIGN.md, "The backend"): the routes hand each [`Mail`] to one [`Outbox`], which
//! delivers it by SMTP when `SMTP_URL` is set, and otherwise appends it to the JSON-lines file
//! `$DATA_DIR/outbox.jsonl` that tests and developers read instead of an inbox.
//!
//! Neither way blocks a request on mail: the file append runs on the blocking pool, and SMTP
//! delivery happens in the background from a queue in the store ([`queue`]), so an SMTP server
//! that is slow or down costs a request nothing and loses no mail.
//!
//! # Layout
//! - [`file`]: the JSON-lines file.
//! - [`queue`]: the SMTP queue, its delivery task, retries and counters.
//! - [`work_queue`]: the durable, claim-based queue under it and under the account-mail jobs.
//! - [`message`]: a mail as an e-mail message (subject and text per kind).

pub mod file;
mod message;
pub mod queue;
pub mod work_queue;

pub use file::{MailFile, read_all};
pub use queue::{MailQueue, OutboxMetrics};

use crate::store::StoreError;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// What a mail is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MailKind {
    /// A one-time code.
    Otp,
    /// A login link.
    MagicLink,
    /// A password-reset link.
    PasswordReset,
    /// An invitation to a workspace.
    Invitation,
}

/// One mail: a line of the outbox.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mail {
    /// The recipient's address.
    pub to: String,
    /// What it is for.
    pub kind: MailKind,
    /// The one-time code, for [`MailKind::Otp`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The link, for the kinds that carry one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

/// Never the code or the link: a mail in a log line must not be usable.
impl std::fmt::Debug for Mail {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Mail")
            .field("to", &self.to)
            .field("kind", &self.kind)
            .field("has_code", &self.code.is_some())
            .field("has_link", &self.link.is_some())
            .finish()
    }
}

/// Why a mail was not accepted for delivery.
#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    /// The outbox file could not be written.
    #[error("outbox file not written")]
    File(#[source] io::Error),
    /// The SMTP queue (in the store) could not take it.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Where mail goes: cheap to clone.
#[derive(Clone, Debug)]
pub struct Outbox {
    delivery: Delivery,
    link_base: Option<Arc<str>>,
}

#[derive(Clone, Debug)]
enum Delivery {
    File(MailFile),
    Smtp(MailQueue),
}

impl Outbox {
    /// Mail appended to the JSON-lines file at `path`.
    pub fn file(path: PathBuf) -> Self {
        Self {
            delivery: Delivery::File(MailFile::new(path)),
            link_base: None,
        }
    }

    /// Mail delivered by SMTP through `queue`.
    pub fn smtp(queue: MailQueue) -> Self {
        Self {
            delivery: Delivery::Smtp(queue),
            link_base: None,
        }
    }

    /// Links (paths such as `/reset-password/…`) become `{base}{path}` in every mail.
    #[must_use]
    pub fn with_link_base(mut self, base: Option<String>) -> Self {
        self.link_base = base.map(Arc::from);
        self
    }

    /// Accepts `mail` for delivery: appended to the file, or queued for SMTP. Returns once
    /// the mail is kept, never waiting for an SMTP server.
    pub async fn send(&self, mut mail: Mail) -> Result<(), OutboxError> {
        if let (Some(base), Some(link)) = (&self.link_base, &mail.link)
            && link.starts_with('/')
        {
            mail.link = Some(format!("{base}{link}"));
        }
        match &self.delivery {
            Delivery::File(file) => {
                let file = file.clone();
                tokio::task::spawn_blocking(move || file.append(&mail))
                    .await
                    .map_err(io::Error::other)
                    .and_then(|appended| appended)
                    .map_err(OutboxError::File)
            }
            Delivery::Smtp(queue) => Ok(queue.enqueue(mail).await?),
        }
    }
}
