//! One request's tries: what it carries from one origin to the next (whether it may be
//! replayed, which origins it has already reached), and one try of one origin.
//!
//! A try uses a kept connection if one is ready, else a new one. Once a request has been
//! written, how it failed decides what follows: the client's own body broke, or the edge cut
//! it (the client's error); the origin sent something that is not an answer, or the start of
//! one and then nothing (malformed: it acted on the request); no answer head within `responseTimeout`;
//! an answer framed by another coding than one `chunked` (malformed too: [`super::framing`]);
//! or the connection closed before a single byte came back, the only failure after which an
//! idempotent request without a body may be sent again. A kept connection closing that way
//! is the keep-alive race (the origin closed an idle connection as the request went out), so
//! that one is followed by one new connection to the same origin, as Go's `http.Transport`
//! does; on a new connection it means the origin dropped the request, and the origin is not
//! tried again for it.

use super::framing;
use super::outcome::{Failure, Fault, Reply};
use super::replay::Replay;
use super::upstream::{BodyWatch, Cut, UpstreamBody};
use crate::config::OriginRequest;
use crate::metrics::Metrics;
use crate::origin::{self, Connection, Origin};
use http::Request;
use std::sync::Arc;
use std::time::Duration;

/// A request on its way, and its body's progress.
pub struct Outgoing {
    /// The request.
    pub request: Request<UpstreamBody>,
    /// Its body's progress.
    pub watch: BodyWatch,
}

/// What one try came to.
pub enum Attempt {
    /// The origin answered with a head.
    Answered(Reply),
    /// Nothing was written (no connection, or hyper handed the request back).
    NotSent(Outgoing),
    /// It was written, and then failed.
    Failed(Sent),
}

/// How a written request failed.
pub enum Sent {
    /// The origin's failure.
    Origin(Fault),
    /// The client's body broke while it was being forwarded.
    Client(hyper::Error),
    /// The edge cut the client's body.
    Cut(Cut),
}

/// What one request's tries share.
pub struct Trip<'a> {
    settings: &'a OriginRequest,
    metrics: &'a Metrics,
    cooldown: Duration,
    replay: Option<Replay>,
    /// The origin whose failure the outgoing request replays, until it is actually sent.
    replaying: Option<String>,
    /// Origins this request reached and that failed it: never tried again for it.
    spent: Vec<Arc<Origin>>,
}

impl<'a> Trip<'a> {
    /// A request of `settings`' rule, replayable as `replay` says; a failing origin is
    /// offered last for `cooldown`.
    pub fn new(
        settings: &'a OriginRequest,
        metrics: &'a Metrics,
        cooldown: Duration,
        replay: Option<Replay>,
    ) -> Self {
        Self {
            settings,
            metrics,
            cooldown,
            replay,
            replaying: None,
            spent: Vec::new(),
        }
    }

    /// Whether `origin` already failed this request.
    pub fn is_spent(&self, origin: &Arc<Origin>) -> bool {
        self.spent.iter().any(|spent| Arc::ptr_eq(spent, origin))
    }

    /// After `origin` failed the request it was sent: the replay to send elsewhere, with the
    /// failure to report if no other origin answers it; or the answer to give now.
    pub fn failed(
        &mut self,
        origin: &Arc<Origin>,
        sent: Sent,
    ) -> Result<(Outgoing, Failure), Failure> {
        let fault = match sent {
            Sent::Client(error) => return Err(Failure::Client(error)),
            Sent::Cut(cut) => return Err(Failure::Cut(cut)),
            Sent::Origin(fault) => fault,
        };
        self.blame(origin, &fault);
        self.spent.push(origin.clone());
        let replay = match fault {
            Fault::Closed(_) => self.resend(origin, &fault),
            _ => None,
        };
        let failure = Failure::Origin {
            origin: origin.dial().to_owned(),
            fault,
        };
        match replay {
            Some(replay) => Ok((replay, failure)),
            None => Err(failure),
        }
    }

