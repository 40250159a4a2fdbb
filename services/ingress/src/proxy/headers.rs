//! Header rules at the edge: hop-by-hop headers stop here (RFC 9110 §7.6.1), the client's
//! address and scheme travel on in `X-Forwarded-*`, only WebSocket upgrades pass; the edge's
//! HSTS value (set on HTTPS answers by `crate::tls::edge`).
//!
//! `Connection` may name more hop-by-hop headers, and those go too, except the end-to-end
//! fields the edge and the services depend on ([`END_TO_END`] and every `X-Forwarded-*`):
//! RFC 9110 forbids a sender to name a field meant for every recipient, and honouring
//! `Connection: Authorization` or `Connection: X-Forwarded-For` would let a client strip what
//! the origin decides by.

use bytes::Bytes;
use http::Method;
use http::header::{
    AUTHORIZATION, CONNECTION, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, COOKIE, FORWARDED,
    HOST, HeaderMap, HeaderName, HeaderValue, ORIGIN, SET_COOKIE, TE, TRAILER, TRANSFER_ENCODING,
    UPGRADE,
};
use std::net::IpAddr;

/// `X-Forwarded-For`.
pub const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
/// `X-Forwarded-Proto`.
pub const X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");
/// `X-Forwarded-Host`.
pub const X_FORWARDED_HOST: HeaderName = HeaderName::from_static("x-forwarded-host");
/// `Keep-Alive`.
const KEEP_ALIVE: HeaderName = HeaderName::from_static("keep-alive");
/// The edge's HSTS: a year, subdomains included (as a tunnel's edge at Cloudflare sends it).
pub const HSTS: HeaderValue = HeaderValue::from_static("max-age=31536000; includeSubDomains");
/// The one upgrade the edge passes on.
const WEBSOCKET: &str = "websocket";

/// Fields `Connection` cannot remove (besides every `X-Forwarded-*`).
pub const END_TO_END: [HeaderName; 14] = [
    HOST,
    AUTHORIZATION,
    COOKIE,
    SET_COOKIE,
    ORIGIN,
    CONTENT_LENGTH,
    CONTENT_TYPE,
    CONTENT_ENCODING,
    TRANSFER_ENCODING,
    FORWARDED,
    HeaderName::from_static("x-real-ip"),
    HeaderName::from_static("x-request-id"),
    HeaderName::from_static("traceparent"),
    HeaderName::from_static("tracestate"),
];

/// The hop-by-hop fields every message loses, beside what `Connection` names and `Proxy-*`.
const HOP_BY_HOP: [HeaderName; 6] = [
    CONNECTION,
    KEEP_ALIVE,
    TE,
    TRAILER,
    TRANSFER_ENCODING,
    UPGRADE,
];

/// Whether `name` is hop-by-hop whatever `Connection` says.
fn is_hop_by_hop(name: &HeaderName) -> bool {
    HOP_BY_HOP.contains(name) || name.as_str().starts_with("proxy-")
}

/// Whether `Connection` may remove `name`.
fn hop_by_hop_option(name: &HeaderName) -> bool {
    !END_TO_END.contains(name) && !name.as_str().starts_with("x-forwarded-")
}

/// The comma-separated tokens of every `name` header.
fn tokens<'a>(headers: &'a HeaderMap, name: &HeaderName) -> impl Iterator<Item = &'a str> {
    headers
        .get_all(name)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .filter(|token| !token.is_empty())
}

/// Removes hop-by-hop headers: `Connection` and what it names (but [`END_TO_END`] fields),
/// `Keep-Alive`, `TE`, `Trailer`, `Transfer-Encoding`, `Upgrade` and every `Proxy-*`. With
/// `websocket`, the handshake travels end to end: `Upgrade: websocket` and
/// `Connection: upgrade`.
pub fn strip_hop_by_hop(headers: &mut HeaderMap, websocket: bool) {
    // One look at each name, and a name `Connection` lists only if the message has that
    // field: most messages have at most `Connection` itself to lose.
    let mut gone: Vec<HeaderName> = headers
        .keys()
        .filter(|name| is_hop_by_hop(name))
        .cloned()
        .collect();
    if !gone.is_empty() {
        let named = tokens(headers, &CONNECTION)
            .filter(|name| headers.contains_key(*name))
            .filter_map(|name| HeaderName::from_bytes(name.as_bytes()).ok())
            .filter(hop_by_hop_option);
        gone.extend(named);
    }
    for name in gone {
        headers.remove(name);
    }
    if websocket {
        headers.insert(UPGRADE, HeaderValue::from_static(WEBSOCKET));
        headers.insert(CONNECTION, HeaderValue::from_static("upgrade"));
    }
}

