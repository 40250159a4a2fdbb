//! A request that reached an origin is not sent to it again: an origin that reads a request
//! and closes, or answers something that is not HTTP, costs one send and an immediate 502
//! (even under a long connect-retry deadline, which covers only requests nothing of which was
//! sent); an idempotent request goes once to each *other* origin of its pool, a POST to none.

use crate::origins::Origin;
use crate::process::Ingress;
use crate::raw_origin::{Behaviour, RawOrigin};
use std::time::{Duration, Instant};
use testkit::raw::{Exchange, RawRequest, send};

/// Longer than any test here waits: a request that loops until the deadline fails the test.
const RETRY: &str = "10s";

fn single(service: &str) -> String {
    format!("ingress:\n  - service: {service}\nestate:\n  connectRetryDeadline: {RETRY}\n")
}

fn pool(origins: &[String]) -> String {
    format!(
        "ingress:\n  - service: {first}\nestate:\n  connectRetryDeadline: {RETRY}\n  pools:\n    - service: {first}\n      origins: [{all}]\n",
        first = origins[0],
        all = origins.join(", ")
    )
}

/// Sends `request` and checks that the answer is the edge's 502, at once.
async fn bad_gateway_at_once(ingress: &Ingress, request: &RawRequest) -> Exchange {
    let started = Instant::now();
    let exchange = send(&ingress.proxy.to_string(), request).await;
    let took = started.elapsed();
    // A HEAD answer has the 502's headers and no body.
    let body = if request.method == "HEAD" {
        ""
    } else {
        "error code: 502"
    };
    assert_eq!(
        (exchange.status, exchange.body.as_str()),
        (502, body),
        "{} {}",
        request.method,
        request.target
    );
    assert!(
        took < Duration::from_secs(3),
        "{} {} waited {took:?} for its 502",
        request.method,
        request.target
    );
    exchange
}

#[actix_web::test]
async fn an_origin_that_reads_and_closes_gets_each_request_once() {
    let origin = RawOrigin::start(Behaviour::Close).await;
    let ingress = Ingress::start(&single(&origin.url()));
    let requests = [
        RawRequest::new("GET", "/a"),
        RawRequest::new("DELETE", "/b"),
        RawRequest::new("HEAD", "/c"),
        RawRequest::new("PUT", "/d").json("{}"),
        RawRequest::new("POST", "/e").json("{}"),
    ];
    for (sent, request) in requests.iter().enumerate() {
        bad_gateway_at_once(&ingress, request).await;
        assert_eq!(origin.received(), sent + 1, "{:?}", origin.heads());
    }
    let metrics = ingress.metrics().await;
    assert!(!metrics.contains("ingress_replays_total{"), "{metrics}");
    let failures = format!(
        r#"ingress_origin_failures_total{{origin="127.0.0.1:{}",reason="closed"}} 5"#,
        origin.port
    );
    assert!(metrics.contains(&failures), "{failures} in:\n{metrics}");
}

/// Answer heads that are not HTTP/1.1 a proxy may forward.
const MALFORMED: [&str; 6] = [
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok",
    "HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 2\r\n\r\nok",
    "HTTP/1.1 200 OK\r\nContent-Length: two\r\n\r\nok",
    "HTTP/1.1 200 OK\r\nContent-Le",
    "hello there\r\n\r\n",
    "HTTP/1.1 2000 Huge\r\nContent-Length: 0\r\n\r\n",
];

#[actix_web::test]
async fn a_malformed_answer_is_a_502_at_once_and_never_sent_again() {
    for answer in MALFORMED {
        let origin = RawOrigin::start(Behaviour::Answer(answer)).await;
        let ingress = Ingress::start(&single(&origin.url()));
        for method in ["GET", "DELETE"] {
            bad_gateway_at_once(&ingress, &RawRequest::new(method, "/x")).await;
        }
        assert_eq!(origin.received(), 2, "{answer:?}: {:?}", origin.heads());
        let metrics = ingress.metrics().await;
        assert!(
            !metrics.contains("ingress_replays_total{"),
            "{answer:?}\n{metrics}"
        );
        let failures = format!(
            r#"ingress_origin_failures_total{{origin="127.0.0.1:{}",reason="malformed"}} 2"#,
            origin.port
        );
        assert!(
            metrics.contains(&failures),
            "{answer:?}: {failures} in:\n{metrics}"
        );
    }
}

