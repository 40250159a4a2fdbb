//! Outgoing mail as JSON lines in one file (`$DATA_DIR/outbox.jsonl`), which tests and
//! developers read instead of an inbox. SMTP delivery is not part of this piece: when it
//! lands it sits behind the same [`Outbox::send`].
//!
//! Each mail is serialised first and written with one `write_all` of the whole line under a
//! lock, to a file opened in append mode, so concurrent senders never interleave lines.

use serde::{Deserialize, Serialize};
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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

/// The outbox file: cheap to clone, clones share the write lock.
#[derive(Clone, Debug)]
pub struct Outbox {
    path: PathBuf,
    write_lock: Arc<Mutex<()>>,
}

impl Outbox {
    /// An outbox appending to `path`; the file and its directory are made on the first send.
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            write_lock: Arc::new(Mutex::new(())),
        }
    }

    /// Where the mail goes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `mail` as one line. Blocking file I/O: async callers use the blocking pool.
    pub fn send(&self, mail: &Mail) -> io::Result<()> {
        let mut line = serde_json::to_vec(mail)?;
        line.push(b'\n');
        let _guard = self
            .write_lock
            .lock()
            .map_err(|_| io::Error::other("outbox lock poisoned"))?;
        if let Some(dir) = self.path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?
            .write_all(&line)
    }
}

/// Every mail in the outbox at `path`, oldest first; none when the file does not exist yet.
pub fn read_all(path: &Path) -> io::Result<Vec<Mail>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).map_err(io::Error::from))
        .collect()
}
