//! Requests that may be sent again after a connection failed under them: an idempotent method
//! (RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT, DELETE) with no body, so the head is all
//! there is to resend. This is Go's `http.Transport` rule (cloudflared's), minus its
//! `Idempotency-Key` case, which would need the body kept.
//!
//! The case it covers: an origin closing an idle keep-alive connection (a restart, its
//! keep-alive timeout) just as the ingress sends on it, which no timing can rule out, and a
//! replica of a pool going away under a request another replica can answer.

use super::upstream::{BodyWatch, UpstreamBody};
use http::{HeaderMap, Method, Request, Uri, Version};
use hyper::body::{Body, Incoming};

/// The head of a replayable request.
#[derive(Debug)]
pub struct Replay {
    method: Method,
    uri: Uri,
    version: Version,
    headers: HeaderMap,
}

impl Replay {
    /// The head of `request` if it may be sent again.
    pub fn of(request: &Request<Incoming>) -> Option<Self> {
        let idempotent = matches!(
            *request.method(),
            Method::GET
                | Method::HEAD
                | Method::OPTIONS
                | Method::TRACE
                | Method::PUT
                | Method::DELETE
        );
        (idempotent && request.body().is_end_stream()).then(|| Self {
            method: request.method().clone(),
            uri: request.uri().clone(),
            version: request.version(),
            headers: request.headers().clone(),
        })
    }

    /// The same request again, with its (empty) body.
    pub fn request(&self) -> (Request<UpstreamBody>, BodyWatch) {
        let (body, watch) = UpstreamBody::empty();
        let mut request = Request::new(body);
        *request.method_mut() = self.method.clone();
        *request.uri_mut() = self.uri.clone();
        *request.version_mut() = self.version;
        *request.headers_mut() = self.headers.clone();
        (request, watch)
    }
}
