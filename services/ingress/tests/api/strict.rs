//! RFC 9112 at the edge, over raw sockets (a client library would refuse to send most of
//! this): the `Host` rules, the absolute-form URL winning over `Host`, `Connection` unable to
//! strip end-to-end fields, framing both ways, and a client's broken body answered as the
//! client's error.

use crate::origins::Origin;
use crate::process::Ingress;
use crate::raw_origin::{Behaviour, RawOrigin};
use serde_json::Value;
use testkit::raw::{Exchange, RawRequest, send, send_bytes};

/// The request lines (`\r\n` added), then an empty line, then `body`.
fn wire(lines: &[&str], body: &str) -> Vec<u8> {
    let mut text = String::new();
    for line in lines {
        text.push_str(line);
        text.push_str("\r\n");
    }
    text.push_str("\r\n");
    text.push_str(body);
    text.into_bytes()
}

/// The edge's own 400.
pub fn assert_edge_400(exchange: &Exchange, what: &str) {
    assert_eq!(
        (exchange.status, exchange.body.as_str()),
        (400, "error code: 400"),
        "{what}"
    );
    assert_eq!(
        exchange.header("content-type"),
        Some("text/plain; charset=UTF-8"),
        "{what}"
    );
    // Plain HTTP here: no answer on the plain port carries HSTS (`tls.rs` has the HTTPS side).
    assert_eq!(exchange.header("strict-transport-security"), None, "{what}");
    assert!(exchange.header("x-request-id").is_some(), "{what}");
}

fn echo_file(origin: &Origin) -> String {
    format!("ingress:\n  - service: {}\n", origin.url())
}