    /// One try of `origin`, connecting within `connect_timeout` if a new connection is needed.
    pub async fn attempt(
        &mut self,
        origin: &Arc<Origin>,
        connect_timeout: Duration,
        mut outgoing: Outgoing,
    ) -> Attempt {
        if let Some(kept) = origin.take_idle(self.settings.keep_alive_timeout) {
            match self.on(kept, origin, outgoing).await {
                Attempt::NotSent(back) => outgoing = back,
                Attempt::Failed(Sent::Origin(fault @ Fault::Closed(_)))
                    if self.replay.is_some() =>
                {
                    self.blame(origin, &fault);
                    let Some(replay) = self.resend(origin, &fault) else {
                        return Attempt::Failed(Sent::Origin(fault));
                    };
                    outgoing = replay;
                }
                done => return done,
            }
        }
        match origin::open(origin.dial(), self.settings, connect_timeout).await {
            Ok(fresh) => self.on(fresh, origin, outgoing).await,
            Err(error) => {
                log_unreachable(origin.dial(), &error);
                Attempt::NotSent(outgoing)
            }
        }
    }

    /// Sends on `connection` and waits for the head, at most `responseTimeout` once the
    /// request is written whole.
    async fn on(
        &mut self,
        mut connection: Connection,
        origin: &Arc<Origin>,
        outgoing: Outgoing,
    ) -> Attempt {
        let Outgoing { request, watch } = outgoing;
        let before = connection.received();
        let (mut written, timeout) = (watch.clone(), self.settings.response_timeout);
        let deadline = async move {
            written.sent().await;
            tokio::time::sleep(timeout).await;
        };
        let result = tokio::select! {
            result = connection.sender.try_send_request(request) => result,
            () = deadline => {
                self.count_replay();
                return Attempt::Failed(Sent::Origin(Fault::TimedOut));
            }
        };
        match result {
            Ok(response) => {
                self.count_replay();
                let answer_end = watch.answered();
                if framing::check(response.headers()).is_err() {
                    return Attempt::Failed(Sent::Origin(Fault::Framing));
                }
                Attempt::Answered(Reply {
                    response,
                    connection,
                    origin: origin.clone(),
                    answer_end,
                })
            }
            Err(mut error) => match error.take_message() {
                Some(request) => Attempt::NotSent(Outgoing { request, watch }),
                None => {
                    self.count_replay();
                    let answered = connection.received() > before;
                    Attempt::Failed(classify(error.into_error(), &watch, answered))
                }
            },
        }
    }

    /// Counts the failure against `origin` and offers it last for a while.
    fn blame(&self, origin: &Origin, fault: &Fault) {
        self.metrics.origin_failed(origin.dial(), fault.reason());
        origin.mark_refused(self.cooldown);
    }

    /// The request again, if it may be replayed after `origin` closed under it.
    fn resend(&mut self, origin: &Origin, fault: &Fault) -> Option<Outgoing> {
        let (request, watch) = self.replay.as_ref()?.request();
        log_replaying(origin.dial(), fault);
        self.replaying = Some(origin.dial().to_owned());
        Some(Outgoing { request, watch })
    }

    /// A replay was written: now it counts.
    fn count_replay(&mut self) {
        if let Some(failed) = self.replaying.take() {
            self.metrics.replayed(&failed);
        }
    }
}

/// Whose failure a written request's error is.
fn classify(error: hyper::Error, watch: &BodyWatch, answered: bool) -> Sent {
    if let Some(cut) = watch.cut() {
        Sent::Cut(cut)
    } else if watch.failed() {
        Sent::Client(error)
    } else if error.is_parse() || answered {
        Sent::Origin(Fault::Malformed(error))
    } else {
        Sent::Origin(Fault::Closed(error))
    }
}

fn log_replaying(origin: &str, fault: &Fault) {
    tracing::info!(origin, %fault, "sending an idempotent request again");
}

fn log_unreachable(origin: &str, error: &std::io::Error) {
    tracing::debug!(origin, %error, "origin connection failed; nothing was sent");
}
