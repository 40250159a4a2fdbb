//! What the edge holds a client's body to while it streams to an origin: at most
//! `estate.requestBodyTimeout` of silence while the origin waits for it, and at most
//! `estate.maxRequestBodyBytes` in all.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// Why the edge cut a client's body itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Cut {
    /// It sent nothing for the request body timeout while its origin waited for it.
    #[error("the client sent nothing of its body for the request body timeout")]
    Stalled,
    /// It grew past the largest body the edge forwards.
    #[error("the client's body is larger than the edge forwards")]
    TooLarge,
}

impl Cut {
    /// The `reason` label of `ingress_client_errors_total`.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Stalled => "stalled",
            Self::TooLarge => "size",
        }
    }
}

/// The bounds of one client's body.
#[derive(Clone, Copy, Debug)]
pub struct BodyBounds {
    /// Longest silence while the origin waits for the body.
    pub timeout: Duration,
    /// Largest body forwarded.
    pub max_bytes: u64,
}

/// One body's silence and size, as it streams.
#[derive(Debug)]
pub struct Guard {
    bounds: BodyBounds,
    /// Bytes passed on so far.
    passed: u64,
    /// Armed once the body first waits on the client.
    timer: Option<Pin<Box<Sleep>>>,
    /// Set once the origin's answer head has come: the silence is no longer timed.
    answered: Arc<AtomicBool>,
}

impl Guard {
    /// A guard for a body about to stream, and the flag that tells it the answer has come.
    pub fn new(bounds: BodyBounds) -> (Self, Arc<AtomicBool>) {
        let answered = Arc::new(AtomicBool::new(false));
        let guard = Self {
            bounds,
            passed: 0,
            timer: None,
            answered: answered.clone(),
        };
        (guard, answered)
    }

    /// The body has nothing ready: whether it has now been silent for the whole timeout.
    pub fn waited_too_long(&mut self, cx: &mut Context<'_>) -> bool {
        if self.answered.load(Ordering::Relaxed) {
            return false;
        }
        let timeout = self.bounds.timeout;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        matches!(timer.as_mut().poll(cx), Poll::Ready(()))
    }

    /// The body handed on `bytes` more: the silence starts again; whether it is now too large.
    pub fn passed_too_much(&mut self, bytes: usize) -> bool {
        if let Some(timer) = &mut self.timer {
            timer.as_mut().reset(Instant::now() + self.bounds.timeout);
        }
        self.passed = self
            .passed
            .saturating_add(u64::try_from(bytes).unwrap_or(u64::MAX));
        self.passed > self.bounds.max_bytes
    }
}
