//! The real `ingress` binary as a child process: a generated ingress file, `PORT=0` and
//! `INGRESS_ADMIN_PORT=0` (and `INGRESS_TLS_PORT=0`), the bound addresses read from its JSON
//! `listening` log line.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const BINARY: &str = env!("CARGO_BIN_EXE_ingress");

/// A running ingress.
pub struct Ingress {
    child: Child,
    pub proxy: SocketAddr,
    pub admin: SocketAddr,
    /// The TLS port, when the ingress serves one.
    pub tls: Option<SocketAddr>,
    pub log: Arc<Mutex<Vec<String>>>,
    _dir: tempfile::TempDir,
}

impl Ingress {
    /// Starts the binary on `yaml`; panics if it does not listen within 30 s.
    pub fn start(yaml: &str) -> Self {
        Self::start_with(yaml, &[])
    }

    /// Starts the binary on `yaml` with `env` set too.
    pub fn start_with(yaml: &str, env: &[(&str, &str)]) -> Self {
        let (dir, path) = write_config(yaml);
        let mut child = Command::new(BINARY)
            .env("INGRESS_CONFIG", &path)
            .env("PORT", "0")
            .env("INGRESS_ADMIN_PORT", "0")
            .env("INGRESS_TLS_PORT", "0")
            .env("LOG_FORMAT", "json")
            .env("RUST_LOG", "info")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the ingress binary starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (found, listening) = mpsc::channel();
        let lines = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(addresses) = listening_addresses(&line) {
                    let _ = found.send(addresses);
                }
                lines.lock().expect("log lock").push(line);
            }
        });
        let (proxy, admin, tls) = listening
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no listening line; log: {:?}", log.lock().expect("log")));
        Self {
            child,
            proxy,
            admin,
            tls,
            log,
            _dir: dir,
        }
    }

    /// `http://<proxy><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.proxy)
    }

    /// `http://<admin><path>`.
    pub fn admin_url(&self, path: &str) -> String {
        format!("http://{}{path}", self.admin)
    }

    /// The admin port's `/metrics` text.
    pub async fn metrics(&self) -> String {
        crate::client()
            .get(self.admin_url("/metrics"))
            .send()
            .await
            .expect("metrics")
            .text()
            .await
            .expect("metrics text")
    }

    /// The TLS address; panics when the ingress serves no TLS.
    pub fn tls(&self) -> SocketAddr {
        self.tls.expect("the ingress serves TLS")
    }

    /// Sends SIGTERM.
    pub fn terminate(&self) {
        self.signal("TERM");
    }

    /// Sends the signal `name` (`TERM`, `HUP`).
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{name} failed");
    }

    /// Waits until `text` appears `count` times in the log, at most 10 s.
    pub fn wait_log(&self, text: &str, count: usize) {
        let start = Instant::now();
        while self.log_text().matches(text).count() < count {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no {count} × {text:?} in the log: {}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the process to exit, at most `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                start.elapsed() < limit,
                "the ingress did not exit within {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The log lines so far.
    pub fn log_text(&self) -> String {
        self.log.lock().expect("log lock").join("\n")
    }
}

impl Drop for Ingress {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn listening_addresses(line: &str) -> Option<(SocketAddr, SocketAddr, Option<SocketAddr>)> {
    let event: serde_json::Value = serde_json::from_str(line).ok()?;
    if event.get("message")?.as_str()? != "listening" {
        return None;
    }
    let address = |key: &str| event.get(key)?.as_str()?.parse().ok();
    Some((address("proxy")?, address("admin")?, address("tls")))
}

fn write_config(yaml: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("ingress.yml");
    std::fs::write(&path, yaml).expect("the ingress file is written");
    (dir, path)
}

/// What a subcommand printed, and its exit code.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub path: String,
}

/// Runs `ingress <args>` against `yaml`.
pub fn run(args: &[&str], yaml: &str) -> Run {
    let (_dir, path) = write_config(yaml);
    let output = Command::new(BINARY)
        .args(args)
        .env("INGRESS_CONFIG", &path)
        .output()
        .expect("the ingress binary runs");
    Run {
        code: output.status.code().expect("an exit code"),
        stdout: String::from_utf8(output.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(output.stderr).expect("utf-8 stderr"),
        path: path.display().to_string(),
    }
}
