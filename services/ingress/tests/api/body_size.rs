//! The largest request body the edge forwards (`estate.maxRequestBodyBytes`, Cloudflare's
//! 100 MB by default): a body declared larger is the edge's `413` before any origin sees it; a
//! chunked or HTTP/2 body that grows larger is cut there with the same `413`; a body of exactly
//! the bound passes.

use crate::origins::Origin;
use crate::process::Ingress;
use crate::secure::{DevCert, HOST};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const BOUND: usize = 1000;
const ANSWERED_WITHIN: Duration = Duration::from_secs(8);

fn file(origin: &Origin) -> String {
    format!(
        "ingress:\n  - hostname: {HOST}\n    service: {}\n  - service: http_status:404\n\
         estate:\n  maxRequestBodyBytes: {BOUND}\n",
        origin.url()
    )
}

/// Writes `bytes` on a plain connection and reads the answer until the ingress closes it.
async fn exchange(ingress: &Ingress, bytes: &[u8]) -> String {
    let mut stream = TcpStream::connect(ingress.proxy).await.expect("connects");
    // The edge may answer and close before it has read all of it.
    let _ = stream.write_all(bytes).await;
    let mut answer = Vec::new();
    let read = tokio::time::timeout(ANSWERED_WITHIN, stream.read_to_end(&mut answer)).await;
    let _ = read.expect("answered and closed in time");
    String::from_utf8_lossy(&answer).into_owned()
}

fn assert_413(answer: &str) {
    assert!(
        answer.starts_with("HTTP/1.1 413 Payload Too Large\r\n"),
        "{answer}"
    );
    assert!(answer.contains("\r\nconnection: close\r\n"), "{answer}");
    assert!(answer.ends_with("\r\n\r\nerror code: 413"), "{answer}");
}

fn by_length(size: usize) -> Vec<u8> {
    let mut request = format!(
        "POST /upload HTTP/1.1\r\nHost: {HOST}\r\ncontent-length: {size}\r\n\
         connection: close\r\n\r\n"
    )
    .into_bytes();
    request.extend(std::iter::repeat_n(b'x', size));
    request
}

#[actix_web::test]
async fn a_body_declared_larger_is_the_edges_413_and_reaches_no_origin() {
    let origin = Origin::start("sized");
    let ingress = Ingress::start(&file(&origin));
    for size in [BOUND + 1, 10 * BOUND, 1 << 40] {
        let head = format!(
            "POST /echo HTTP/1.1\r\nHost: {HOST}\r\ncontent-length: {size}\r\n\r\n0123456789"
        );
        assert_413(&exchange(&ingress, head.as_bytes()).await);
    }
    assert_eq!(origin.hits(), 0, "an origin saw a body over the bound");
    let exact = exchange(&ingress, &by_length(BOUND)).await;
    assert!(exact.starts_with("HTTP/1.1 200 OK\r\n"), "{exact}");
    assert!(
        exact.ends_with(&format!("received {BOUND} bytes")),
        "{exact}"
    );
    let metrics = ingress.metrics().await;
    assert!(
        metrics.contains(r#"ingress_client_errors_total{reason="size"} 3"#),
        "{metrics}"
    );
}

#[actix_web::test]
async fn a_chunked_body_growing_past_the_bound_is_cut_with_413() {
    let origin = Origin::start("chunked");
    let ingress = Ingress::start(&file(&origin));
    let mut request =
        format!("POST /upload HTTP/1.1\r\nHost: {HOST}\r\ntransfer-encoding: chunked\r\n\r\n")
            .into_bytes();
    for _ in 0..3 {
        request.extend_from_slice(format!("{:x}\r\n", BOUND / 2).as_bytes());
        request.extend(std::iter::repeat_n(b'y', BOUND / 2));
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"0\r\n\r\n");
    assert_413(&exchange(&ingress, &request).await);
    let mut exact = format!(
        "POST /upload HTTP/1.1\r\nHost: {HOST}\r\ntransfer-encoding: chunked\r\n\
         connection: close\r\n\r\n"
    )
    .into_bytes();
    for _ in 0..2 {
        exact.extend_from_slice(format!("{:x}\r\n", BOUND / 2).as_bytes());
        exact.extend(std::iter::repeat_n(b'y', BOUND / 2));
        exact.extend_from_slice(b"\r\n");
    }
    exact.extend_from_slice(b"0\r\n\r\n");
    let answer = exchange(&ingress, &exact).await;
    assert!(
        answer.ends_with(&format!("received {BOUND} bytes")),
        "{answer}"
    );
}

#[actix_web::test]
async fn an_http2_body_past_the_bound_is_413_with_or_without_a_length() {
    let origin = Origin::start("h2-sized");
    let cert = DevCert::make();
    let ingress = cert.ingress(&file(&origin), &[]);
    let client = cert.client(ingress.tls());
    let url = format!("https://{HOST}:{}/upload", ingress.tls().port());
    let declared = client
        .post(&url)
        .body(vec![b'z'; BOUND + 1])
        .send()
        .await
        .expect("answered");
    assert_eq!(declared.status().as_u16(), 413);
    assert_eq!(declared.version(), reqwest::Version::HTTP_2);
    assert_eq!(declared.text().await.expect("a body"), "error code: 413");
    let chunks =
        futures_util::stream::iter((0..3).map(|_| Ok::<_, std::io::Error>(vec![b'z'; BOUND / 2])));
    let streamed = client
        .post(&url)
        .body(reqwest::Body::wrap_stream(chunks))
        .send()
        .await
        .expect("answered");
    assert_eq!(streamed.status().as_u16(), 413);
    assert_eq!(streamed.text().await.expect("a body"), "error code: 413");
}
