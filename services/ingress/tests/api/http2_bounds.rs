//! An HTTP/2 client cannot hold the edge or make it work for nothing: a connection that
//! never sends its preface, or never answers the GOAWAY's PING, is dropped a few seconds
//! after `estate.http2IdleTimeout`; a client that cancels most of the streams it opens (each
//! of which may have cost an origin connection) is told GOAWAY after a hundred, and any client
//! after a thousand, however many cheap requests it sends between them; one that
//! never opens its flow-control window, so no answer can be sent, is closed after
//! `estate.sendTimeout`.

use crate::origins::Origin;
use crate::raw_origin::{Behaviour, RawOrigin};
use crate::secure::{DevCert, HOST};
use bytes::Bytes;
use http_body_util::Empty;
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The idle timeout the tests set, and how long after it a connection must be gone: the
/// GOAWAY's linger (5 s) and a margin for a loaded machine.
const IDLE: &str = "estate:\n  http2IdleTimeout: 1s\n";
const GONE_WITHIN: Duration = Duration::from_secs(12);

/// HTTP/2's connection preface and an empty SETTINGS frame.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0";

fn routes(origin: &str) -> String {
    format!(
        "ingress:\n  - hostname: {HOST}\n    service: {origin}\n  - service: http_status:404\n{IDLE}"
    )
}

/// Opens a TLS connection choosing `h2`, writes `bytes`, then reads (answering nothing) until
/// the ingress closes it: how long that took.
async fn held_for(cert: &DevCert, tls: std::net::SocketAddr, bytes: &[u8]) -> Duration {
    let mut stream = cert.connect(tls, &[b"h2"]).await;
    let started = Instant::now();
    stream.write_all(bytes).await.expect("written");
    let mut sink = Vec::new();
    // A peer that closes without close_notify is an error to rustls: closed all the same.
    let _ = tokio::time::timeout(GONE_WITHIN, stream.read_to_end(&mut sink))
        .await
        .unwrap_or_else(|_| {
            panic!(
                "still open after {GONE_WITHIN:?} (sent {} bytes)",
                bytes.len()
            )
        });
    started.elapsed()
}

#[actix_web::test]
async fn a_silent_http2_client_is_dropped_after_the_idle_timeout() {
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes("http_status:204"), &[]);
    let silent = held_for(&cert, ingress.tls(), b"").await;
    assert!(silent >= Duration::from_millis(900), "{silent:?}");
    let half_preface = held_for(&cert, ingress.tls(), b"PRI * HTTP/2.0\r\n").await;
    assert!(
        half_preface >= Duration::from_millis(900),
        "{half_preface:?}"
    );
    // The preface and SETTINGS, then nothing: no SETTINGS ACK, no PING ACK after GOAWAY.
    let deaf = held_for(&cert, ingress.tls(), PREFACE).await;
    assert!(deaf >= Duration::from_millis(900), "{deaf:?}");
}

