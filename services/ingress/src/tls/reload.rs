//! Replacing the pair without a restart: on SIGHUP, and whenever a poll finds either file's
//! bytes changed. A pair that does not load (unreadable, not PEM, a key of another
//! certificate — a rotation caught between its two writes) is logged and the one in force
//! kept; the poll tries again as soon as the bytes change again.

use super::TlsError;
use super::certificate::{PairBytes, PairFiles};
use super::resolver::Rotating;
use rustls::crypto::CryptoProvider;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

/// What the last look at the files found.
enum Seen {
    Bytes(PairBytes),
    Unreadable,
}

/// Watches one pair of files for the resolver that serves them.
pub struct Reloader {
    files: PairFiles,
    resolver: Arc<Rotating>,
    provider: Arc<CryptoProvider>,
    interval: Duration,
    seen: Seen,
}

impl Reloader {
    /// A watcher that knows `loaded` is what the resolver serves now.
    pub fn new(
        files: PairFiles,
        resolver: Arc<Rotating>,
        provider: Arc<CryptoProvider>,
        interval: Duration,
        loaded: PairBytes,
    ) -> Self {
        Self {
            files,
            resolver,
            provider,
            interval,
            seen: Seen::Bytes(loaded),
        }
    }

    /// Installs the SIGHUP handler now (so a SIGHUP from here on reloads instead of ending
    /// the process) and watches until `stop`.
    pub fn spawn(self, stop: CancellationToken) -> io::Result<()> {
        let hangup = signal(SignalKind::hangup())?;
        tokio::spawn(self.run(hangup, stop));
        Ok(())
    }

    async fn run(mut self, mut hangup: Signal, stop: CancellationToken) {
        let mut poll = tokio::time::interval(self.interval);
        poll.set_missed_tick_behavior(MissedTickBehavior::Delay);
        poll.tick().await;
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                _ = hangup.recv() => self.reload("SIGHUP"),
                _ = poll.tick() => self.poll(),
            }
        }
    }

    /// SIGHUP: read and apply, changed or not.
    fn reload(&mut self, cause: &'static str) {
        match self.files.read() {
            Ok(bytes) => self.apply(bytes, cause),
            Err(error) => {
                self.seen = Seen::Unreadable;
                log_kept(&error, cause);
            }
        }
    }

    /// The poll: apply only what differs from the last look, so a bad pair left in place is
    /// logged once, not every interval.
    fn poll(&mut self) {
        match self.files.read() {
            Ok(bytes) if matches!(&self.seen, Seen::Bytes(seen) if *seen == bytes) => {}
            Ok(bytes) => self.apply(bytes, "the files changed"),
            Err(error) => {
                if !matches!(self.seen, Seen::Unreadable) {
                    log_kept(&error, "the files changed");
                }
                self.seen = Seen::Unreadable;
            }
        }
    }

    fn apply(&mut self, bytes: PairBytes, cause: &'static str) {
        match self.files.certify(&bytes, &self.provider) {
            Ok(pair) => {
                self.resolver.replace(pair);
                log_reloaded(&self.files, cause);
            }
            Err(error) => log_kept(&error, cause),
        }
        self.seen = Seen::Bytes(bytes);
    }
}

fn log_reloaded(files: &PairFiles, cause: &'static str) {
    tracing::info!(
        cert = %files.cert.display(),
        key = %files.key.display(),
        cause,
        "certificate reloaded; new handshakes get it"
    );
}

fn log_kept(error: &TlsError, cause: &'static str) {
    tracing::warn!(%error, cause, "new certificate refused; the one in force is kept");
}