#[actix_web::test]
async fn a_missing_repeated_or_invalid_host_is_the_edge_400() {
    let origin = Origin::start("echo");
    let ingress = Ingress::start(&echo_file(&origin));
    let address = ingress.proxy.to_string();
    let requests: [&[&str]; 7] = [
        &["GET /echo HTTP/1.1", "Host: a.test", "Host: b.test"],
        &["GET /echo HTTP/1.1", "Host: a.test", "Host: a.test"],
        &[
            "GET http://a.test/echo HTTP/1.1",
            "Host: a.test",
            "Host: a.test",
        ],
        &["GET /echo HTTP/1.1"],
        &["GET /echo HTTP/1.1", "Host: user@a.test"],
        &["GET http://user@a.test/echo HTTP/1.1", "Host: a.test"],
        &["GET /echo HTTP/1.1", "Host: a.test:http"],
    ];
    for lines in requests {
        let mut lines = lines.to_vec();
        lines.push("Connection: close");
        let exchange = send_bytes(&address, &wire(&lines, ""), &lines.join(" / ")).await;
        assert_edge_400(&exchange, &lines.join(" / "));
    }
    assert_eq!(origin.hits(), 0, "none of them reached the origin");
    let old = wire(&["GET /echo HTTP/1.0"], "");
    let exchange = send_bytes(&address, &old, "HTTP/1.0 without Host").await;
    assert_eq!(exchange.status, 200, "HTTP/1.0 needs no Host: {exchange:?}");
    let metrics = ingress.metrics().await;
    assert!(
        metrics.contains(r#"ingress_client_errors_total{reason="host"} 7"#),
        "{metrics}"
    );
}

#[actix_web::test]
async fn the_absolute_form_url_wins_over_host() {
    let (a, b) = (Origin::start("a"), Origin::start("b"));
    let ingress = Ingress::start(&format!(
        "ingress:\n  - hostname: a.test\n    service: {}\n  - hostname: b.test\n    service: {}\n  - service: http_status:404\n",
        a.url(),
        b.url()
    ));
    let request = wire(
        &[
            "GET http://b.test:8080/echo/x?q=1 HTTP/1.1",
            "Host: a.test",
            "Connection: close",
        ],
        "",
    );
    let exchange = send_bytes(&ingress.proxy.to_string(), &request, "absolute form").await;
    assert_eq!(exchange.status, 200, "{}", exchange.body);
    let seen: Value = serde_json::from_str(&exchange.body).expect("the echo");
    assert_eq!(seen["origin"], "b", "routed by the URL's host");
    assert_eq!(seen["path"], "/echo/x");
    assert_eq!(seen["query"], "q=1");
    assert_eq!(
        seen["headers"]["host"], "b.test:8080",
        "the URL's authority"
    );
    assert_eq!(seen["headers"]["x-forwarded-host"], "b.test:8080");
    assert_eq!((a.hits(), b.hits()), (0, 1));
}

/// Each end-to-end field a client might try to strip with `Connection`, and its value.
const END_TO_END: [(&str, &str); 8] = [
    ("host", "api.localhost"),
    ("authorization", "Bearer abc"),
    ("cookie", "session=1"),
    ("origin", "http://localhost:3000"),
    ("x-forwarded-for", "203.0.113.9"),
    ("x-forwarded-host", "ignored.test"),
    ("content-type", "application/json"),
    ("x-request-id", "req-1"),
];

#[actix_web::test]
async fn connection_cannot_strip_end_to_end_fields() {
    let origin = Origin::start("echo");
    let ingress = Ingress::start(&echo_file(&origin));
    let address = ingress.proxy.to_string();
    let every: Vec<&str> = END_TO_END.iter().map(|(name, _)| *name).collect();
    let mut options: Vec<String> = every.iter().map(|name| (*name).to_owned()).collect();
    options.push(every.join(", ") + ", content-length, x-private");
    for named in options {
        let mut lines = vec!["POST /echo HTTP/1.1".to_owned()];
        lines.extend(
            END_TO_END
                .iter()
                .map(|(name, value)| format!("{name}: {value}")),
        );
        lines.extend([
            format!("Connection: close, {named}"),
            "X-Private: dropped".to_owned(),
            "Content-Length: 7".to_owned(),
        ]);
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let exchange = send_bytes(&address, &wire(&lines, "payload"), &named).await;
        assert_eq!(
            exchange.status, 200,
            "Connection: {named}: {}",
            exchange.body
        );
        let seen: Value = serde_json::from_str(&exchange.body).expect("the echo");
        let headers = &seen["headers"];
        assert_eq!(headers["host"], "api.localhost", "Connection: {named}");
        assert_eq!(
            headers["authorization"], "Bearer abc",
            "Connection: {named}"
        );
        assert_eq!(headers["cookie"], "session=1", "Connection: {named}");
        assert_eq!(
            headers["origin"], "http://localhost:3000",
            "Connection: {named}"
        );
        assert_eq!(
            headers["x-forwarded-for"], "203.0.113.9, 127.0.0.1",
            "{named}"
        );
        assert_eq!(headers["x-forwarded-host"], "api.localhost", "{named}");
        assert_eq!(headers["content-type"], "application/json", "{named}");
        // The edge's own id (this peer is not trusted to hand one on), whatever `Connection` names.
        let id = headers["x-request-id"].as_str().unwrap_or_default();
        assert!(
            id.len() == 32 && id.bytes().all(|byte| byte.is_ascii_hexdigit()),
            "Connection: {named}: {id:?}"
        );
        assert_eq!(seen["body"], "payload", "Connection: {named}");
        if named.contains("x-private") {
            assert!(
                headers.get("x-private").is_none(),
                "a real option still goes"
            );
        }
    }
}

#[actix_web::test]
async fn a_request_framed_both_ways_is_read_by_its_chunks_and_smuggles_nothing() {
    let origin = Origin::start("echo");
    let ingress = Ingress::start(&echo_file(&origin));
    let mut request = wire(
        &[
            "POST /echo HTTP/1.1",
            "Host: a.test",
            "Content-Length: 3",
            "Transfer-Encoding: chunked",
        ],
        "5\r\nhello\r\n0\r\n\r\n",
    );
    request.extend(wire(&["GET /smuggled HTTP/1.1", "Host: a.test"], ""));
    let exchange = send_bytes(&ingress.proxy.to_string(), &request, "CL and TE").await;
    assert_eq!(exchange.status, 200, "{}", exchange.body);
    let seen: Value = serde_json::from_str(&exchange.body).expect("one echo, then the close");
    assert_eq!(seen["body"], "hello");
    assert!(seen["headers"].get("content-length").is_none(), "{seen}");
    assert_eq!(origin.hits(), 1, "the request behind it was never read");
}

#[actix_web::test]
async fn a_length_repeated_reaches_the_origin_as_one_number() {
    let origin = RawOrigin::start(Behaviour::Answer(
        "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n",
    ))
    .await;
    let ingress = Ingress::start(&format!("ingress:\n  - service: {}\n", origin.url()));
    // A list in one line (`5, 5`) is hyper's own 400 before the edge sees it; equal lines are
    // accepted, and hyper's client writes the origin's request with the one length it frames.
    for lengths in [
        &["Content-Length: 5", "Content-Length: 5"][..],
        &[
            "Content-Length: 5",
            "content-length: 5",
            "CONTENT-LENGTH: 5",
        ],
    ] {
        let mut lines = vec!["POST /upload HTTP/1.1", "Host: a.test", "Connection: close"];
        lines.extend_from_slice(lengths);
        let request = wire(&lines, "hello");
        let exchange = send_bytes(&ingress.proxy.to_string(), &request, "lengths").await;
        assert_eq!(exchange.status, 204, "{lengths:?}: {}", exchange.body);
        let head = origin.heads().pop().expect("the origin read the request");
        let sent: Vec<&str> = head
            .lines()
            .filter(|line| line.to_ascii_lowercase().starts_with("content-length"))
            .collect();
        assert_eq!(sent, ["content-length: 5"], "{lengths:?}");
    }
}

/// An origin framing its answer both ways; the chunks are what counts.
const TWO_FRAMINGS: &str = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";

#[actix_web::test]
async fn an_answer_framed_both_ways_loses_its_content_length() {
    let origin = RawOrigin::start(Behaviour::Answer(TWO_FRAMINGS)).await;
    let ingress = Ingress::start(&format!("ingress:\n  - service: {}\n", origin.url()));
    let exchange = send(&ingress.proxy.to_string(), &RawRequest::new("GET", "/")).await;
    assert_eq!(exchange.status, 200);
    assert_eq!(
        exchange.header("content-length"),
        None,
        "{:?}",
        exchange.headers
    );
    assert_eq!(exchange.body, "hello world");
}

#[actix_web::test]
async fn a_clients_broken_body_is_its_own_400_not_the_origins_502() {
    let origin = Origin::start("echo");
    let ingress = Ingress::start(&echo_file(&origin));
    let request = wire(
        &[
            "POST /echo HTTP/1.1",
            "Host: a.test",
            "Transfer-Encoding: chunked",
            "Connection: close",
        ],
        "5\r\nhello\r\nzz\r\nnot a chunk\r\n",
    );
    let exchange = send_bytes(&ingress.proxy.to_string(), &request, "broken chunks").await;
    assert_edge_400(&exchange, "a malformed chunked body");
    let metrics = ingress.metrics().await;
    assert!(
        metrics.contains(r#"ingress_client_errors_total{reason="body"} 1"#),
        "{metrics}"
    );
    assert!(
        metrics.contains(r#"ingress_requests_total{rule="0",code="400"} 1"#),
        "{metrics}"
    );
    assert!(
        !metrics.contains("ingress_origin_failures_total{"),
        "{metrics}"
    );
    let log = ingress.log_text();
    // Every line the edge writes for its 502 opens with "502: "; a bare "502" can be part of
    // a random request id or a timestamp.
    assert!(
        !log.contains("502: "),
        "logged as the origin's failure:\n{log}"
    );
    assert!(
        log.contains("400: the client's request body broke"),
        "{log}"
    );
}
