//! What the edge holds a client's body to while it streams to an origin: at most
//! `estate.requestBodyTimeout` of silence while the origin waits for it, and at most
//! `estate.maxRequestBodyBytes` in all.
//!
//! The silence is not timed while the origin's answer streams (the answer may come while
//! the body is still open, a long upload's progress say), and timed again once the answer
//! has ended: a body still open then only holds the origin's connection.

use futures_util::task::AtomicWaker;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// No answer head yet: the silence is timed.
const WAITING: u8 = 0;
/// The answer streams: the silence is not timed.
const ANSWERING: u8 = 1;
/// The answer has ended (or was dropped): the silence is timed again.
const ANSWERED: u8 = 2;

/// Where the origin's answer is, as the body's guard sees it.
#[derive(Debug)]
pub struct AnswerState {
    state: AtomicU8,
    /// The body's task, woken when the answer ends so its silence is timed again.
    waker: AtomicWaker,
}

impl Default for AnswerState {
    /// No answer head yet.
    fn default() -> Self {
        Self {
            state: AtomicU8::new(WAITING),
            waker: AtomicWaker::new(),
        }
    }
}

impl AnswerState {
    /// The answer's head has come: until the returned token is dropped (the answer's body has
    /// ended), the silence is not timed.
    pub fn streaming(self: &Arc<Self>) -> AnswerEnd {
        self.state.store(ANSWERING, Ordering::Relaxed);
        AnswerEnd(Some(self.clone()))
    }
}

/// Held by an answer's body; dropped, the body it answers is timed again.
#[derive(Debug, Default)]
pub struct AnswerEnd(Option<Arc<AnswerState>>);

impl Drop for AnswerEnd {
    fn drop(&mut self) {
        if let Some(answer) = self.0.take() {
            answer.state.store(ANSWERED, Ordering::Relaxed);
            answer.waker.wake();
        }
    }
}

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
    /// Where the origin's answer is.
    answer: Arc<AnswerState>,
    /// Whether the timer was started again after the answer ended.
    resumed: bool,
}

impl Guard {
    /// A guard for a body about to stream, and where it is told of the origin's answer.
    pub fn new(bounds: BodyBounds) -> (Self, Arc<AnswerState>) {
        let answer = Arc::new(AnswerState::default());
        let guard = Self {
            bounds,
            passed: 0,
            timer: None,
            answer: answer.clone(),
            resumed: false,
        };
        (guard, answer)
    }

    /// The body has nothing ready: whether it has now been silent for the whole timeout.
    pub fn waited_too_long(&mut self, cx: &mut Context<'_>) -> bool {
        self.answer.waker.register(cx.waker());
        let timeout = self.bounds.timeout;
        match self.answer.state.load(Ordering::Relaxed) {
            ANSWERING => return false,
            ANSWERED if !self.resumed => {
                self.resumed = true;
                self.timer = Some(Box::pin(tokio::time::sleep(timeout)));
            }
            _ => {}
        }
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
