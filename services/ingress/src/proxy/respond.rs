//! Answers the ingress makes itself: its own errors, as Cloudflare's edge writes them (the
//! whole body `error code: NNN`, plain text: the 502 of an origin that failed, the 504 of one
//! that did not answer in time, the 400, 405 and 501 of a request the edge refuses), and a
//! rule's `http_status:NNN`.

use super::strict::{ALLOWED_METHODS, Refusal};
use super::upstream::Cut;
use bytes::Bytes;
use http::header::{ALLOW, CONNECTION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use http::{Response, StatusCode};
use http_body_util::{Either, Full};

use super::recycle::Recycling;

/// A response body: streamed from an origin, or made here.
pub type ProxyBody = Either<Recycling, Full<Bytes>>;

/// The whole body of the edge's 502, as Cloudflare sends it.
pub const BAD_GATEWAY_BODY: &str = "error code: 502";
/// The content type of every error the edge answers itself, as Cloudflare sends it.
pub const BAD_GATEWAY_CONTENT_TYPE: &str = "text/plain; charset=UTF-8";

/// No origin answered: `502`, `error code: 502`, and nothing else (no CORS headers: a
/// browser reports it as a CORS failure, which is why the docs say "CORS and 502 is one event").
pub fn bad_gateway() -> Response<ProxyBody> {
    edge_error(StatusCode::BAD_GATEWAY)
}

/// The origin did not answer within `responseTimeout`: `504`, `error code: 504`.
pub fn gateway_timeout() -> Response<ProxyBody> {
    edge_error(StatusCode::GATEWAY_TIMEOUT)
}

/// A request the edge refuses (RFC 9112's 400s, a path no origin agrees on, a broken body):
/// `400`, `error code: 400`.
pub fn bad_request() -> Response<ProxyBody> {
    edge_error(StatusCode::BAD_REQUEST)
}

/// The edge cut the client's body: `408` for one that went silent, `413` for one too large,
/// `error code: NNN`, and the connection closed (the rest of the body is not read).
pub fn body_cut(cut: Cut) -> Response<ProxyBody> {
    let status = match cut {
        Cut::Stalled => StatusCode::REQUEST_TIMEOUT,
        Cut::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
    };
    let mut response = edge_error(status);
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A request the edge refuses before routing: its status (400, 405 with `Allow`, 501, 429
/// with `Retry-After` when the wait is known), the connection closed when the request's body
/// was left unread.
pub fn refused(refusal: &Refusal) -> Response<ProxyBody> {
    let mut response = edge_error(refusal.status());
    if refusal.status() == StatusCode::METHOD_NOT_ALLOWED {
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static(ALLOWED_METHODS));
    }
    if let Some(wait) = refusal.retry_after() {
        response.headers_mut().insert(
            RETRY_AFTER,
            HeaderValue::from(limiter::retry_after_secs(wait)),
        );
    }
    if refusal.closes() {
        response
            .headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

fn edge_error(code: StatusCode) -> Response<ProxyBody> {
    let body = format!("error code: {}", code.as_u16());
    let mut response = Response::new(Either::Right(Full::new(Bytes::from(body))));
    *response.status_mut() = code;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static(BAD_GATEWAY_CONTENT_TYPE),
    );
    response
}

/// `http_status:NNN`: that status with an empty body, as cloudflared answers it.
pub fn status(code: StatusCode) -> Response<ProxyBody> {
    let mut response = Response::new(Either::Right(Full::new(Bytes::new())));
    *response.status_mut() = code;
    response
}
