//! HTTP/2 at the edge, strict and bounded: a `host` field naming another host than
//! `:authority` is the edge's 400, `TRACE` its 405 with `Allow`, `traceparent` and
//! `tracestate` reach the origin and come back untouched, and a connection with no open
//! stream for `estate.http2IdleTimeout` is sent GOAWAY and closed.

use crate::origins::Origin;
use crate::secure::{DevCert, HOST};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

const HSTS: &str = "max-age=31536000; includeSubDomains";

fn routes(origin: &Origin, more: &str) -> String {
    format!(
        "ingress:\n  - hostname: {HOST}\n    service: {}\n  - service: http_status:404\n{more}",
        origin.url()
    )
}

/// An HTTP/2 connection to `cert`'s ingress at `tls`, and the task driving it.
async fn connect(
    cert: &DevCert,
    tls: std::net::SocketAddr,
) -> (SendRequest<Empty<Bytes>>, JoinHandle<()>) {
    let stream = cert.connect(tls, &[b"h2"]).await;
    let (sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .expect("HTTP/2");
    let task = tokio::spawn(async move {
        let _ = connection.await;
    });
    (sender, task)
}

/// Sends `request` on `sender`: its status, headers and whole body.
async fn send(
    sender: &mut SendRequest<Empty<Bytes>>,
    request: http::Request<Empty<Bytes>>,
) -> (u16, http::HeaderMap, String) {
    let response = sender.send_request(request).await.expect("an answer");
    let (head, body) = response.into_parts();
    let body = body.collect().await.expect("a body").to_bytes();
    (
        head.status.as_u16(),
        head.headers,
        String::from_utf8_lossy(&body).into_owned(),
    )
}

#[actix_web::test]
async fn a_host_that_is_not_the_authority_and_trace_are_refused_over_http2() {
    let origin = Origin::start("h2");
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin, ""), &[]);
    let (mut sender, _task) = connect(&cert, ingress.tls()).await;
    let url = format!("https://{HOST}:{}/echo", ingress.tls().port());
    let other_host = http::Request::get(&url)
        .header("host", "other.localhost")
        .body(Empty::new())
        .expect("a request");
    let (status, headers, body) = send(&mut sender, other_host).await;
    assert_eq!((status, body.as_str()), (400, "error code: 400"));
    assert_eq!(headers["strict-transport-security"], HSTS);
    let trace = http::Request::builder()
        .method("TRACE")
        .uri(&url)
        .body(Empty::new())
        .expect("a request");
    let (status, headers, body) = send(&mut sender, trace).await;
    assert_eq!((status, body.as_str()), (405, "error code: 405"));
    assert_eq!(
        headers["allow"],
        "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    );
    assert_eq!(headers["strict-transport-security"], HSTS);
    let same_host = http::Request::get(&url)
        .header("host", HOST)
        .body(Empty::new())
        .expect("a request");
    let (status, _, _) = send(&mut sender, same_host).await;
    assert_eq!(status, 200, "the same host, the port aside");
    assert_eq!(
        origin.hits(),
        1,
        "only the accepted request reached the origin"
    );
}

#[actix_web::test]
async fn trace_context_passes_through_http2_untouched() {
    let origin = Origin::start("traced");
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin, ""), &[]);
    let (mut sender, _task) = connect(&cert, ingress.tls()).await;
    let parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let request = http::Request::get(format!("https://{HOST}:{}/trace", ingress.tls().port()))
        .header("traceparent", parent)
        .header("tracestate", "congo=t61rcWkgMzE")
        .header("tracestate", "rojo=00f067aa0ba902b7")
        .body(Empty::new())
        .expect("a request");
    let (status, headers, _) = send(&mut sender, request).await;
    assert_eq!(status, 200);
    let lines = |name: &str| -> Vec<&str> {
        headers
            .get_all(name)
            .iter()
            .map(|value| value.to_str().expect("ascii"))
            .collect()
    };
    assert_eq!(lines("traceparent"), [parent]);
    assert_eq!(
        lines("tracestate"),
        ["congo=t61rcWkgMzE", "rojo=00f067aa0ba902b7"]
    );
}

#[actix_web::test]
async fn an_idle_http2_connection_is_sent_goaway_and_closed() {
    let origin = Origin::start("h2");
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin, "estate:\n  http2IdleTimeout: 1s\n"), &[]);
    let (mut sender, task) = connect(&cert, ingress.tls()).await;
    let url = format!("https://{HOST}:{}/echo", ingress.tls().port());
    let request = http::Request::get(&url)
        .body(Empty::new())
        .expect("a request");
    assert_eq!(send(&mut sender, request).await.0, 200);
    let idle_since = Instant::now();
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("the ingress closes an idle HTTP/2 connection")
        .expect("the connection task");
    let closed_after = idle_since.elapsed();
    assert!(
        closed_after >= Duration::from_millis(900),
        "{closed_after:?}"
    );
    assert!(sender.is_closed(), "GOAWAY: no new stream on it");
}

#[actix_web::test]
async fn a_stream_longer_than_the_idle_timeout_keeps_the_connection() {
    let origin = Origin::start("h2");
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin, "estate:\n  http2IdleTimeout: 1s\n"), &[]);
    let (mut sender, task) = connect(&cert, ingress.tls()).await;
    let base = format!("https://{HOST}:{}", ingress.tls().port());
    let slow = http::Request::get(format!("{base}/slow?ms=1800"))
        .body(Empty::new())
        .expect("a request");
    assert_eq!(send(&mut sender, slow).await.0, 200);
    assert!(!task.is_finished(), "not idle while a stream was open");
    let next = http::Request::get(format!("{base}/echo"))
        .body(Empty::new())
        .expect("a request");
    assert_eq!(
        send(&mut sender, next).await.0,
        200,
        "the same connection takes a new stream"
    );
}
