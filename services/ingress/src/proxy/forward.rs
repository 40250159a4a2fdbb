//! Getting a request to an origin of its pool: round-robin over the origins that are up,
//! then the others; an idle keep-alive connection first, a new one otherwise.
//!
//! Retrying is safe for any method while nothing of the request has been written: a
//! connection that could not be opened (refused, timed out, no route, no such name), or a
//! kept connection that hyper found closed before it wrote the request (hyper hands the
//! request back). Once bytes have been written, only a [`Replay`] (idempotent, no body) is
//! sent again; anything else is a 502, because the origin may have acted on it. Until
//! `estate.connectRetryDeadline` has passed, a request whose every origin failed that way
//! pauses and tries again. An origin that failed a request is offered last for a while.

use crate::config::OriginRequest;
use crate::metrics::Metrics;
use crate::origin::{self, Origin, Pool, Sender};
use crate::proxy::replay::{Replay, UpstreamBody};
use http::{Request, Response};
use http_body_util::Either;
use hyper::body::Incoming;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// First pause between two passes over a pool's origins.
const FIRST_PAUSE: Duration = Duration::from_millis(25);
/// Longest pause: short, because an origin coming back should be used at once.
const MAX_PAUSE: Duration = Duration::from_millis(100);

/// An origin's answer, with the connection it came on.
pub struct Reply {
    /// The response head; the body streams from the origin.
    pub response: Response<Incoming>,
    /// The connection, to be reused once the body is done.
    pub sender: Sender,
    /// Where it came from.
    pub origin: Arc<Origin>,
}

/// Why a request got no answer.
#[derive(Debug)]
pub enum Failure {
    /// No origin accepted it before the deadline; nothing was sent.
    Unreachable,
    /// It was sent, and the connection failed before the response head.
    Broken(hyper::Error),
}

/// What one try on one origin came to.
enum Attempt {
    Answered(Reply),
    NotSent(Request<UpstreamBody>),
    Broken(hyper::Error),
}

/// Sends `request` to an origin of `pool`, retrying what was not sent until `deadline`.
pub async fn send(
    pool: &Pool,
    settings: &OriginRequest,
    deadline: Duration,
    metrics: &Metrics,
    request: Request<Incoming>,
) -> Result<Reply, Failure> {
    let replay = Replay::of(&request);
    let mut request = request.map(Either::Left);
    let give_up = Instant::now() + deadline;
    let mut pause = FIRST_PAUSE;
    let mut timeout = settings.connect_timeout;
    loop {
        for origin in pool.candidates() {
            match attempt(&origin, settings, timeout, request).await {
                Attempt::Answered(reply) => return Ok(reply),
                Attempt::NotSent(back) => {
                    origin.mark_refused(pool.cooldown());
                    metrics.connect_failed(origin.dial());
                    request = back;
                }
                Attempt::Broken(error) => {
                    let Some(replay) = &replay else {
                        return Err(Failure::Broken(error));
                    };
                    origin.mark_refused(pool.cooldown());
                    metrics.replayed(origin.dial());
                    log_replayed(origin.dial(), &error);
                    request = replay.request();
                }
            }
        }
        let now = Instant::now();
        if now >= give_up {
            return Err(Failure::Unreachable);
        }
        metrics.retry_wait();
        tokio::time::sleep(pause.min(give_up - now)).await;
        pause = (pause * 2).min(MAX_PAUSE);
        timeout = settings
            .connect_timeout
            .min(give_up.saturating_duration_since(Instant::now()))
            .max(FIRST_PAUSE);
    }
}

/// One origin: a kept connection if one is ready, else (or if it turned out closed) a new one.
async fn attempt(
    origin: &Arc<Origin>,
    settings: &OriginRequest,
    timeout: Duration,
    mut request: Request<UpstreamBody>,
) -> Attempt {
    if let Some(sender) = origin.take_idle(settings.keep_alive_timeout) {
        match on(sender, origin, request).await {
            Attempt::NotSent(back) => request = back,
            done => return done,
        }
    }
    match origin::open(origin.dial(), settings, timeout).await {
        Ok(sender) => on(sender, origin, request).await,
        Err(error) => {
            log_unreachable(origin.dial(), &error);
            Attempt::NotSent(request)
        }
    }
}

async fn on(mut sender: Sender, origin: &Arc<Origin>, request: Request<UpstreamBody>) -> Attempt {
    match sender.try_send_request(request).await {
        Ok(response) => Attempt::Answered(Reply {
            response,
            sender,
            origin: origin.clone(),
        }),
        Err(mut error) => match error.take_message() {
            Some(back) => Attempt::NotSent(back),
            None => Attempt::Broken(error.into_error()),
        },
    }
}

fn log_replayed(origin: &str, error: &hyper::Error) {
    tracing::info!(origin, %error, "connection failed under an idempotent request; sending it again");
}

fn log_unreachable(origin: &str, error: &std::io::Error) {
    tracing::debug!(origin, %error, "origin connection failed; nothing was sent");
}
