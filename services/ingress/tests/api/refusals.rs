//! What the edge refuses, on every port, answered in its own envelope: the whole body
//! `error code: NNN`, `x-request-id`, HSTS on HTTPS and none on plain HTTP. Transfer codings
//! other than one `chunked` (501, or 400 for `chunked` twice), `TRACE`, `CONNECT` and every
//! method `Allow` does not name, in any spelling (405
//! with `Allow`), `*` with another method than `OPTIONS`, an empty or repeated `Host` (400);
//! the plain port checks a request the same way before it redirects it.

use crate::raw_origin::{Behaviour, RawOrigin};
use crate::secure::{DevCert, HOST, plain_raw};

const HSTS_LINE: &str = "strict-transport-security: max-age=31536000; includeSubDomains\r\n";
const ALLOW_LINE: &str = "allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n";

/// Each request head (without its end) and the status and reason the edge answers.
const REFUSED: [(&str, &str); 14] = [
    (
        "POST /x HTTP/1.1\r\nHost: api.localhost\r\nTransfer-Encoding: gzip, chunked\r\n",
        "501 Not Implemented",
    ),
    (
        "POST /x HTTP/1.1\r\nHost: api.localhost\r\nTransfer-Encoding: x-custom, chunked\r\n",
        "501 Not Implemented",
    ),
    (
        "POST /x HTTP/1.1\r\nHost: api.localhost\r\nTransfer-Encoding: chunked, chunked\r\n",
        "400 Bad Request",
    ),
    (
        "POST /x HTTP/1.1\r\nHost: api.localhost\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
        "400 Bad Request",
    ),
    (
        "TRACE /x HTTP/1.1\r\nHost: api.localhost\r\n",
        "405 Method Not Allowed",
    ),
    (
        "CONNECT api.localhost:443 HTTP/1.1\r\nHost: api.localhost:443\r\n",
        "405 Method Not Allowed",
    ),
    // Other spellings and extensions: an origin that upper-cases methods reads `TRACE`.
    (
        "trace /x HTTP/1.1\r\nHost: api.localhost\r\n",
        "405 Method Not Allowed",
    ),
    (
        "TRACK /x HTTP/1.1\r\nHost: api.localhost\r\n",
        "405 Method Not Allowed",
    ),
    (
        "get /x HTTP/1.1\r\nHost: api.localhost\r\n",
        "405 Method Not Allowed",
    ),
    (
        "PROPFIND /x HTTP/1.1\r\nHost: api.localhost\r\n",
        "405 Method Not Allowed",
    ),
    (
        "M-SEARCH * HTTP/1.1\r\nHost: api.localhost\r\n",
        "405 Method Not Allowed",
    ),
    (
        "GET * HTTP/1.1\r\nHost: api.localhost\r\n",
        "400 Bad Request",
    ),
    ("GET /x HTTP/1.1\r\nHost: \r\n", "400 Bad Request"),
    (
        "GET /x HTTP/1.1\r\nHost: api.localhost\r\nHost: other.localhost\r\n",
        "400 Bad Request",
    ),
];

fn routes(service: &str) -> String {
    format!(
        "ingress:\n  - hostname: {HOST}\n    service: {service}\n  - service: http_status:404\n"
    )
}

/// The whole request: `head`, `connection: close`, and a chunked body when it has a coding.
fn request(head: &str) -> String {
    let body = if head.contains("Transfer-Encoding") {
        "5\r\nhello\r\n0\r\n\r\n"
    } else {
        ""
    };
    format!("{head}connection: close\r\n\r\n{body}")
}

/// Asserts `answer` is the edge's `status` in its envelope, with or without HSTS.
fn assert_envelope(answer: &str, status: &str, hsts: bool, context: &str) {
    assert!(
        answer.starts_with(&format!("HTTP/1.1 {status}\r\n")),
        "{context}: {answer}"
    );
    let code = &status[..3];
    assert!(
        answer.ends_with(&format!("\r\n\r\nerror code: {code}")),
        "{context}: {answer}"
    );
    assert!(
        answer.contains("\r\ncontent-type: text/plain; charset=UTF-8\r\n"),
        "{context}: {answer}"
    );
    assert!(answer.contains("\r\nx-request-id: "), "{context}: {answer}");
    assert_eq!(answer.contains(HSTS_LINE), hsts, "{context}: {answer}");
    assert_eq!(
        answer.contains(ALLOW_LINE),
        code == "405",
        "{context}: {answer}"
    );
    assert_eq!(
        answer.matches("HTTP/1.1 ").count(),
        1,
        "one answer: {answer}"
    );
}

#[actix_web::test]
async fn https_refusals_are_the_edges_envelope_with_hsts_and_never_reach_the_origin() {
    let origin = RawOrigin::start(Behaviour::Answer("HTTP/1.1 204 No Content\r\n\r\n")).await;
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin.url()), &[("INGRESS_PLAIN_HTTP", "serve")]);
    for (head, status) in REFUSED {
        let secure = cert.raw(ingress.tls(), request(head).as_bytes()).await;
        assert_envelope(&secure, status, true, head);
        let plain = plain_raw(ingress.proxy, request(head).as_bytes()).await;
        assert_envelope(&plain, status, false, head);
    }
    assert_eq!(origin.received(), 0, "nothing refused was forwarded");
    let metrics = ingress.metrics().await;
    for line in [
        r#"ingress_client_errors_total{reason="coding"} 8"#,
        r#"ingress_client_errors_total{reason="method"} 14"#,
    ] {
        assert!(metrics.contains(line), "{line}: {metrics}");
    }
}

