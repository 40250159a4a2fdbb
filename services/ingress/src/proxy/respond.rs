//! Answers the ingress makes itself: the edge's 502, and a rule's `http_status:NNN`.

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HeaderValue};
use http::{Response, StatusCode};
use http_body_util::{Either, Full};

use super::recycle::Recycling;

/// A response body: streamed from an origin, or made here.
pub type ProxyBody = Either<Recycling, Full<Bytes>>;

/// The whole body of the edge's 502, as the seed measured it at Cloudflare.
pub const BAD_GATEWAY_BODY: &str = "error code: 502";
/// Its content type, as Cloudflare sends it.
pub const BAD_GATEWAY_CONTENT_TYPE: &str = "text/plain; charset=UTF-8";

/// No origin answered: `502`, `error code: 502`, and nothing else (no CORS headers: a
/// browser reports it as a CORS failure, which is why the docs say "CORS and 502 is one event").
pub fn bad_gateway() -> Response<ProxyBody> {
    let mut response = Response::new(Either::Right(Full::new(Bytes::from_static(
        BAD_GATEWAY_BODY.as_bytes(),
    ))));
    *response.status_mut() = StatusCode::BAD_GATEWAY;
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
