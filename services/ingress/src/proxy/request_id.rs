//! The request id at the edge, and the access line: every request gets an id in
//! `x-request-id` — minted here (128 random bits, 32 hex digits), or kept from a peer in
//! `estate.requestId.trustFrom` when its one value is well-formed — sent to the origin,
//! echoed on every answer the proxy gives (proxied, `http_status:`, the edge's own), and
//! written in the one line logged per request.
//!
//! The access line (target `ingress::access`, at `info`) holds the method, the `Host`, the
//! path without its query, the status, the time to the answer's head, the matched rule and
//! the id: nothing else a client wrote, and each of the three it did write cut to a bound.
//!
//! `traceparent` and `tracestate` are not touched: they travel end to end like any other
//! end-to-end header.

use crate::config::Estate;
use http::header::{HOST, HeaderName, HeaderValue};
use http::{Method, Request, Response};
use platform_core::log_fields::{MAX_METHOD_CHARS, clipped, millis};
use platform_core::request_id::RequestId;
use std::net::SocketAddr;
use std::time::Instant;

/// `X-Request-Id`.
pub const X_REQUEST_ID: HeaderName =
    HeaderName::from_static(platform_core::request_id::X_REQUEST_ID);

/// The most of a `Host` or a path an access line holds.
pub const MAX_LOGGED_CHARS: usize = 256;

/// One request's id and what its access line will say of it.
pub struct Stamp {
    id: RequestId,
    /// The id as a header value, made once for the origin's request and the answer.
    value: Option<HeaderValue>,
    line: Option<Line>,
}

/// The request as the access line sees it, read before the request goes to its origin.
struct Line {
    method: Method,
    host: String,
    path: String,
    /// The matched rule; none for a request the edge refused before matching.
    rule: Option<usize>,
    started: Instant,
}

impl Stamp {
    /// Gives `request` (from `peer`) its id: the one it carries when `peer` is in
    /// `estate.requestId.trustFrom` and that one is well-formed and alone, else a fresh one.
    pub fn take<B>(request: &mut Request<B>, peer: SocketAddr, estate: &Estate) -> Self {
        let carried = request
            .headers()
            .get_all(X_REQUEST_ID)
            .iter()
            .map(HeaderValue::as_bytes);
        let id = estate
            .request_id_trust
            .is_trusted(peer.ip())
            .then(|| RequestId::received(carried))
            .flatten()
            .unwrap_or_else(RequestId::mint);
        let value = HeaderValue::from_str(id.as_str()).ok();
        let line = tracing::enabled!(target: "ingress::access", tracing::Level::INFO)
            .then(|| Line::read(request));
        Self { id, value, line }
    }

    /// The id as the origin is sent it (see [`forward`]).
    pub fn origin_value(&self) -> Option<HeaderValue> {
        self.value.clone()
    }

    /// Records the rule the request matched, for its access line.
    pub fn matched(&mut self, rule: usize) {
        if let Some(line) = &mut self.line {
            line.rule = Some(rule);
        }
    }

    /// Echoes the id on `response` and writes the access line.
    pub fn finish<B>(self, response: &mut Response<B>) {
        if let Some(value) = self.value {
            response.headers_mut().insert(X_REQUEST_ID, value);
        }
        if let Some(line) = self.line {
            line.write(response.status().as_u16(), &self.id);
        }
    }
}

/// Puts the request's id (`value`, from [`Stamp::origin_value`]) on the request the origin
/// gets, in place of whatever the client sent. Called once the hop-by-hop headers are gone,
/// so a client's `Connection: x-request-id` cannot take it off.
pub fn forward<B>(request: &mut Request<B>, value: Option<HeaderValue>) {
    match value {
        Some(value) => request.headers_mut().insert(X_REQUEST_ID, value),
        None => request.headers_mut().remove(X_REQUEST_ID),
    };
}

impl Line {
    fn read<B>(request: &Request<B>) -> Self {
        let host = request
            .headers()
            .get(HOST)
            .and_then(|host| host.to_str().ok())
            .or_else(|| request.uri().host())
            .unwrap_or_default();
        Self {
            method: request.method().clone(),
            host: clipped(host, MAX_LOGGED_CHARS).into_owned(),
            path: clipped(request.uri().path(), MAX_LOGGED_CHARS).into_owned(),
            rule: None,
            started: Instant::now(),
        }
    }

    fn write(&self, status: u16, id: &RequestId) {
        tracing::info!(
            target: "ingress::access",
            method = %clipped(self.method.as_str(), MAX_METHOD_CHARS),
            host = self.host.as_str(),
            path = self.path.as_str(),
            status,
            duration_ms = millis(self.started.elapsed()),
            rule = self.rule.map_or(-1, |rule| i64::try_from(rule).unwrap_or(i64::MAX)),
            request_id = id.as_str(),
            "answered"
        );
    }
}
