//! The stop request: a future that resolves on SIGTERM (what `docker stop` and compose send)
//! or Ctrl-C, so `main` can run until asked to stop and then drain.
//!
//! [`signal`] installs its handlers when it is *called*, not when the future is first polled:
//! once it has returned, a stop request can no longer kill the process before the drain.

use std::future::Future;
use std::io;

/// Which request asked the process to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopSignal {
    /// SIGTERM: `docker stop`, compose, an orchestrator.
    Terminate,
    /// SIGINT: Ctrl-C in a terminal.
    Interrupt,
}

impl StopSignal {
    /// The conventional name, for the "draining" log line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Terminate => "SIGTERM",
            Self::Interrupt => "SIGINT",
        }
    }
}

/// Installs the SIGTERM and Ctrl-C handlers and returns a future that resolves with the first
/// of them to arrive. Must be called inside a Tokio runtime; fails only if the operating system
/// refuses a handler.
#[cfg(unix)]
pub fn signal() -> io::Result<impl Future<Output = StopSignal> + Send + 'static> {
    use tokio::signal::unix::{SignalKind, signal};

    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = terminate.recv() => StopSignal::Terminate,
            _ = interrupt.recv() => StopSignal::Interrupt,
        }
    })
}

/// Installs the Ctrl-C handler (there is no SIGTERM here) and returns a future that resolves
/// when it fires. Must be called inside a Tokio runtime.
#[cfg(windows)]
pub fn signal() -> io::Result<impl Future<Output = StopSignal> + Send + 'static> {
    let mut interrupt = tokio::signal::windows::ctrl_c()?;
    Ok(async move {
        interrupt.recv().await;
        StopSignal::Interrupt
    })
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use std::process::Command;
    use std::time::Duration;

    use super::*;

    /// Sends `name` to this test process through `sh`'s built-in `kill`.
    fn raise(name: &str) {
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!("kill -{name} {}", std::process::id()))
            .status()
            .unwrap();
        assert!(status.success());
    }

    // One test for all cases: each listener hears both signals, so tests running in parallel
    // would catch each other's.
    #[tokio::test]
    async fn stays_pending_until_sigterm_or_sigint() {
        let quiet = tokio::time::timeout(Duration::from_millis(50), signal().unwrap()).await;
        assert!(quiet.is_err(), "resolved with no signal sent");
        for (name, expected) in [
            ("TERM", StopSignal::Terminate),
            ("INT", StopSignal::Interrupt),
        ] {
            let stop = signal().unwrap();
            raise(name);
            let got = tokio::time::timeout(Duration::from_secs(10), stop).await;
            assert_eq!(got.unwrap(), expected);
            assert_eq!(expected.name(), format!("SIG{name}"));
        }
    }
}
