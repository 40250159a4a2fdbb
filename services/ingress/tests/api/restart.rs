//! A restart of the only replica: without a retry deadline, the window of 502s a client
//! sees (measured here, printed, not asserted as a time); with one, requests wait for the new
//! process instead and none fails.

use crate::origins::Origin;
use crate::process::Ingress;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long the replica is away: a process start, shortened.
const DOWN_FOR: Duration = Duration::from_millis(400);
/// Time between probes.
const PROBE_EVERY: Duration = Duration::from_millis(10);

/// One probe: when it was sent (from the kill), its status and who answered.
struct Probe {
    at: Duration,
    took: Duration,
    status: u16,
    answer: String,
}

/// Probes `GET /echo` until `stop`, for at most 15 s.
async fn probe_until(url: String, zero: Instant, stop: Arc<AtomicBool>) -> Vec<Probe> {
    let client = crate::client();
    let mut probes = Vec::new();
    let limit = Instant::now() + Duration::from_secs(15);
    while !stop.load(Ordering::Relaxed) && Instant::now() < limit {
        let sent = Instant::now();
        let response = client
            .get(&url)
            .send()
            .await
            .expect("the ingress itself is up");
        let status = response.status().as_u16();
        let body = response.text().await.expect("a body");
        let answer = if status == 200 {
            let seen: serde_json::Value = serde_json::from_str(&body).expect("the echo");
            seen["origin"].as_str().expect("a name").to_owned()
        } else {
            body
        };
        probes.push(Probe {
            at: sent.saturating_duration_since(zero),
            took: sent.elapsed(),
            status,
            answer,
        });
        tokio::time::sleep(PROBE_EVERY).await;
    }
    probes
}

/// Kills the only replica, restarts it on its port after [`DOWN_FOR`], and returns the
/// probes taken across, with the time of the kill as zero.
async fn restart_under_probes(retry: &str) -> (Vec<Probe>, Duration) {
    let first = Origin::start("before");
    let port = first.port;
    let ingress = Ingress::start(&format!(
        "ingress:\n  - service: http://127.0.0.1:{port}\nestate:\n  connectRetryDeadline: {retry}\n"
    ));
    let zero = Instant::now() + Duration::from_millis(300);
    let stop = Arc::new(AtomicBool::new(false));
    let probes = tokio::spawn(probe_until(ingress.url("/echo"), zero, stop.clone()));
    tokio::time::sleep_until(zero.into()).await;
    first.stop(false).await;
    tokio::time::sleep(DOWN_FOR).await;
    let second = Origin::start_on("after", port);
    let restarted = zero.elapsed();
    let deadline = Instant::now() + Duration::from_secs(10);
    while second.hits() < 5 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.store(true, Ordering::Relaxed);
    (probes.await.expect("the prober ends"), restarted)
}

#[actix_web::test]
async fn a_single_replica_restart_is_a_measured_502_window() {
    let (probes, restarted) = restart_under_probes("0s").await;
    let failed: Vec<&Probe> = probes.iter().filter(|probe| probe.status != 200).collect();
    assert!(!failed.is_empty(), "a lone replica's restart shows 502s");
    for probe in &failed {
        assert_eq!(
            (probe.status, probe.answer.as_str()),
            (502, "error code: 502")
        );
    }
    let (first, last) = (failed[0].at, failed[failed.len() - 1].at);
    let recovered = probes
        .iter()
        .find(|probe| probe.answer == "after")
        .expect("the new replica answers")
        .at;
    assert!(
        probes
            .iter()
            .all(|p| p.at < first || p.at > last || p.status == 502)
    );
    println!(
        "single-replica restart, no retry: killed at 0 ms, restarted at {} ms; {} probes \
         (every {} ms) answered 502 'error code: 502' from {} ms to {} ms (window {} ms); \
         first answer from the new replica at {} ms",
        restarted.as_millis(),
        failed.len(),
        PROBE_EVERY.as_millis(),
        first.as_millis(),
        last.as_millis(),
        (last - first).as_millis(),
        recovered.as_millis(),
    );
}

#[actix_web::test]
async fn with_a_retry_deadline_requests_wait_for_the_new_replica() {
    let (probes, restarted) = restart_under_probes("5s").await;
    let failed = probes.iter().filter(|probe| probe.status != 200).count();
    assert_eq!(failed, 0, "no 502 while the deadline covers the restart");
    let slowest = probes.iter().map(|probe| probe.took).max().expect("probes");
    let after = probes
        .iter()
        .filter(|probe| probe.answer == "after")
        .count();
    assert!(after > 0, "the new replica answers");
    println!(
        "single-replica restart, connectRetryDeadline 5s: killed at 0 ms, restarted at {} ms; \
         {} probes, 0 failed; the longest waited {} ms for the new replica",
        restarted.as_millis(),
        probes.len(),
        slowest.as_millis(),
    );
}
