//! Hop-by-hop headers, the end-to-end fields `Connection` cannot remove, upgrades and
//! `X-Forwarded-*`.

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
fn connection_names_in_any_case_and_a_message_without_hop_by_hop_fields_is_untouched() {
    let mut headers = map(&[
        ("connection", "X-Secret, x-absent"),
        ("x-secret", "1"),
        ("x-kept", "yes"),
    ]);
    strip_hop_by_hop(&mut headers, false);
    let names: Vec<&str> = headers.keys().map(HeaderName::as_str).collect();
    assert_eq!(names, ["x-kept"]);
    let mut plain = map(&[("x-kept", "yes"), ("content-type", "text/plain")]);
    let before = plain.clone();
    strip_hop_by_hop(&mut plain, false);
    assert_eq!(plain, before);
}

#[test]
fn a_websocket_upgrade_keeps_its_two_headers_and_no_other_passes() {
    let mut headers = map(&[("connection", "Upgrade"), ("upgrade", "WebSocket, h2c")]);
    assert!(wants_websocket(&Method::GET, &headers));
    assert!(!wants_websocket(&Method::POST, &headers));
    strip_hop_by_hop(&mut headers, true);
    assert_eq!(headers.get(UPGRADE).expect("kept"), "websocket");
    assert_eq!(headers.get(CONNECTION).expect("set"), "upgrade");
    let h2c = map(&[
        ("connection", "Upgrade, HTTP2-Settings"),
        ("upgrade", "h2c"),
    ]);
    assert!(!wants_websocket(&Method::GET, &h2c));
    assert!(switched_to_websocket(&map(&[("upgrade", "websocket")])));
    for answer in ["", "h2c", "websocket, h2c", "websocket2"] {
        assert!(
            !switched_to_websocket(&map(&[("upgrade", answer)])),
            "{answer}"
        );
    }
    assert!(!switched_to_websocket(&HeaderMap::new()));
}

#[test]
fn connection_cannot_remove_end_to_end_fields() {
    let mut headers = map(&[
        (
            "connection",
            "host, authorization, cookie, x-forwarded-for, x-forwarded-proto, content-length, x-private",
        ),
        ("host", "api.localhost"),
        ("authorization", "Bearer t"),
        ("cookie", "a=1"),
        ("x-forwarded-for", "203.0.113.9"),
        ("x-forwarded-proto", "https"),
        ("content-length", "2"),
        ("x-private", "dropped"),
    ]);
    strip_hop_by_hop(&mut headers, false);
    let mut names: Vec<&str> = headers.keys().map(HeaderName::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "authorization",
            "content-length",
            "cookie",
            "host",
            "x-forwarded-for",
            "x-forwarded-proto",
        ]
    );
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
