//! The send timeout over HTTP/1.1 (`estate.sendTimeout`): a client that stops reading its
//! answer, so the edge's writes block, is dropped once they have been blocked that long, on
//! the plain port and under TLS; one that reads slowly but steadily gets its whole answer.

use crate::process::Ingress;
use crate::raw_origin::{Behaviour, RawOrigin};
use crate::secure::{DevCert, HOST};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// A body larger than every socket buffer between the origin and the client.
const BODY_BYTES: usize = 24 * 1024 * 1024;
/// How long the test stops reading: the send timeout (1 s) and a margin.
const NOT_READING: Duration = Duration::from_secs(4);

fn big_answer() -> &'static str {
    let answer = format!(
        "HTTP/1.1 200 OK\r\ncontent-length: {BODY_BYTES}\r\n\r\n{}",
        "x".repeat(BODY_BYTES)
    );
    Box::leak(answer.into_boxed_str())
}

fn file(origin: &RawOrigin) -> String {
    format!(
        "ingress:\n  - service: {}\nestate:\n  sendTimeout: 1s\n",
        origin.url()
    )
}

/// A connection with a small receive buffer, so the edge's writes block soon.
async fn small_window(address: std::net::SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("a socket");
    socket.set_recv_buffer_size(4096).expect("a small buffer");
    socket.connect(address).await.expect("the ingress accepts")
}

/// Asks for the big answer on `stream`, stops reading for [`NOT_READING`], then reads what
/// is left: how many bytes came before the ingress closed the connection.
async fn read_after_a_pause(mut stream: impl AsyncRead + AsyncWrite + Unpin) -> usize {
    let request = format!("GET /big HTTP/1.1\r\nHost: {HOST}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("written");
    tokio::time::sleep(NOT_READING).await;
    let mut answer = Vec::new();
    // Closed by the ingress: the bytes already in flight, then the end (or a reset).
    let _ = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut answer))
        .await
        .expect("the ingress closed the connection");
    answer.len()
}

#[actix_web::test]
async fn a_client_that_stops_reading_is_dropped_after_the_send_timeout() {
    let origin = RawOrigin::start(Behaviour::Answer(big_answer())).await;
    let ingress = Ingress::start(&file(&origin));
    let plain = read_after_a_pause(small_window(ingress.proxy).await).await;
    assert!(plain < BODY_BYTES, "the whole answer came: {plain} bytes");
}

#[actix_web::test]
async fn a_tls_client_that_stops_reading_is_dropped_after_the_send_timeout() {
    let origin = RawOrigin::start(Behaviour::Answer(big_answer())).await;
    let cert = DevCert::make();
    let ingress = cert.ingress(&file(&origin), &[]);
    let secure = read_after_a_pause(cert.connect(ingress.tls(), &[b"http/1.1"]).await).await;
    assert!(secure < BODY_BYTES, "the whole answer came: {secure} bytes");
}

#[actix_web::test]
async fn a_client_that_reads_slowly_gets_the_whole_answer() {
    let origin = RawOrigin::start(Behaviour::Answer(big_answer())).await;
    let ingress = Ingress::start(&file(&origin));
    let mut stream = small_window(ingress.proxy).await;
    let request = format!("GET /big HTTP/1.1\r\nHost: {HOST}\r\nconnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("written");
    // 24 MiB in 64 KiB reads, a pause shorter than the send timeout after each megabyte.
    let (mut total, mut buffer, mut paused_at) = (0, vec![0u8; 64 * 1024], 0);
    loop {
        let read = stream.read(&mut buffer).await.expect("the answer streams");
        if read == 0 {
            break;
        }
        total += read;
        if total - paused_at >= 1024 * 1024 {
            paused_at = total;
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }
    assert!(
        total > BODY_BYTES,
        "{total} bytes: the head and the whole body"
    );
}
