//! Getting a request to an origin of its pool: round-robin over the origins that are up,
//! then the others; an idle keep-alive connection first, a new one otherwise.
//!
//! Nothing written, nothing lost: a connection that could not be opened (refused, timed out,
//! no route, no such name), or a kept one that hyper found closed before it wrote the request
//! (hyper hands the request back), moves any request on to the next origin, and until
//! `estate.connectRetryDeadline` has passed, a request whose every origin failed that way
//! pauses and tries again. Once the request has been written, it goes to no origin twice
//! (see [`super::attempt`]): an idempotent one without a body goes once to each *other*
//! origin if its connection closed before any answer byte; a malformed answer, a missed
//! response deadline or any other request is answered at once. An origin that failed a
//! request is offered last for a while.

use super::attempt::{Attempt, Outgoing, Trip};
use super::outcome::{Failure, Reply};
use super::replay::Replay;
use super::upstream::{BodyBounds, Cut, UpstreamBody};
use crate::config::OriginRequest;
use crate::idle::RequestHold;
use crate::metrics::Metrics;
use crate::origin::Pool;
use http::Request;
use hyper::body::{Body, Incoming};
use std::time::Duration;
use tokio::time::Instant;

/// First pause between two passes over a pool's origins.
const FIRST_PAUSE: Duration = Duration::from_millis(25);
/// Longest pause: short, because an origin coming back should be used at once.
const MAX_PAUSE: Duration = Duration::from_millis(100);

/// How long a request keeps trying, and what its body is held to.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Until when a request nothing of which was sent is tried again
    /// (`estate.connectRetryDeadline`).
    pub retry: Duration,
    /// The client's body's silence and size (`estate.requestBodyTimeout`,
    /// `estate.maxRequestBodyBytes`).
    pub body: BodyBounds,
}

/// Sends `request` to an origin of `pool`, retrying what was not sent as `limits` say. A body
/// declared larger than the edge forwards goes nowhere.
pub async fn send(
    pool: &Pool,
    settings: &OriginRequest,
    limits: Limits,
    metrics: &Metrics,
    request: Request<Incoming>,
) -> Result<Reply, Failure> {
    if request.body().size_hint().lower() > limits.body.max_bytes {
        return Err(Failure::Cut(Cut::TooLarge));
    }
    let mut trip = Trip::new(settings, metrics, pool.cooldown(), Replay::of(&request));
    let (mut head, body) = request.into_parts();
    let hold = head.extensions.remove::<RequestHold>();
    let (body, watch) = UpstreamBody::client(body, limits.body, hold);
    let mut outgoing = Outgoing {
        request: Request::from_parts(head, body),
        watch,
    };
    let give_up = Instant::now() + limits.retry;
    let mut pause = FIRST_PAUSE;
    let mut connect_timeout = settings.connect_timeout;
    let mut failed = None;
    loop {
        for origin in pool.candidates() {
            if trip.is_spent(&origin) {
                continue;
            }
            outgoing = match trip.attempt(&origin, connect_timeout, outgoing).await {
                Attempt::Answered(reply) => return Ok(reply),
                Attempt::NotSent(back) => {
                    origin.mark_refused(pool.cooldown());
                    metrics.connect_failed(origin.dial());
                    back
                }
                Attempt::Failed(sent) => {
                    let (replay, failure) = trip.failed(&origin, sent)?;
                    failed = Some(failure);
                    replay
                }
            };
        }
        let now = Instant::now();
        let left = pool
            .candidates()
            .iter()
            .any(|origin| !trip.is_spent(origin));
        if !left || now >= give_up {
            return Err(failed.unwrap_or(Failure::Unreachable));
        }
        metrics.retry_wait();
        tokio::time::sleep(pause.min(give_up - now)).await;
        pause = (pause * 2).min(MAX_PAUSE);
        connect_timeout = settings
            .connect_timeout
            .min(give_up.saturating_duration_since(Instant::now()))
            .max(FIRST_PAUSE);
    }
}
