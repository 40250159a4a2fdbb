//! A client's HTTP/2 streams are bounded over all its connections: past its share of streams
//! in flight (`estate.maxStreamsPerClient`), a stream is the edge's `429`, on whichever
//! connection it comes, until one of the others has ended; past its budget of cancelled
//! streams (`estate.cancelledStreamsPerClient`), a new connection is told GOAWAY at its first
//! cancel, so reconnecting does not start the count again.

use crate::http2_bounds::pad_and_cancel;
use crate::origins::Origin;
use crate::raw_origin::{Behaviour, RawOrigin};
use crate::secure::{DevCert, HOST, h2};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::client::conn::http2::SendRequest;
use std::time::Duration;

const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// `GET path` on `sender`: the status, the HSTS value and the body.
async fn get(sender: &SendRequest<Empty<Bytes>>, port: u16, path: &str) -> (u16, String, String) {
    let request = http::Request::get(format!("https://{HOST}:{port}{path}"))
        .body(Empty::new())
        .expect("a request");
    let mut sender = sender.clone();
    let answer = tokio::time::timeout(ANSWER_WITHIN, async move {
        let response = sender.send_request(request).await.expect("answered");
        let status = response.status().as_u16();
        let hsts = response
            .headers()
            .get("strict-transport-security")
            .map(|value| value.to_str().expect("text").to_owned())
            .unwrap_or_default();
        let body = response.into_body().collect().await.expect("a body");
        (
            status,
            hsts,
            String::from_utf8_lossy(&body.to_bytes()).into_owned(),
        )
    });
    answer.await.expect("in time")
}

#[actix_web::test]
async fn a_client_past_its_streams_in_flight_is_answered_429_until_one_ends() {
    let origin = Origin::start("streams");
    let cert = DevCert::make();
    let file = format!(
        "ingress:\n  - hostname: {HOST}\n    service: {}\n  - service: http_status:404\n\
         estate:\n  maxStreamsPerClient: 2\n",
        origin.url()
    );
    let ingress = cert.ingress(&file, &[]);
    let port = ingress.tls().port();
    let (first, second) = (
        h2::<Empty<Bytes>>(&cert, ingress.tls()).await,
        h2::<Empty<Bytes>>(&cert, ingress.tls()).await,
    );
    let slow = |sender: &SendRequest<Empty<Bytes>>| {
        let sender = sender.clone();
        tokio::spawn(async move { get(&sender, port, "/slow?ms=5000").await })
    };
    let held = [slow(&first), slow(&first)];
    tokio::time::sleep(Duration::from_millis(500)).await;
    for sender in [&second, &first] {
        let (status, hsts, body) = get(sender, port, "/echo").await;
        assert_eq!(status, 429, "{body}");
        assert_eq!(body, "error code: 429");
        assert_eq!(hsts, "max-age=31536000; includeSubDomains");
    }
    for answer in held {
        let (status, _, body) = answer.await.expect("the slow streams");
        assert_eq!((status, body.as_str()), (200, "streams slept 5000 ms"));
    }
    let (status, _, _) = get(&second, port, "/echo").await;
    assert_eq!(status, 200, "a place came back once a stream ended");
    let metrics = ingress.metrics().await;
    assert!(
        metrics.contains(r#"ingress_client_errors_total{reason="streams"} 2"#),
        "{metrics}"
    );
}

#[actix_web::test]
async fn a_client_reconnecting_does_not_start_its_cancel_count_again() {
    let origin = RawOrigin::start(Behaviour::Silent).await;
    let cert = DevCert::make();
    let file = format!(
        "ingress:\n  - hostname: {HOST}\n    path: ^/cheap\n    service: http_status:204\n  \
         - hostname: {HOST}\n    service: {}\n  - service: http_status:404\n\
         estate:\n  cancelledStreamsPerClient: 30\n",
        origin.url()
    );
    let ingress = cert.ingress(&file, &[]);
    let port = ingress.tls().port();
    let base = format!("https://{HOST}:{port}");
    let started = std::time::Instant::now();
    let mut cancelled = Vec::new();
    for _ in 0..3 {
        // Ten cancels padded with three cheap answers each: far below one connection's own
        // bound, so only the budget over connections can stop them.
        let mut sender = h2::<Empty<Bytes>>(&cert, ingress.tls()).await;
        let mut count = 0;
        while count < 10 && pad_and_cancel(&mut sender, &base, 3).await {
            count += 1;
        }
        cancelled.push(count);
    }
    assert_eq!(cancelled, [10, 10, 10]);
    // What refilled meanwhile (one cancel every 2 s) and one more put the client in debt:
    // from then on a fresh connection's streams are the edge's 429, and a burst of cancelled
    // streams reaches no origin.
    // Streams cancelled before they were even sent spent nothing: what reached the origin did.
    let unspent = 30usize.saturating_sub(origin.received());
    let refilled = usize::try_from(started.elapsed().as_secs() / 2).unwrap_or(usize::MAX);
    let mut extra = 0;
    let fresh = loop {
        let fresh = h2::<Empty<Bytes>>(&cert, ingress.tls()).await;
        let (status, _, body) = get(&fresh, port, "/cheap").await;
        if status == 429 {
            assert_eq!(body, "error code: 429");
            break fresh;
        }
        assert!(
            extra <= unspent + refilled + 2,
            "{extra} more cancels allowed"
        );
        // Long enough to reach the silent origin, then cancelled; or, once the last cancel has
        // been counted meanwhile, the edge's 429.
        let wait = tokio::time::timeout(Duration::from_millis(200), get(&fresh, port, "/wait"));
        if let Ok((status, _, _)) = wait.await {
            assert_eq!(status, 429, "a silent origin answered");
        }
        extra += 1;
    };
    let request = http::Request::get(format!("{base}/cheap"))
        .body(Empty::new())
        .expect("a request");
    let refused = fresh.clone().send_request(request).await.expect("answered");
    let wait: u64 = refused.headers()["retry-after"]
        .to_str()
        .expect("text")
        .parse()
        .expect("whole seconds");
    assert!((1..=60).contains(&wait), "retry-after: {wait}");
    let reached = origin.received();
    let burst: Vec<_> = (0..20)
        .map(|_| {
            let sender = fresh.clone();
            tokio::spawn(async move {
                let _ =
                    tokio::time::timeout(Duration::from_millis(20), get(&sender, port, "/wait"))
                        .await;
            })
        })
        .collect();
    for cancel in burst {
        cancel.await.expect("a cancelled stream");
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        origin.received(),
        reached,
        "a stream in debt reached the origin"
    );
    let metrics = ingress.metrics().await;
    assert!(
        metrics.contains(r#"ingress_client_errors_total{reason="cancels"}"#),
        "{metrics}"
    );
}
