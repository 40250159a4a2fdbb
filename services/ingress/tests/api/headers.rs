//! Headers as the origin sees them and as the client gets them back: `X-Forwarded-For`
//! gains the peer, `X-Forwarded-Proto`/`-Host` are set, a client's own claims of its address
//! or scheme (`Forwarded`, `X-Real-IP`, other `X-Forwarded-*`) are dropped, hop-by-hop headers stop at the
//! ingress both ways, `httpHostHeader` replaces `Host`, and an origin's HSTS never reaches
//! a plain HTTP client (on HTTPS the edge's replaces it: `tls.rs`).

use crate::origins::Origin;
use crate::process::Ingress;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn seen(request: reqwest::RequestBuilder) -> Value {
    let response = request.send().await.expect("the ingress answers");
    assert_eq!(response.status().as_u16(), 200);
    response.json().await.expect("the echo")
}

#[actix_web::test]
async fn the_origin_sees_forwarded_headers_and_no_hop_by_hop_ones() {
    let origin = Origin::start("echo");
    let ingress = Ingress::start(&format!(
        "ingress:\n  - hostname: api.localhost\n    service: {}\n  - service: http_status:404\n",
        origin.url()
    ));
    let request = crate::client()
        .post(ingress.url("/echo/path?x=1"))
        .header("host", "api.localhost:8080")
        .header("x-forwarded-for", "203.0.113.7")
        .header("x-forwarded-proto", "https")
        .header("connection", "keep-alive, x-private")
        .header("x-private", "dropped because Connection names it")
        .header("keep-alive", "timeout=5")
        .header("te", "trailers")
        .header("proxy-authorization", "Basic eDp5")
        .header("x-kept", "kept")
        .header("x_forwarded_for", "198.51.100.9")
        .header("X_Real_IP", "198.51.100.9")
        .header("x_request_id", "chosen-by-the-client")
        .header("x_forwarded_proto", "https")
        .header("x-under_score", "dropped too")
        .header("forwarded", "for=198.51.100.9;proto=https;host=evil.test")
        .header("x-real-ip", "198.51.100.9")
        .header("cf-connecting-ip", "198.51.100.9")
        .header("true-client-ip", "198.51.100.9")
        .header("x-client-ip", "198.51.100.9")
        .header("x-cluster-client-ip", "198.51.100.9")
        .header("fastly-client-ip", "198.51.100.9")
        .header("x-forwarded-ssl", "on")
        .header("x-forwarded-scheme", "https")
        .header("x-forwarded-port", "443")
        .header("x-forwarded-server", "evil.test")
        .header("x-forwarded-prefix", "/admin")
        .header("x-forwarded", "for=198.51.100.9")
        .header("client-ip", "198.51.100.9")
        .header("x-originating-ip", "198.51.100.9")
        .header("cf-visitor", r#"{"scheme":"https"}"#)
        .header("front-end-https", "on")
        .header("x-http-method-override", "TRACE")
        .header("x-original-url", "/blocked")
        .header("x-rewrite-url", "/blocked")
        .body("payload");
    let seen = seen(request).await;
    let headers = &seen["headers"];
    assert_eq!(headers["x-forwarded-for"], "203.0.113.7, 127.0.0.1");
    assert_eq!(headers["x-forwarded-proto"], "http");
    assert_eq!(headers["x-forwarded-host"], "api.localhost:8080");
    assert_eq!(headers["host"], "api.localhost:8080");
    assert_eq!(headers["x-kept"], "kept");
    for dropped in [
        "forwarded",
        "x-real-ip",
        "cf-connecting-ip",
        "true-client-ip",
        "x-client-ip",
        "x-cluster-client-ip",
        "fastly-client-ip",
        "x-forwarded-ssl",
        "x-forwarded-scheme",
        "x-forwarded-port",
        "x-forwarded-server",
        "x-forwarded-prefix",
        "x-forwarded",
        "client-ip",
        "x-originating-ip",
        "cf-visitor",
        "front-end-https",
        "x-http-method-override",
        "x-original-url",
        "x-rewrite-url",
        "x_forwarded_for",
        "x_real_ip",
        "x_request_id",
        "x_forwarded_proto",
        "x-under_score",
        "x-private",
        "keep-alive",
        "te",
        "proxy-authorization",
        "upgrade",
    ] {
        assert!(
            headers.get(dropped).is_none(),
            "{dropped} reached the origin: {headers}"
        );
    }
    assert_eq!(seen["method"], "POST");
    assert_eq!(seen["path"], "/echo/path");
    assert_eq!(seen["query"], "x=1");
    assert_eq!(seen["body"], "payload");
    assert_eq!(seen["version"], "HTTP/1.1");
}

#[actix_web::test]
async fn http_host_header_replaces_host_but_not_x_forwarded_host() {
    let origin = Origin::start("echo");
    let ingress = Ingress::start(&format!(
        "ingress:\n  - service: {}\n    originRequest:\n      httpHostHeader: backend.internal\n",
        origin.url()
    ));
    let request = crate::client()
        .get(ingress.url("/echo"))
        .header("host", "api.localhost");
    let seen = seen(request).await;
    assert_eq!(seen["headers"]["host"], "backend.internal");
    assert_eq!(seen["headers"]["x-forwarded-host"], "api.localhost");
}

/// An origin written by hand, so its response carries exactly these headers (a framework
/// would rewrite `Connection`).
const RAW_RESPONSE: &str = "HTTP/1.1 200 OK\r\n\
    Connection: x-origin-private\r\n\
    X-Origin-Private: secret\r\n\
    Keep-Alive: timeout=5\r\n\
    Proxy-Authenticate: Basic\r\n\
    Strict-Transport-Security: max-age=1\r\n\
    X-App: kept\r\n\
    Content-Length: 2\r\n\r\nok";

pub async fn raw_origin() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if stream.read_exact(&mut byte).await.is_err() {
                        return;
                    }
                    head.push(byte[0]);
                }
                let _ = stream.write_all(RAW_RESPONSE.as_bytes()).await;
            });
        }
    });
    port
}

#[actix_web::test]
async fn the_client_gets_no_hop_by_hop_headers_from_the_origin() {
    let port = raw_origin().await;
    let ingress = Ingress::start(&format!("ingress:\n  - service: http://127.0.0.1:{port}\n"));
    let response = crate::client()
        .get(ingress.url("/"))
        .send()
        .await
        .expect("the ingress answers");
    let headers = response.headers();
    assert_eq!(headers["x-app"], "kept");
    assert!(
        headers.get("strict-transport-security").is_none(),
        "no HSTS over plain HTTP, not even the origin's"
    );
    for dropped in [
        "x-origin-private",
        "keep-alive",
        "proxy-authenticate",
        "connection",
    ] {
        assert!(
            headers.get(dropped).is_none(),
            "{dropped} reached the client"
        );
    }
    assert_eq!(response.text().await.expect("body"), "ok");
}
