//! A real SMTP server for the delivery tests: Python's `aiosmtpd` (its `Mailbox` handler
//! writes each message it accepts into a Maildir), started as a child process on a loopback
//! port. Messages are read back with Python's own `email` parser, so a test sees the headers
//! and the decoded text a mail client would.
//!
//! Install: `apt-get install python3-aiosmtpd` (Debian; what CI uses) or `pip install
//! aiosmtpd`. `SMTP_TEST_PYTHON` names the interpreter to use; otherwise the first of
//! `python3` and `/usr/bin/python3` that can import it. Without one a test prints a skip line
//! and passes, except under `CI=true`, where it fails.

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One message as delivered.
#[derive(Debug, serde::Deserialize)]
pub struct Delivered {
    /// The envelope recipients (`RCPT TO`).
    pub rcpt_to: String,
    pub to: String,
    pub from: String,
    pub subject: String,
    /// The text, transfer-decoded.
    pub body: String,
}

/// Prints one JSON object per message in the Maildir given as the first argument.
const READ_MAILDIR: &str = r#"
import email, email.policy, json, mailbox, sys
for message in mailbox.Maildir(sys.argv[1], create=False):
    parsed = email.message_from_bytes(message.as_bytes(), policy=email.policy.default)
    print(json.dumps({
        "rcpt_to": parsed.get("X-RcptTo", ""),
        "to": parsed.get("To", ""),
        "from": parsed.get("From", ""),
        "subject": parsed.get("Subject", ""),
        "body": parsed.get_content(),
    }))
"#;

/// A running `aiosmtpd`; killed when dropped.
pub struct SmtpServer {
    child: Child,
    python: String,
    maildir: tempfile::TempDir,
}

/// The interpreter that can run `aiosmtpd`, or `None` after a skip line (a failure under CI).
pub fn python_with_aiosmtpd() -> Option<String> {
    let candidates = std::env::var("SMTP_TEST_PYTHON")
        .map(|python| vec![python])
        .unwrap_or_else(|_| vec!["python3".to_owned(), "/usr/bin/python3".to_owned()]);
    let found = candidates.into_iter().find(|python| {
        Command::new(python)
            .args(["-c", "import aiosmtpd"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    });
    if found.is_none() {
        let hint = "apt-get install python3-aiosmtpd (or pip install aiosmtpd)";
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "aiosmtpd is not importable and CI=true requires the SMTP tests: {hint}"
        );
        eprintln!("aiosmtpd is not importable: skipping an SMTP delivery test ({hint})");
    }
    found
}

impl SmtpServer {
    /// `aiosmtpd` on `127.0.0.1:port`, accepting connections (waits at most 10 s).
    ///
    /// # Panics
    /// When it does not start listening in time.
    pub fn start(python: &str, port: u16) -> Self {
        let maildir = tempfile::tempdir().expect("a Maildir directory");
        let child = Command::new(python)
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            // A path that does not exist yet: Python's Maildir makes it with its subfolders.
            .arg(maildir.path().join("mail"))
            .stdout(Stdio::null())
            .spawn()
            .expect("aiosmtpd starts");
        let server = Self {
            child,
            python: python.to_owned(),
            maildir,
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "aiosmtpd listens within 10 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// Every message delivered so far.
    pub fn messages(&self) -> Vec<Delivered> {
        read_maildir(&self.python, &self.maildir.path().join("mail"))
    }

    /// Waits (at most `within`) until at least `count` messages have arrived; all of them.
    pub async fn wait_for(&self, count: usize, within: Duration) -> Vec<Delivered> {
        let started = Instant::now();
        loop {
            let messages = self.messages();
            if messages.len() >= count || started.elapsed() > within {
                return messages;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

fn read_maildir(python: &str, maildir: &Path) -> Vec<Delivered> {
    let output = Command::new(python)
        .args(["-c", READ_MAILDIR])
        .arg(maildir)
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a message as JSON"))
        .collect()
}
