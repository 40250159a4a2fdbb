//! The request body timeout (`estate.requestBodyTimeout`, nginx's `client_body_timeout`): a
//! client that stops sending a body its origin waits for is answered `408`, `error code: 408`
//! with `connection: close`, whether the body is sent by length, chunked, not begun at all,
//! or on an HTTP/2 stream; a slow but steady upload passes; and an answer that streams while
//! the body is still open is not cut.

use crate::origins::Origin;
use crate::process::Ingress;
use crate::secure::{DevCert, HOST, h2};
use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const BOUNDS: &str = "estate:\n  requestBodyTimeout: 2s\n";
/// How long a stalled body may take to be answered: the timeout and a margin for a loaded
/// machine.
const ANSWERED_WITHIN: Duration = Duration::from_secs(10);

fn file(origin: &Origin) -> String {
    format!(
        "ingress:\n  - hostname: {HOST}\n    service: {}\n  - service: http_status:404\n{BOUNDS}",
        origin.url()
    )
}

/// Writes `head` and `body_start` on a plain connection, then nothing more: the answer.
async fn stall(ingress: &Ingress, head: &str, body_start: &[u8]) -> (String, Duration) {
    let mut stream = TcpStream::connect(ingress.proxy).await.expect("connects");
    stream.write_all(head.as_bytes()).await.expect("head");
    stream.write_all(body_start).await.expect("body");
    let started = Instant::now();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(ANSWERED_WITHIN, stream.read_to_end(&mut answer)).await;
    read.expect("answered and closed in time").expect("read");
    (
        String::from_utf8_lossy(&answer).into_owned(),
        started.elapsed(),
    )
}

fn assert_408(answer: &str, took: Duration) {
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{answer}"
    );
    assert!(answer.contains("\r\nconnection: close\r\n"), "{answer}");
    assert!(answer.ends_with("\r\n\r\nerror code: 408"), "{answer}");
    assert!(
        took >= Duration::from_millis(900),
        "answered after {took:?}"
    );
}

#[actix_web::test]
async fn a_body_that_stops_coming_is_answered_408() {
    let origin = Origin::start("stalled");
    let ingress = Ingress::start(&file(&origin));
    let by_length = format!("POST /echo HTTP/1.1\r\nHost: {HOST}\r\ncontent-length: 100\r\n\r\n");
    let chunked =
        format!("POST /echo HTTP/1.1\r\nHost: {HOST}\r\ntransfer-encoding: chunked\r\n\r\n");
    for (head, start) in [
        (&by_length, &b"0123456789"[..]),
        (&by_length, &b""[..]),
        (&chunked, &b"5\r\nhello\r\n"[..]),
        (&chunked, &b""[..]),
    ] {
        let (answer, took) = stall(&ingress, head, start).await;
        assert_408(&answer, took);
    }
    let metrics = ingress.metrics().await;
    assert!(
        metrics.contains(r#"ingress_client_errors_total{reason="stalled"} 4"#),
        "{metrics}"
    );
}

#[actix_web::test]
async fn an_http2_body_that_stops_coming_is_answered_408() {
    let origin = Origin::start("stalled-h2");
    let cert = DevCert::make();
    let ingress = cert.ingress(&file(&origin), &[]);
    let mut sender = h2(&cert, ingress.tls()).await;
    let (frames, receiver) = tokio::sync::mpsc::channel::<Result<Frame<Bytes>, std::io::Error>>(1);
    frames
        .send(Ok(Frame::data(Bytes::from_static(b"a start"))))
        .await
        .expect("queued");
    let body = StreamBody::new(Box::pin(stream_of(receiver)));
    let request = http::Request::post(format!("https://{HOST}:{}/echo", ingress.tls().port()))
        .body(body)
        .expect("a request");
    let response = tokio::time::timeout(ANSWERED_WITHIN, sender.send_request(request))
        .await
        .expect("answered in time")
        .expect("answered");
    assert_eq!(response.status().as_u16(), 408);
    let body = response
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes();
    assert_eq!(&body[..], b"error code: 408");
    drop(frames);
}

/// The frames a test sends, as a stream a body can be made of.
fn stream_of(
    receiver: tokio::sync::mpsc::Receiver<Result<Frame<Bytes>, std::io::Error>>,
) -> impl futures_util::Stream<Item = Result<Frame<Bytes>, std::io::Error>> {
    futures_util::stream::unfold(receiver, |mut receiver| async move {
        let frame = receiver.recv().await?;
        Some((frame, receiver))
    })
}

#[actix_web::test]
async fn a_slow_but_steady_upload_passes() {
    let origin = Origin::start("steady");
    let ingress = Ingress::start(&file(&origin));
    let mut stream = TcpStream::connect(ingress.proxy).await.expect("connects");
    let head = format!(
        "POST /upload HTTP/1.1\r\nHost: {HOST}\r\ncontent-length: 8\r\nconnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    // Eight bytes over 3.2 s: longer than the timeout in all, never silent for as long.
    for _ in 0..8 {
        stream.write_all(b"x").await.expect("a byte");
        tokio::time::sleep(Duration::from_millis(400)).await;
    }
    let mut answer = Vec::new();
    let read = tokio::time::timeout(ANSWERED_WITHIN, stream.read_to_end(&mut answer)).await;
    read.expect("answered").expect("read");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.ends_with("received 8 bytes"), "{answer}");
}

#[actix_web::test]
async fn an_answer_streaming_while_the_body_is_open_is_not_cut() {
    let origin = Origin::start("early");
    let ingress = Ingress::start(&file(&origin));
    let mut stream = TcpStream::connect(ingress.proxy).await.expect("connects");
    // `/stream` answers at once without reading the body, then holds its second chunk.
    let head = format!("POST /stream HTTP/1.1\r\nHost: {HOST}\r\ncontent-length: 100\r\n\r\n");
    stream.write_all(head.as_bytes()).await.expect("head");
    let mut buffer = vec![0u8; 4096];
    let mut answer = String::new();
    while !answer.contains("first\n") {
        let read = tokio::time::timeout(ANSWERED_WITHIN, stream.read(&mut buffer))
            .await
            .expect("the first chunk")
            .expect("read");
        assert!(read > 0, "closed: {answer}");
        answer.push_str(&String::from_utf8_lossy(&buffer[..read]));
    }
    // Longer than the body timeout, then the rest of the answer.
    tokio::time::sleep(Duration::from_millis(3000)).await;
    origin.signals.release.notify_one();
    while !answer.contains("second\n") {
        let read = tokio::time::timeout(ANSWERED_WITHIN, stream.read(&mut buffer))
            .await
            .expect("the second chunk")
            .expect("read");
        assert!(read > 0, "cut after the first chunk: {answer}");
        answer.push_str(&String::from_utf8_lossy(&buffer[..read]));
    }
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
}