#[actix_web::test]
async fn the_plain_port_checks_a_request_before_it_redirects_it() {
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes("http_status:204"), &[]);
    for (head, status) in REFUSED {
        let plain = plain_raw(ingress.proxy, request(head).as_bytes()).await;
        assert_envelope(&plain, status, false, head);
    }
    let tls = ingress.tls().port();
    let moved = plain_raw(
        ingress.proxy,
        b"GET /a?b=1 HTTP/1.1\r\nHost: api.localhost\r\nconnection: close\r\n\r\n",
    )
    .await;
    assert!(
        moved.starts_with("HTTP/1.1 308 Permanent Redirect\r\n"),
        "{moved}"
    );
    assert!(
        moved.contains(&format!("\r\nlocation: https://{HOST}:{tls}/a?b=1\r\n")),
        "{moved}"
    );
    assert!(moved.contains("\r\nx-request-id: "), "{moved}");
    assert!(moved.contains("\r\ncontent-length: 0\r\n"), "{moved}");
    let metrics = ingress.metrics().await;
    for line in [
        r#"ingress_requests_total{rule="0",code="308"} 1"#,
        r#"ingress_client_errors_total{reason="host"} 2"#,
        r#"ingress_client_errors_total{reason="method"} 7"#,
    ] {
        assert!(metrics.contains(line), "{line}: {metrics}");
    }
}

#[actix_web::test]
async fn an_origin_answer_framed_by_another_coding_is_the_edges_502() {
    for answer in [
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: x-custom\r\n\r\nhello",
    ] {
        let origin = RawOrigin::start(Behaviour::Answer(answer)).await;
        let cert = DevCert::make();
        let ingress = cert.ingress(&routes(&origin.url()), &[]);
        let secure = cert
            .raw(
                ingress.tls(),
                b"GET /x HTTP/1.1\r\nHost: api.localhost\r\nconnection: close\r\n\r\n",
            )
            .await;
        assert_envelope(&secure, "502 Bad Gateway", true, answer);
        assert!(!secure.contains("hello"), "{secure}");
        assert_eq!(origin.received(), 1, "sent once, not replayed: {answer}");
    }
}

#[actix_web::test]
async fn an_origin_length_written_as_a_list_reaches_the_client_as_one_value() {
    for answer in [
        "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
    ] {
        let origin = RawOrigin::start(Behaviour::Answer(answer)).await;
        let ingress = crate::process::Ingress::start(&routes(&origin.url()));
        let plain = plain_raw(
            ingress.proxy,
            b"GET /x HTTP/1.1\r\nHost: api.localhost\r\nconnection: close\r\n\r\n",
        )
        .await;
        let (head, body) = plain.split_once("\r\n\r\n").expect("a head");
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{plain}");
        let lengths: Vec<&str> = head
            .lines()
            .filter(|line| line.to_ascii_lowercase().starts_with("content-length:"))
            .collect();
        assert_eq!(lengths, ["content-length: 2"], "{answer:?}");
        assert_eq!(body, "ok");
    }
}

#[actix_web::test]
async fn the_edges_504_over_https_is_its_envelope_with_hsts() {
    let origin = RawOrigin::start(Behaviour::Silent).await;
    let cert = DevCert::make();
    let yaml = format!(
        "originRequest:\n  responseTimeout: 300ms\n{}",
        routes(&origin.url())
    );
    let ingress = cert.ingress(&yaml, &[]);
    let secure = cert
        .raw(
            ingress.tls(),
            b"GET /x HTTP/1.1\r\nHost: api.localhost\r\nconnection: close\r\n\r\n",
        )
        .await;
    assert_envelope(&secure, "504 Gateway Timeout", true, "silent origin");
}

#[actix_web::test]
async fn an_origin_body_that_looks_like_a_parser_error_is_passed_untouched() {
    const FORGED: &str = "HTTP/1.1 200 OK\r\ncontent-length: 103\r\n\r\nHTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\ndate: Tue, 01 Dec 2026 19:56:05 GMT\r\n\r\n";
    let origin = RawOrigin::start(Behaviour::Answer(FORGED)).await;
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin.url()), &[]);
    let secure = cert
        .raw(
            ingress.tls(),
            b"GET /x HTTP/1.1\r\nHost: api.localhost\r\nconnection: close\r\n\r\n",
        )
        .await;
    let body = &FORGED[FORGED.find("\r\n\r\n").expect("a head") + 4..];
    assert_eq!(body.len(), 103);
    assert!(secure.starts_with("HTTP/1.1 200 OK\r\n"), "{secure}");
    assert!(secure.ends_with(&format!("\r\n\r\n{body}")), "{secure}");
    assert_eq!(
        secure.matches(HSTS_LINE).count(),
        1,
        "only the answer's own: {secure}"
    );
}

#[actix_web::test]
async fn a_malformed_request_pipelined_after_one_with_a_body_gets_hyper_400_with_hsts() {
    let origin = RawOrigin::start(Behaviour::Answer(
        "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello",
    ))
    .await;
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin.url()), &[]);
    let pipelined = "POST /x HTTP/1.1\r\nHost: api.localhost\r\ncontent-length: 3\r\n\r\nabcBAD / HTTP/1.1\r\nHost a\r\n\r\n";
    let secure = cert.raw(ingress.tls(), pipelined.as_bytes()).await;
    let second = secure
        .find("HTTP/1.1 400")
        .expect("hyper's 400 after the answer");
    let (answered, refused) = secure.split_at(second);
    assert!(answered.starts_with("HTTP/1.1 200 OK\r\n"), "{secure}");
    assert!(
        answered.contains(HSTS_LINE) && answered.ends_with("\r\n\r\nhello"),
        "{secure}"
    );
    assert!(
        refused.starts_with(&format!(
            "HTTP/1.1 400 Bad Request\r\n{HSTS_LINE}connection: close\r\n"
        )),
        "{secure}"
    );
    assert_eq!(origin.received(), 1);
}
