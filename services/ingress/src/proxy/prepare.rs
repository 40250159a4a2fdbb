//! The request an origin receives, made from the client's: the absolute-form URL's authority
//! as `Host`, hop-by-hop headers and the client's claims (fields named with `_`, `Forwarded`,
//! `X-Real-IP` and the like) out, `X-Forwarded-*` and the request id in, `httpHostHeader`
//! applied, the normalized path in origin form, HTTP/1.1.

use super::headers;
use super::request_id;
use super::strict::Checked;
use crate::config::OriginRequest;
use bytes::Bytes;
use http::header::{HOST, HeaderValue};
use http::uri::{PathAndQuery, Uri};
use http::{Request, Version};
use hyper::body::Incoming;
use std::net::SocketAddr;

/// Makes the client's request the origin's: the absolute-form URL's authority as `Host`,
/// hop-by-hop headers out, `X-Forwarded-*` in, `httpHostHeader` applied, the normalized
/// path in origin form (`/path?query`), the request id `id` (see [`request_id::forward`]).
pub fn for_origin(
    request: &mut Request<Incoming>,
    settings: &OriginRequest,
    peer: SocketAddr,
    websocket: bool,
    checked: Checked,
    service: &str,
    id: Option<HeaderValue>,
) {
    if let Some(authority) = checked.authority {
        request.headers_mut().insert(HOST, authority);
    }
    headers::strip_hop_by_hop(request.headers_mut(), websocket);
    headers::drop_client_claims(request.headers_mut());
    let proto = crate::tls::Scheme::of(request).forwarded_proto();
    headers::add_forwarded(request.headers_mut(), peer.ip(), proto);
    request_id::forward(request, id);
    if let Some(host) = &settings.http_host_header {
        request.headers_mut().insert(HOST, host.clone());
    }
    // The normalized text becomes the URI's bytes as it is, not copied again.
    let path = PathAndQuery::from_maybe_shared(Bytes::from(checked.path.into_forward()))
        .unwrap_or_else(|_| PathAndQuery::from_static("/"));
    *request.uri_mut() = Uri::from(path);
    // The origin leg is ours: HTTP/1.1 with keep-alive, whatever the client spoke.
    *request.version_mut() = Version::HTTP_11;
    if !request.headers().contains_key(HOST) {
        add_service_host(request, service);
    }
}

/// An HTTP/1.0 request without `Host` still needs one on the origin's HTTP/1.1 leg (RFC 9112
/// §3.2): the service's own authority, as nginx's `$proxy_host`.
fn add_service_host(request: &mut Request<Incoming>, service: &str) {
    let authority = service
        .parse::<Uri>()
        .ok()
        .and_then(|uri| uri.authority().cloned());
    if let Some(host) = authority.and_then(|authority| authority.as_str().parse().ok()) {
        request.headers_mut().insert(HOST, host);
    }
}
