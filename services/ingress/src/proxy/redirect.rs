//! The plain port's answer with `plainHttp: redirect`: `308` to the same host and target on
//! the TLS port. It is given only to a request the edge's checks accepted
//! ([`super::strict`]), so a malformed request gets the same 400/405/501 on both ports and a
//! redirect never points anywhere the client did not name.

use super::respond::{self, ProxyBody};
use super::strict::Checked;
use crate::config::without_port;
use bytes::Bytes;
use http::header::{HeaderValue, LOCATION};
use http::uri::Authority;
use http::{Request, Response, StatusCode};
use http_body_util::{Either, Full};

/// `308` to `https://<host>[:port]<path?query>`; a request without a host (HTTP/1.0 may
/// send none) is the edge's `400`.
pub fn to_https<B>(request: &Request<B>, checked: &Checked, port: u16) -> Response<ProxyBody> {
    let target = request
        .uri()
        .path_and_query()
        .map(|target| target.as_str())
        .filter(|target| target.starts_with('/'))
        .unwrap_or("/");
    let Some(location) = location(without_port(&checked.host), port, target) else {
        return respond::bad_request();
    };
    let mut response = Response::new(Either::Right(Full::new(Bytes::new())));
    *response.status_mut() = StatusCode::PERMANENT_REDIRECT;
    response.headers_mut().insert(LOCATION, location);
    response
}

/// `https://host[:port]target`, when `host` is a host and nothing else: no user info, no
/// path, nothing a browser would read as another destination than the one the client named.
fn location(host: &str, port: u16, target: &str) -> Option<HeaderValue> {
    if host.is_empty() {
        return None;
    }
    let host = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_owned()
    };
    let authority = if port == 443 {
        host
    } else {
        format!("{host}:{port}")
    };
    let parsed = authority.parse::<Authority>().ok()?;
    if parsed.as_str().contains('@') {
        return None;
    }
    HeaderValue::from_str(&format!("https://{authority}{target}")).ok()
}