/// Whether a client's request field claims what only the edge decides: a name holding `_`
/// (nginx's default, `underscores_in_headers off`: an origin behind CGI, WSGI or Rack reads
/// `X_Forwarded_For` and `X-Forwarded-For` as one variable); the client's address or scheme by
/// another name than the edge's (`Forwarded`, `X-Real-IP`, `CF-Connecting-IP`, `X-Forwarded`,
/// and every `X-Forwarded-*` the edge does not set: `-Ssl`, `-Port`, `-Scheme`, `-Server`,
/// `-Prefix`); or another method or URL than the request's (`X-HTTP-Method-Override`,
/// `X-Original-URL`), which some origins obey, past the edge's method and path rules.
/// `X-Forwarded-For` stays (the edge appends the peer to it); `-Proto` and `-Host` are
/// replaced by [`add_forwarded`].
fn is_client_claim(name: &HeaderName) -> bool {
    let text = name.as_str();
    match text {
        "forwarded"
        | "forwarded-for"
        | "x-forwarded"
        | "x-real-ip"
        | "client-ip"
        | "x-client-ip"
        | "x-cluster-client-ip"
        | "true-client-ip"
        | "cf-connecting-ip"
        | "cf-connecting-ipv6"
        | "cf-pseudo-ipv4"
        | "cf-visitor"
        | "fastly-client-ip"
        | "x-originating-ip"
        | "x-remote-ip"
        | "x-remote-addr"
        | "x-appengine-user-ip"
        | "x-azure-clientip"
        | "x-envoy-external-address"
        | "x-proxyuser-ip"
        | "x-original-forwarded-for"
        | "front-end-https"
        | "x-url-scheme"
        | "x-http-method-override"
        | "x-http-method"
        | "x-method-override"
        | "x-original-method"
        | "x-original-url"
        | "x-rewrite-url" => true,
        _ => {
            text.contains('_')
                || (text.starts_with("x-forwarded-")
                    && *name != X_FORWARDED_FOR
                    && *name != X_FORWARDED_PROTO
                    && *name != X_FORWARDED_HOST)
        }
    }
}

/// Removes every request field that claims what only the edge decides ([`is_client_claim`]).
pub fn drop_client_claims(headers: &mut HeaderMap) {
    let gone: Vec<HeaderName> = headers
        .keys()
        .filter(|name| is_client_claim(name))
        .cloned()
        .collect();
    for name in gone {
        headers.remove(name);
    }
}

/// Whether a request is a WebSocket handshake (RFC 6455 §4.1: `GET`, `Connection: upgrade`
/// and `websocket` among the `Upgrade` protocols). Any other upgrade (`h2c`, TLS) is not
/// passed on: the request goes to the origin as a plain one, which RFC 9110 §7.8 allows.
pub fn wants_websocket(method: &Method, headers: &HeaderMap) -> bool {
    method == Method::GET
        && tokens(headers, &CONNECTION).any(|token| token.eq_ignore_ascii_case("upgrade"))
        && tokens(headers, &UPGRADE).any(|token| token.eq_ignore_ascii_case(WEBSOCKET))
}

/// Whether an origin's `101` switched to WebSocket, and to nothing else.
pub fn switched_to_websocket(headers: &HeaderMap) -> bool {
    let mut protocols = tokens(headers, &UPGRADE);
    protocols
        .next()
        .is_some_and(|token| token.eq_ignore_ascii_case(WEBSOCKET))
        && protocols.next().is_none()
}

/// An answer's length as one field: framed by `Transfer-Encoding`, it loses its
/// `Content-Length` (RFC 9112 §6.3: the encoding wins, and an intermediary removes the length
/// before forwarding, or the client would frame the body by a length it does not have); a
/// length written as a list of one value (`2, 2`, or two lines, which hyper accepted only
/// when every value is the same) is sent as that value (RFC 9110 §8.6).
pub fn one_length(headers: &mut HeaderMap) {
    if headers.contains_key(TRANSFER_ENCODING) {
        headers.remove(CONTENT_LENGTH);
        return;
    }
    let mut lines = headers.get_all(CONTENT_LENGTH).iter();
    let Some(first) = lines.next() else {
        return;
    };
    if lines.next().is_none() && !first.as_bytes().contains(&b',') {
        return;
    }
    let value = first
        .to_str()
        .ok()
        .and_then(|text| text.split(',').next())
        .and_then(|length| HeaderValue::from_str(length.trim()).ok());
    if let Some(value) = value {
        headers.insert(CONTENT_LENGTH, value);
    }
}

/// Appends the peer to `X-Forwarded-For` (after any hops the client sent, so the backend's
/// rightmost-untrusted rule finds it), sets `X-Forwarded-Proto` to `proto` (what the client
/// used here) and `X-Forwarded-Host` to the client's `Host`.
pub fn add_forwarded(headers: &mut HeaderMap, peer: IpAddr, proto: HeaderValue) {
    let prior: Vec<&str> = headers
        .get_all(X_FORWARDED_FOR)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .collect();
    let chain = if prior.is_empty() {
        peer.to_string()
    } else {
        format!("{}, {peer}", prior.join(", "))
    };
    // The text becomes the value's bytes as it is, not copied again.
    if let Ok(value) = HeaderValue::from_maybe_shared(Bytes::from(chain)) {
        headers.insert(X_FORWARDED_FOR, value);
    }
    headers.insert(X_FORWARDED_PROTO, proto);
    match headers.get(HOST).cloned() {
        Some(host) => headers.insert(X_FORWARDED_HOST, host),
        None => headers.remove(X_FORWARDED_HOST),
    };
}

#[cfg(test)]
mod tests;
