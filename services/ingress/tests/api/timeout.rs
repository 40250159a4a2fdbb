//! The origin answer deadline (`originRequest.responseTimeout`): an origin that never
//! answers is the edge's 504 once the request has been sent whole, not sent again, and its
//! connection closed; a slow answer within the deadline, and a slow upload (the client's
//! time), are not cut; each rule has its own deadline.

use crate::origins::Origin;
use crate::process::{Ingress, run};
use crate::raw_origin::{Behaviour, RawOrigin};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use testkit::raw::{RawRequest, send};

#[actix_web::test]
async fn an_origin_that_never_answers_is_the_edge_504() {
    let origin = RawOrigin::start(Behaviour::Silent).await;
    let ingress = Ingress::start(&format!(
        "ingress:\n  - service: {}\n    originRequest:\n      responseTimeout: 300ms\nestate:\n  connectRetryDeadline: 10s\n",
        origin.url()
    ));
    let started = Instant::now();
    let exchange = send(&ingress.proxy.to_string(), &RawRequest::new("GET", "/x")).await;
    let took = started.elapsed();
    assert_eq!(
        (exchange.status, exchange.body.as_str()),
        (504, "error code: 504")
    );
    // `connection: close` answers the raw request's own.
    let names: BTreeSet<&str> = exchange
        .headers
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(
        names,
        BTreeSet::from([
            "connection",
            "content-length",
            "content-type",
            "date",
            "x-request-id"
        ])
    );
    assert_eq!(
        exchange.header("content-type"),
        Some("text/plain; charset=UTF-8")
    );
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(3),
        "{took:?}"
    );
    assert_eq!(
        origin.received(),
        1,
        "a GET that timed out is not sent again"
    );
    let limit = Instant::now() + Duration::from_secs(5);
    while origin.closed_by_peer() == 0 && Instant::now() < limit {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        origin.closed_by_peer(),
        1,
        "the edge let go of the connection"
    );
    let metrics = ingress.metrics().await;
    let failed = format!(
        r#"ingress_origin_failures_total{{origin="127.0.0.1:{}",reason="timeout"}} 1"#,
        origin.port
    );
    assert!(metrics.contains(&failed), "{failed} in:\n{metrics}");
    assert!(
        metrics.contains(r#"ingress_requests_total{rule="0",code="504"} 1"#),
        "{metrics}"
    );
}

#[actix_web::test]
async fn each_rule_has_its_own_deadline_and_an_answer_in_time_passes() {
    let (silent, slow) = (
        RawOrigin::start(Behaviour::Silent).await,
        Origin::start("slow"),
    );
    let ingress = Ingress::start(&format!(
        "originRequest:\n  responseTimeout: 5s\ningress:\n  - hostname: silent.test\n    service: {}\n    originRequest:\n      responseTimeout: 200ms\n  - service: {}\n",
        silent.url(),
        slow.url()
    ));
    let client = crate::client();
    let cut = client
        .get(ingress.url("/x"))
        .header("host", "silent.test")
        .send()
        .await
        .expect("answered");
    assert_eq!(cut.status().as_u16(), 504);
    let in_time = client
        .get(ingress.url("/slow?ms=600"))
        .send()
        .await
        .expect("answered");
    assert_eq!(in_time.status().as_u16(), 200);
    assert_eq!(in_time.text().await.expect("body"), "slow slept 600 ms");
}

#[actix_web::test]
async fn a_slow_upload_is_the_clients_time_not_the_origins() {
    let origin = Origin::start("upload");
    let ingress = Ingress::start(&format!(
        "ingress:\n  - service: {}\n    originRequest:\n      responseTimeout: 300ms\n",
        origin.url()
    ));
    let body = futures_util::stream::unfold(0, |sent| async move {
        if sent == 4 {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        Some((Ok::<_, std::io::Error>(vec![b'a'; 100]), sent + 1))
    });
    let response = crate::client()
        .post(ingress.url("/upload"))
        .body(reqwest::Body::wrap_stream(body))
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.text().await.expect("body"), "received 400 bytes");
}

#[test]
fn the_deadline_is_a_duration_of_more_than_zero() {
    for (value, message) in [
        (
            "0s",
            "Rule #1 originRequest.responseTimeout: must be more than 0s",
        ),
        (
            "soon",
            "Rule #1 originRequest.responseTimeout is not a duration: expected number at 0 (write it like \"30s\", \"1m30s\" or \"500ms\")",
        ),
    ] {
        let yaml = format!(
            "ingress:\n  - service: http://127.0.0.1:1\n    originRequest:\n      responseTimeout: {value}\n"
        );
        let out = run(&["validate"], &yaml);
        assert_eq!(out.code, 1, "{value}");
        assert_eq!(out.stderr, format!("Validation failed: {message}\n"));
    }
}