#[actix_web::test]
async fn an_idempotent_request_goes_once_to_each_other_origin() {
    let (first, second) = (
        RawOrigin::start(Behaviour::Close).await,
        RawOrigin::start(Behaviour::Close).await,
    );
    let ingress = Ingress::start(&pool(&[first.url(), second.url()]));
    bad_gateway_at_once(&ingress, &RawRequest::new("GET", "/x")).await;
    assert_eq!((first.received(), second.received()), (1, 1));
    bad_gateway_at_once(&ingress, &RawRequest::new("POST", "/x").json("{}")).await;
    assert_eq!(
        first.received() + second.received(),
        3,
        "a POST is sent once"
    );
    let metrics = ingress.metrics().await;
    let replays: Vec<&str> = metrics
        .lines()
        .filter(|line| line.starts_with("ingress_replays_total{"))
        .collect();
    assert_eq!(replays.len(), 1, "{metrics}");
    assert!(replays[0].ends_with(" 1"), "one real replay: {metrics}");
}

#[actix_web::test]
async fn a_replay_is_answered_by_the_healthy_origin() {
    let broken = RawOrigin::start(Behaviour::Close).await;
    let healthy = Origin::start("healthy");
    let ingress = Ingress::start(&pool(&[broken.url(), healthy.url()]));
    let address = ingress.proxy.to_string();
    for _ in 0..4 {
        let exchange = send(&address, &RawRequest::new("GET", "/echo")).await;
        assert_eq!(exchange.status, 200, "{}", exchange.body);
        assert!(exchange.body.contains(r#""origin":"healthy""#));
    }
    assert_eq!(healthy.hits(), 4);
    assert_eq!(
        broken.received(),
        1,
        "the first request met the broken origin, which then went last"
    );
    let metrics = ingress.metrics().await;
    let replayed = format!(
        r#"ingress_replays_total{{origin="127.0.0.1:{}"}} 1"#,
        broken.port
    );
    assert!(metrics.contains(&replayed), "{replayed} in:\n{metrics}");
}

/// Answered with keep-alive; the same connection's next request is read and dropped.
const KEPT_THEN_CLOSED: &str = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst";

#[actix_web::test]
async fn a_kept_connection_closed_under_a_get_is_followed_by_one_new_connection() {
    let origin = RawOrigin::start(Behaviour::FirstOnly(KEPT_THEN_CLOSED)).await;
    let ingress = Ingress::start(&single(&origin.url()));
    let client = crate::client();
    let first = client
        .get(ingress.url("/one"))
        .send()
        .await
        .expect("answered");
    assert_eq!(first.text().await.expect("body"), "first");
    let second = client
        .get(ingress.url("/two"))
        .send()
        .await
        .expect("answered");
    assert_eq!(second.status().as_u16(), 200);
    assert_eq!(second.text().await.expect("body"), "first");
    let paths: Vec<String> = origin
        .heads()
        .iter()
        .map(|head| head.lines().next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        paths,
        [
            "GET /one HTTP/1.1",
            "GET /two HTTP/1.1",
            "GET /two HTTP/1.1"
        ],
        "once on the kept connection, once on a new one"
    );
    let metrics = ingress.metrics().await;
    let replayed = format!(
        r#"ingress_replays_total{{origin="127.0.0.1:{}"}} 1"#,
        origin.port
    );
    assert!(metrics.contains(&replayed), "{replayed} in:\n{metrics}");
    let origin = RawOrigin::start(Behaviour::FirstOnly(KEPT_THEN_CLOSED)).await;
    let ingress = Ingress::start(&single(&origin.url()));
    let first = client
        .get(ingress.url("/one"))
        .send()
        .await
        .expect("answered");
    assert_eq!(first.text().await.expect("body"), "first");
    let post = client
        .post(ingress.url("/two"))
        .body("x")
        .send()
        .await
        .expect("answered");
    assert_eq!(post.status().as_u16(), 502);
    assert_eq!(post.text().await.expect("body"), "error code: 502");
    assert_eq!(origin.received(), 2, "a POST is never sent again");
}

#[actix_web::test]
async fn the_keep_alive_race_is_retried_once_on_a_new_connection_and_never_again() {
    let origin = RawOrigin::start(Behaviour::OnceOnly(KEPT_THEN_CLOSED)).await;
    let ingress = Ingress::start(&single(&origin.url()));
    let client = crate::client();
    let first = client
        .get(ingress.url("/one"))
        .send()
        .await
        .expect("answered");
    assert_eq!(first.text().await.expect("body"), "first");
    let second = client
        .get(ingress.url("/two"))
        .send()
        .await
        .expect("answered");
    assert_eq!(second.status().as_u16(), 502);
    assert_eq!(second.text().await.expect("body"), "error code: 502");
    let paths: Vec<String> = origin
        .heads()
        .iter()
        .map(|head| head.lines().next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        paths,
        [
            "GET /one HTTP/1.1",
            "GET /two HTTP/1.1",
            "GET /two HTTP/1.1"
        ],
        "the kept connection, one new connection, then the edge's 502"
    );
    let metrics = ingress.metrics().await;
    let replayed = format!(
        r#"ingress_replays_total{{origin="127.0.0.1:{}"}} 1"#,
        origin.port
    );
    assert!(metrics.contains(&replayed), "{replayed} in:\n{metrics}");
}
