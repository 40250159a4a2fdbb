//! The outbox file, `$DATA_DIR/outbox.jsonl`: one JSON object a line.
//!
//! Each mail is serialised first and written with one `write_all` of the whole line under a
//! lock, to a file opened in append mode, so concurrent senders never interleave lines.

use super::Mail;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The outbox file: cheap to clone, clones share the write lock.
#[derive(Clone, Debug)]
pub struct MailFile {
    path: PathBuf,
    write_lock: Arc<Mutex<()>>,
}

impl MailFile {
    /// A file appended to at `path`; the file and its directory are made on the first send.
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
    pub fn append(&self, mail: &Mail) -> io::Result<()> {
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
