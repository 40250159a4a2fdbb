//! An origin's response body on its way to the client, holding the connection it came on:
//! once the body has been read to its end, the connection goes back to its origin's idle
//! list for the next request. Done when the body is dropped (hyper drops it as soon as it has
//! written the last byte), without a task of its own when the connection is already ready
//! for another request, which is the usual case. It also holds the request body's
//! [`AnswerEnd`]: once the answer is over, a request body still open is timed again.

use super::upstream::AnswerEnd;
use crate::origin::{Connection, Origin};
use bytes::Bytes;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// The connection to give back, and how many idle ones its origin keeps.
struct GiveBack {
    connection: Connection,
    origin: Arc<Origin>,
    max_idle: usize,
}

/// An origin's body that returns its connection once read to the end.
pub struct Recycling {
    body: Incoming,
    give_back: Option<GiveBack>,
    ended: bool,
    _answer_end: AnswerEnd,
}

impl Recycling {
    /// `body`, whose connection goes back to its origin (which keeps `max_idle` idle) when it
    /// is done; `answer_end` is dropped with it.
    pub fn new(
        body: Incoming,
        (connection, origin, max_idle): (Connection, Arc<Origin>, usize),
        answer_end: AnswerEnd,
    ) -> Self {
        Self {
            body,
            give_back: Some(GiveBack {
                connection,
                origin,
                max_idle,
            }),
            ended: false,
            _answer_end: answer_end,
        }
    }

    /// `body` whose connection is not reused (it became a tunnel, say).
    pub fn alone(body: Incoming) -> Self {
        Self {
            body,
            give_back: None,
            ended: false,
            _answer_end: AnswerEnd::default(),
        }
    }
}

impl Body for Recycling {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) {
            self.ended = true;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl Drop for Recycling {
    fn drop(&mut self) {
        let Some(GiveBack {
            mut connection,
            origin,
            max_idle,
        }) = self.give_back.take()
        else {
            return;
        };
        // A body dropped before its end (the client went away) leaves its connection
        // mid-response: dropping the sender closes it.
        if !(self.ended || self.body.is_end_stream()) {
            return;
        }
        if connection.sender.is_ready() {
            origin.put_idle(connection, max_idle);
        } else if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if connection.sender.ready().await.is_ok() {
                    origin.put_idle(connection, max_idle);
                }
            });
        }
    }
}
