//! What became of a request sent towards a pool: the origin's answer ([`Reply`]), or why there
//! was none ([`Failure`], and [`Fault`] for an origin that failed a request it was sent). Both
//! the pass over a pool ([`super::forward`]) and one trip to an origin ([`super::attempt`])
//! speak these; [`Failure::answer`] is what the client hears of a failure.

use super::respond::{self, ProxyBody};
use super::upstream::{AnswerEnd, Cut};
use crate::metrics::Metrics;
use crate::origin::{Connection, Origin};
use http::Response;
use hyper::body::Incoming;
use std::sync::Arc;

/// An origin's answer, with the connection it came on.
pub struct Reply {
    /// The response head; the body streams from the origin.
    pub response: Response<Incoming>,
    /// The connection, to be reused once the body is done.
    pub connection: Connection,
    /// Where it came from.
    pub origin: Arc<Origin>,
    /// Dropped with the answer's body: the request's body, if still open, is timed again.
    pub answer_end: AnswerEnd,
}

/// Why a request got no answer.
#[derive(Debug)]
pub enum Failure {
    /// No origin accepted it before the deadline; nothing was sent.
    Unreachable,
    /// It was sent to `origin`, which failed it.
    Origin {
        /// `host:port`.
        origin: String,
        /// How.
        fault: Fault,
    },
    /// The client's own body broke while it was being forwarded.
    Client(hyper::Error),
    /// The edge cut the client's own body: silent too long, or too large.
    Cut(Cut),
}

/// How an origin failed a request it was sent.
#[derive(Debug, thiserror::Error)]
pub enum Fault {
    /// The connection closed before a byte of answer came back.
    #[error("the connection closed before any answer: {0}")]
    Closed(hyper::Error),
    /// What came back is not an HTTP/1.1 answer head, or stopped inside one.
    #[error("the answer was malformed: {0}")]
    Malformed(hyper::Error),
    /// An answer framed by another transfer coding than one `chunked` (`gzip, chunked`,
    /// `identity`, `chunked, chunked`): never passed on.
    #[error("the answer's Transfer-Encoding is not exactly one chunked")]
    Framing,
    /// No answer head within `responseTimeout` of the request being sent.
    #[error("no answer within the response timeout")]
    TimedOut,
}

impl Fault {
    /// The `reason` label of `ingress_origin_failures_total`.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::Closed(_) => "closed",
            Self::Malformed(_) | Self::Framing => "malformed",
            Self::TimedOut => "timeout",
        }
    }
}

impl Failure {
    /// What the client hears: whose failure it was decides (the edge's 502 or 504 for an
    /// origin's, its 400, 408 or 413 for the client's own body), counted and logged.
    pub fn answer(self, service: &str, metrics: &Metrics) -> Response<ProxyBody> {
        match self {
            Self::Unreachable => {
                log_unreachable(service);
                respond::bad_gateway()
            }
            Self::Origin {
                origin,
                fault: Fault::TimedOut,
            } => {
                log_timed_out(service, &origin);
                respond::gateway_timeout()
            }
            Self::Origin { origin, fault } => {
                log_origin_failed(service, &origin, &fault);
                respond::bad_gateway()
            }
            Self::Client(error) => {
                metrics.client_error("body");
                log_client_body(service, &error);
                respond::bad_request()
            }
            Self::Cut(cut) => {
                metrics.client_error(cut.reason());
                log_client_cut(service, cut);
                respond::body_cut(cut)
            }
        }
    }
}

fn log_unreachable(service: &str) {
    tracing::warn!(service, "502: no origin accepted a connection");
}

fn log_origin_failed(service: &str, origin: &str, fault: &Fault) {
    tracing::warn!(service, origin, %fault, "502: the origin failed the request");
}

fn log_timed_out(service: &str, origin: &str) {
    tracing::warn!(service, origin, "504: the origin did not answer in time");
}

fn log_client_cut(service: &str, cut: Cut) {
    tracing::info!(service, %cut, "the edge cut the client's request body");
}

fn log_client_body(service: &str, error: &hyper::Error) {
    tracing::info!(service, %error, "400: the client's request body broke while it was forwarded");
}
