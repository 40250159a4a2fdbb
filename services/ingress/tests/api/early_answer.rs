//! An origin that answers an upload before reading its body: the upload still holds the
//! origin's connection, so once the answer has ended its silence is timed again
//! (`estate.requestBodyTimeout`), and over HTTP/2 its stream stays open and in its client's
//! share until the upload ends: a client cannot hold origin connections past its share by
//! uploads it never finishes, and a steady upload is not taken for an idle connection.

use crate::process::Ingress;
use crate::raw_origin::{Behaviour, RawOrigin};
use crate::secure::{DevCert, HOST, h2};
use bytes::Bytes;
use futures_util::Stream;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper::client::conn::http2::SendRequest;
use std::pin::Pin;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

const EARLY: &str = "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nearly";
const WITHIN: Duration = Duration::from_secs(10);

type Frames = mpsc::Sender<Result<Frame<Bytes>, std::io::Error>>;

fn file(origin: &RawOrigin, estate: &str) -> String {
    format!(
        "ingress:\n  - hostname: {HOST}\n    service: {}\n  - service: http_status:404\n\
         estate:\n{estate}",
        origin.url()
    )
}

/// Waits until `count` of the origin's connections were closed by the ingress.
async fn closed_by_the_ingress(origin: &RawOrigin, count: usize) {
    let waited = tokio::time::timeout(WITHIN, async {
        while origin.closed_by_peer() < count {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    waited.await.unwrap_or_else(|_| {
        panic!(
            "{} of {count} origin connections closed",
            origin.closed_by_peer()
        )
    });
}

#[actix_web::test]
async fn an_upload_silent_after_an_early_answer_is_cut_after_the_body_timeout() {
    let origin = RawOrigin::start(Behaviour::Early(EARLY)).await;
    let ingress = Ingress::start(&file(&origin, "  requestBodyTimeout: 1s\n"));
    let mut stream = tokio::net::TcpStream::connect(ingress.proxy)
        .await
        .expect("connects");
    let head = format!("POST /up HTTP/1.1\r\nHost: {HOST}\r\ncontent-length: 1000000\r\n\r\n");
    stream.write_all(head.as_bytes()).await.expect("head");
    stream.write_all(b"0123456789").await.expect("a start");
    let mut answer = Vec::new();
    while !answer.ends_with(b"early") {
        let mut buffer = [0u8; 1024];
        let read = tokio::time::timeout(WITHIN, stream.read(&mut buffer))
            .await
            .expect("the early answer")
            .expect("read");
        assert!(read > 0, "closed before the answer");
        answer.extend_from_slice(&buffer[..read]);
    }
    closed_by_the_ingress(&origin, 1).await;
}

/// A request body the test sends frame by frame, open until its sender is dropped.
type Upload = StreamBody<Pin<Box<dyn Stream<Item = Result<Frame<Bytes>, std::io::Error>> + Send>>>;

fn upload() -> (Frames, Upload) {
    let (frames, receiver) = mpsc::channel(16);
    let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
        let frame = receiver.recv().await?;
        Some((frame, receiver))
    });
    (frames, StreamBody::new(Box::pin(stream)))
}

/// `POST /up` on `sender` with a body that has sent "start" and stays open until the returned
/// frames are dropped: the answer's status and body.
async fn post_open(sender: &SendRequest<Upload>, port: u16) -> (Frames, u16, String) {
    let (frames, body) = upload();
    frames
        .send(Ok(Frame::data(Bytes::from_static(b"start"))))
        .await
        .expect("queued");
    let (status, text) = ask(sender, port, "/up", body).await;
    (frames, status, text)
}

/// One request on `sender`: its status and body.
async fn ask(sender: &SendRequest<Upload>, port: u16, path: &str, body: Upload) -> (u16, String) {
    let request = http::Request::post(format!("https://{HOST}:{port}{path}"))
        .body(body)
        .expect("a request");
    let mut sender = sender.clone();
    let answered = tokio::time::timeout(WITHIN, async move {
        let response = sender.send_request(request).await.expect("answered");
        let status = response.status().as_u16();
        let text = response
            .into_body()
            .collect()
            .await
            .expect("a body")
            .to_bytes();
        (status, String::from_utf8_lossy(&text).into_owned())
    });
    answered.await.expect("in time")
}

fn empty() -> Upload {
    let (_, body) = upload();
    body
}

#[actix_web::test]
async fn uploads_answered_early_keep_their_streams_in_the_clients_share_until_they_end() {
    let origin = RawOrigin::start(Behaviour::Early(EARLY)).await;
    let cert = DevCert::make();
    let estate = "  maxStreamsPerClient: 2\n  requestBodyTimeout: 4s\n";
    let ingress = cert.ingress(&file(&origin, estate), &[]);
    let port = ingress.tls().port();
    let sender = h2::<Upload>(&cert, ingress.tls()).await;
    let (first, status, text) = post_open(&sender, port).await;
    assert_eq!((status, text.as_str()), (200, "early"));
    let (second, status, text) = post_open(&sender, port).await;
    assert_eq!((status, text.as_str()), (200, "early"));
    // Both answers have ended; both uploads still hold an origin connection each.
    let other = h2::<Upload>(&cert, ingress.tls()).await;
    let (status, text) = ask(&other, port, "/x", empty()).await;
    assert_eq!((status, text.as_str()), (429, "error code: 429"));
    // Silent for the body timeout once answered: cut, their places back.
    closed_by_the_ingress(&origin, 2).await;
    let (status, _) = ask(&other, port, "/x", empty()).await;
    assert_eq!(status, 200);
    drop((first, second));
}

#[actix_web::test]
async fn a_steady_upload_answered_early_is_no_idle_connection() {
    let origin = RawOrigin::start(Behaviour::Early(EARLY)).await;
    let cert = DevCert::make();
    let estate = "  http2IdleTimeout: 2s\n  requestBodyTimeout: 2s\n";
    let ingress = cert.ingress(&file(&origin, estate), &[]);
    let port = ingress.tls().port();
    let sender = h2::<Upload>(&cert, ingress.tls()).await;
    let (frames, status, _) = post_open(&sender, port).await;
    assert_eq!(status, 200);
    // Two idle timeouts of a byte every 300 ms after the answer ended.
    for _ in 0..14 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        frames
            .send(Ok(Frame::data(Bytes::from_static(b"x"))))
            .await
            .expect("the upload goes on");
    }
    drop(frames);
    let (status, _) = ask(&sender, port, "/after", empty()).await;
    assert_eq!(
        status, 200,
        "the connection was told GOAWAY during the upload"
    );
    assert_eq!(origin.closed_by_peer(), 0, "the steady upload was cut");
}
