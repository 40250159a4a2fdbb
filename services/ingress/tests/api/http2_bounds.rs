//! An HTTP/2 client cannot hold the edge or make it work for nothing: a connection that
//! never sends its preface, or never answers the GOAWAY's PING, is dropped a few seconds
//! after `estate.http2IdleTimeout`; a client that cancels most of the streams it opens (each
//! of which may have cost an origin connection) is told GOAWAY after a hundred, and any client
//! after a thousand, however many cheap requests it sends between them; one that
//! never opens its flow-control window for a stream, so its answer cannot be sent, is closed
//! after `estate.sendTimeout`, however busy its other streams are; one that ignores a GOAWAY
//! and goes on opening streams is dropped.

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
pub async fn pad_and_cancel(
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
        "ingress:\n  - hostname: {HOST}\n    path: ^/cheap\n    service: http_status:204\n\
         \x20 - hostname: {HOST}\n    service: {}\n  - service: http_status:404\n\
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
    // A cheap stream answered every 200 ms does not keep the stalled ones alive.
    while held.elapsed() < GONE_WITHIN {
        match sender.send_request(get(&base, "/cheap")).await {
            Ok(answer) => assert_eq!(answer.status(), 204),
            Err(_) => break,
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::timeout(Duration::from_secs(2), task)
        .await
        .expect("the ingress closes a connection whose client takes nothing")
        .expect("the connection task");
    let closed_after = held.elapsed();
    assert!(
        (Duration::from_millis(900)..GONE_WITHIN).contains(&closed_after),
        "{closed_after:?}"
    );
}

/// One frame: its length, type, flags, stream and payload.
fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let length = u32::try_from(payload.len())
        .expect("a short payload")
        .to_be_bytes();
    let mut bytes = vec![length[1], length[2], length[3], kind, flags];
    bytes.extend(stream.to_be_bytes());
    bytes.extend(payload);
    bytes
}

#[actix_web::test]
async fn a_client_that_ignores_goaway_and_goes_on_cancelling_is_dropped() {
    let origin = RawOrigin::start(Behaviour::Silent).await;
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin.url()), &[]);
    let stream = cert.connect(ingress.tls(), &[b"h2"]).await;
    let (mut reader, mut writer) = tokio::io::split(stream);
    // Frames from the ingress are read and ignored: no SETTINGS or PING is ever acknowledged.
    let closed = tokio::spawn(async move {
        let mut sink = vec![0u8; 16 * 1024];
        while matches!(reader.read(&mut sink).await, Ok(read) if read > 0) {}
    });
    writer.write_all(PREFACE).await.expect("the preface");
    // GET https://api.localhost/ (HPACK: three indexed fields, `:authority` without indexing).
    let mut block = vec![0x82, 0x87, 0x84, 0x01, 0x0d];
    block.extend(HOST.as_bytes());
    let mut sent = 0_u32;
    while sent < 3000 && !closed.is_finished() {
        let id = 2 * sent + 1;
        let headers = frame(0x1, 0x5, id, &block);
        if writer.write_all(&headers).await.is_err() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(3)).await;
        // RST_STREAM, CANCEL.
        if writer
            .write_all(&frame(0x3, 0, id, &8_u32.to_be_bytes()))
            .await
            .is_err()
        {
            break;
        }
        sent += 1;
    }
    tokio::time::timeout(GONE_WITHIN, closed)
        .await
        .expect("the ingress drops the connection")
        .expect("the reading task");
    assert!(
        sent < 400,
        "{sent} streams opened and cancelled before the connection went"
    );
}
