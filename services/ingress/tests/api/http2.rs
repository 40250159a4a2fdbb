//! HTTP/2 over TLS, chosen by ALPN, to HTTP/1.1 origins; a WebSocket over TLS on HTTP/1.1;
//! and the drain on SIGTERM for both protocols.

use crate::origins::Origin;
use crate::secure::{DevCert, HOST};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::process::Command;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const HSTS: &str = "max-age=31536000; includeSubDomains";

fn routes(origin: &Origin) -> String {
    format!(
        "ingress:\n  - hostname: {HOST}\n    service: {}\n  - service: http_status:404\n",
        origin.url()
    )
}

#[actix_web::test]
async fn http2_by_alpn_reaches_an_http1_origin_with_its_cookies_in_one_line() {
    let origin = Origin::start("h2");
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin), &[]);
    let stream = cert.connect(ingress.tls(), &[b"h2", b"http/1.1"]).await;
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
    let (mut sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .expect("HTTP/2");
    tokio::spawn(connection);
    let port = ingress.tls().port();
    // HTTP/2 clients send one `cookie` field per cookie (RFC 9113 §8.2.3).
    let request = http::Request::get(format!("https://{HOST}:{port}/echo?q=1"))
        .header("cookie", "a=1")
        .header("cookie", "b=2")
        .body(Empty::<Bytes>::new())
        .expect("request");
    let response = sender.send_request(request).await.expect("an answer");
    assert_eq!(response.version(), http::Version::HTTP_2);
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers()["strict-transport-security"], HSTS);
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    let body: serde_json::Value = serde_json::from_slice(&body).expect("json");
    assert_eq!(body["version"], "HTTP/1.1");
    assert_eq!(body["path"], "/echo");
    assert_eq!(body["query"], "q=1");
    assert_eq!(body["headers"]["cookie"], "a=1; b=2");
    assert_eq!(body["headers"]["host"], format!("{HOST}:{port}"));
    assert_eq!(body["headers"]["x-forwarded-proto"], "https");
}

#[actix_web::test]
async fn reqwest_and_curl_speak_http2_through_the_edge() {
    let origin = Origin::start("h2");
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin), &[]);
    let port = ingress.tls().port();
    let response = cert
        .client(ingress.tls())
        .get(format!("https://{HOST}:{port}/echo"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.version(), reqwest::Version::HTTP_2);
    assert_eq!(response.headers()["strict-transport-security"], HSTS);
    let Ok(curl) = Command::new("curl").arg("--version").output() else {
        eprintln!("curl is not installed: the curl --http2 half of this test is skipped");
        return;
    };
    assert!(curl.status.success());
    let output = Command::new("curl")
        .args(["--silent", "--show-error", "--http2", "--include"])
        .arg("--cacert")
        .arg(cert.path("ca.pem"))
        .args(["--resolve", &format!("{HOST}:{port}:127.0.0.1")])
        .arg(format!("https://{HOST}:{port}/echo"))
        .output()
        .expect("curl runs");
    let answer = String::from_utf8_lossy(&output.stdout);
    assert!(answer.starts_with("HTTP/2 200"), "{answer}");
    assert!(
        answer.contains(&format!("strict-transport-security: {HSTS}")),
        "{answer}"
    );
}

#[actix_web::test]
async fn a_websocket_goes_through_tls_on_http1_and_its_bytes_are_left_alone() {
    let origin = Origin::start("ws");
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin), &[]);
    let mut stream = cert.connect(ingress.tls(), &[b"http/1.1"]).await;
    stream
        .write_all(
            format!(
                "GET /ws HTTP/1.1\r\nHost: {HOST}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .expect("handshake sent");
    let head = read_head(&mut stream).await;
    assert!(
        head.starts_with("HTTP/1.1 101 Switching Protocols\r\n"),
        "{head}"
    );
    assert!(
        head.contains(&format!("strict-transport-security: {HSTS}\r\n")),
        "{head}"
    );
    assert!(
        head.contains("sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"),
        "{head}"
    );
    // A frame whose text is exactly the head hyper writes for a request it cannot parse:
    // once the connection is a tunnel, nothing is added to it.
    for text in [
        "hello",
        "HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\ndate: Tue, 01 Dec 2026 19:56:05 GMT\r\n\r\n",
    ] {
        stream
            .write_all(&masked_text(text))
            .await
            .expect("frame sent");
        let echoed = format!("echo: {text}");
        let mut frame = vec![0; 2 + echoed.len()];
        tokio::time::timeout(Duration::from_secs(10), stream.read_exact(&mut frame))
            .await
            .expect("the echo in time")
            .expect("read");
        assert_eq!(
            frame[..2],
            [0x81, u8::try_from(echoed.len()).expect("short")]
        );
        assert_eq!(String::from_utf8_lossy(&frame[2..]), echoed);
    }
}

#[actix_web::test]
async fn sigterm_lets_an_http2_stream_and_an_http1_request_finish() {
    let origin = Origin::start("slow");
    let cert = DevCert::make();
    let mut ingress = cert.ingress(
        &format!("{}estate:\n  drainTimeout: 10s\n", routes(&origin)),
        &[],
    );
    let url = format!("https://{HOST}:{}/slow?ms=1500", ingress.tls().port());
    let h2 = tokio::spawn(cert.client(ingress.tls()).get(&url).send());
    let h1_client = reqwest::Client::builder()
        .http1_only()
        .tls_certs_only([reqwest::Certificate::from_pem(
            &std::fs::read(cert.path("ca.pem")).expect("ca"),
        )
        .expect("pem")])
        .resolve(HOST, ingress.tls())
        .build()
        .expect("client");
    let h1 = tokio::spawn(h1_client.get(&url).send());
    tokio::time::sleep(Duration::from_millis(400)).await;
    ingress.terminate();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        tokio::net::TcpStream::connect(ingress.tls()).await.is_err(),
        "a new TLS connection during the drain was accepted"
    );
    for (joined, version) in [
        (h2, reqwest::Version::HTTP_2),
        (h1, reqwest::Version::HTTP_11),
    ] {
        let response = joined.await.expect("joined").expect("the request finishes");
        assert_eq!(response.version(), version);
        assert_eq!(response.status().as_u16(), 200);
        assert_eq!(response.text().await.expect("body"), "slow slept 1500 ms");
    }
    let status = ingress.wait_exit(Duration::from_secs(10));
    assert!(status.success(), "{status:?}\n{}", ingress.log_text());
}

async fn read_head(stream: &mut (impl AsyncReadExt + Unpin)) -> String {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let byte = tokio::time::timeout(Duration::from_secs(10), stream.read_u8())
            .await
            .expect("the head in time")
            .expect("read");
        head.push(byte);
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// A client's text frame (clients mask theirs, RFC 6455 §5.3), shorter than 126 bytes.
fn masked_text(text: &str) -> Vec<u8> {
    let mask = [0x12, 0x34, 0x56, 0x78];
    let mut frame = vec![0x81, 0x80 | u8::try_from(text.len()).expect("short")];
    frame.extend_from_slice(&mask);
    frame.extend(
        text.bytes()
            .enumerate()
            .map(|(at, byte)| byte ^ mask[at % 4]),
    );
    frame
}
