//! Header rules at the edge: hop-by-hop headers stop here (RFC 9110 §7.6.1), the client's
//! address and scheme travel on in `X-Forwarded-*`; the edge's HSTS value.

use http::header::{
    CONNECTION, HOST, HeaderMap, HeaderName, HeaderValue, TE, TRAILER, TRANSFER_ENCODING, UPGRADE,
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
/// The edge's HSTS: a year, subdomains included (as the seed measured at Cloudflare).
pub const HSTS: HeaderValue = HeaderValue::from_static("max-age=31536000; includeSubDomains");

/// Removes hop-by-hop headers: `Connection` and every header it names, `Keep-Alive`, `TE`,
/// `Trailer`, `Transfer-Encoding`, `Upgrade` and every `Proxy-*`. With `upgrade`, the
/// `Upgrade` header survives and `Connection` is set to `upgrade`: a WebSocket handshake
/// travels end to end.
pub fn strip_hop_by_hop(headers: &mut HeaderMap, upgrade: bool) {
    let named: Vec<HeaderName> = headers
        .get_all(CONNECTION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in named {
        if !(upgrade && name == UPGRADE) {
            headers.remove(name);
        }
    }
    for name in [CONNECTION, KEEP_ALIVE, TE, TRAILER, TRANSFER_ENCODING] {
        headers.remove(name);
    }
    let proxy: Vec<HeaderName> = headers
        .keys()
        .filter(|name| name.as_str().starts_with("proxy-"))
        .cloned()
        .collect();
    for name in proxy {
        headers.remove(name);
    }
    if upgrade {
        headers.insert(CONNECTION, HeaderValue::from_static("upgrade"));
    } else {
        headers.remove(UPGRADE);
    }
}

/// Whether a request asks to switch protocols (`Connection: upgrade` and an `Upgrade`).
pub fn wants_upgrade(headers: &HeaderMap) -> bool {
    headers.contains_key(UPGRADE)
        && headers
            .get_all(CONNECTION)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .any(|token| token.trim().eq_ignore_ascii_case("upgrade"))
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
    if let Ok(value) = HeaderValue::from_str(&chain) {
        headers.insert(X_FORWARDED_FOR, value);
    }
    headers.insert(X_FORWARDED_PROTO, proto);
    match headers.get(HOST).cloned() {
        Some(host) => headers.insert(X_FORWARDED_HOST, host),
        None => headers.remove(X_FORWARDED_HOST),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    HeaderName::from_bytes(name.as_bytes()).expect("name"),
                    HeaderValue::from_str(value).expect("value"),
                )
            })
            .collect()
    }

    #[test]
    fn hop_by_hop_headers_stop_here() {
        let mut headers = map(&[
            ("connection", "keep-alive, x-secret"),
            ("x-secret", "1"),
            ("keep-alive", "timeout=5"),
            ("te", "trailers"),
            ("trailer", "x"),
            ("transfer-encoding", "chunked"),
            ("upgrade", "websocket"),
            ("proxy-authorization", "Basic x"),
            ("proxy-connection", "keep-alive"),
            ("x-kept", "yes"),
        ]);
        strip_hop_by_hop(&mut headers, false);
        let names: Vec<&str> = headers.keys().map(HeaderName::as_str).collect();
        assert_eq!(names, ["x-kept"]);
    }

    #[test]
    fn an_upgrade_keeps_its_two_headers() {
        let mut headers = map(&[("connection", "Upgrade"), ("upgrade", "websocket")]);
        assert!(wants_upgrade(&headers));
        strip_hop_by_hop(&mut headers, true);
        assert_eq!(headers.get(UPGRADE).expect("kept"), "websocket");
        assert_eq!(headers.get(CONNECTION).expect("set"), "upgrade");
    }

    #[test]
    fn forwarded_headers_append_the_peer() {
        let mut headers = map(&[
            ("x-forwarded-for", "203.0.113.9"),
            ("host", "api.localhost"),
        ]);
        headers.append(X_FORWARDED_FOR, HeaderValue::from_static("198.51.100.1"));
        headers.insert(X_FORWARDED_PROTO, HeaderValue::from_static("https"));
        let proto = HeaderValue::from_static("http");
        add_forwarded(&mut headers, "127.0.0.1".parse().expect("ip"), proto);
        assert_eq!(
            headers.get(X_FORWARDED_FOR).expect("set"),
            "203.0.113.9, 198.51.100.1, 127.0.0.1"
        );
        assert_eq!(headers.get(X_FORWARDED_PROTO).expect("set"), "http");
        assert_eq!(headers.get(X_FORWARDED_HOST).expect("set"), "api.localhost");
    }
}
