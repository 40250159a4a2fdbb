//! What became of a request sent towards a pool: the origin's answer ([`Reply`]), or why there
//! was none ([`Failure`], and [`Fault`] for an origin that failed a request it was sent). Both
//! the pass over a pool ([`super::forward`]) and one trip to an origin ([`super::attempt`])
//! speak these.

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
    /// The client's own body sent nothing for the request body timeout.
    Stalled,
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