/// Opens streams to an origin that never answers on one connection and cancels each, with
/// `padding` answered requests (to a status rule) before each: how many it cancelled before
/// the ingress said GOAWAY, at most `limit`.
async fn cancel_until_goaway(padding: usize, limit: usize) -> usize {
    let origin = RawOrigin::start(Behaviour::Silent).await;
    let cert = DevCert::make();
    let file = format!(
        "ingress:\n  - hostname: {HOST}\n    path: ^/cheap\n    service: http_status:204\n\
         {}",
        routes(&origin.url()).trim_start_matches("ingress:\n")
    );
    let ingress = cert.ingress(&file, &[]);
    let stream = cert.connect(ingress.tls(), &[b"h2"]).await;
    let (mut sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .expect("HTTP/2");
    let task = tokio::spawn(async move {
        let _ = connection.await;
    });
    let base = format!("https://{HOST}:{}", ingress.tls().port());
    let mut cancelled = 0;
    while cancelled < limit && pad_and_cancel(&mut sender, &base, padding).await {
        cancelled += 1;
    }
    if cancelled < limit {
        tokio::time::timeout(GONE_WITHIN, task)
            .await
            .expect("the connection ends after GOAWAY")
            .expect("the connection task");
    }
    assert!(
        origin.received() <= cancelled,
        "{} requests reached the origin for {cancelled} streams",
        origin.received()
    );
    cancelled
}

fn get(base: &str, path: &str) -> http::Request<Empty<Bytes>> {
    http::Request::get(format!("{base}{path}"))
        .body(Empty::new())
        .expect("a request")
}

/// `padding` answered requests on `sender`, then one the client cancels: whether the ingress
/// still took them all.
async fn pad_and_cancel(
    sender: &mut SendRequest<Empty<Bytes>>,
    base: &str,
    padding: usize,
) -> bool {
    for _ in 0..padding {
        match sender.send_request(get(base, "/cheap")).await {
            Ok(answer) => assert_eq!(answer.status(), 204),
            Err(_) => return false,
        }
    }
    if sender.ready().await.is_err() {
        return false;
    }
    // Dropped unanswered: hyper resets the stream (CANCEL).
    let sent = tokio::time::timeout(
        Duration::from_millis(5),
        sender.send_request(get(base, "/wait")),
    );
    match sent.await {
        Err(_) => true,
        Ok(Err(_)) => false,
        Ok(Ok(response)) => panic!("a silent origin answered {}", response.status()),
    }
}

#[actix_web::test]
async fn a_client_that_cancels_most_of_its_streams_is_told_goaway() {
    let cancelled = cancel_until_goaway(0, 400).await;
    assert!(
        (100..=130).contains(&cancelled),
        "GOAWAY came after {cancelled} cancelled streams"
    );
}

#[actix_web::test]
async fn a_thousand_cancelled_streams_are_told_goaway_whatever_else_was_asked() {
    let cancelled = cancel_until_goaway(2, 1200).await;
    assert!(
        (1000..=1030).contains(&cancelled),
        "GOAWAY came after {cancelled} cancelled streams, each after two answered"
    );
}

#[actix_web::test]
async fn a_client_that_takes_no_answer_data_is_closed_after_the_send_timeout() {
    let origin = Origin::start("h2");
    let cert = DevCert::make();
    let file = format!(
        "ingress:\n  - hostname: {HOST}\n    service: {}\n  - service: http_status:404\n\
         estate:\n  sendTimeout: 1s\n",
        origin.url()
    );
    let ingress = cert.ingress(&file, &[]);
    let stream = cert.connect(ingress.tls(), &[b"h2"]).await;
    // A window of nothing: the answers' heads come, their bodies never can.
    let (mut sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .initial_stream_window_size(0)
        .handshake(TokioIo::new(stream))
        .await
        .expect("HTTP/2");
    let task = tokio::spawn(async move {
        let _ = connection.await;
    });
    let base = format!("https://{HOST}:{}", ingress.tls().port());
    // An origin slower than the send timeout is not the client's stall.
    let slow = cert
        .client(ingress.tls())
        .get(format!("{base}/slow?ms=2500"))
        .send()
        .await
        .expect("a slow origin's answer");
    assert_eq!(
        (slow.status().as_u16(), slow.version()),
        (200, http::Version::HTTP_2)
    );
    let url = format!("{base}/echo");
    let mut answers = Vec::new();
    for _ in 0..3 {
        let request = http::Request::get(&url)
            .body(Empty::<Bytes>::new())
            .expect("a request");
        let response = sender.send_request(request).await.expect("a head");
        assert_eq!(response.status(), 200);
        answers.push(response);
    }
    let held = Instant::now();
    tokio::time::timeout(GONE_WITHIN, task)
        .await
        .expect("the ingress closes a connection whose client takes nothing")
        .expect("the connection task");
    assert!(
        held.elapsed() >= Duration::from_millis(900),
        "{:?}",
        held.elapsed()
    );
}
