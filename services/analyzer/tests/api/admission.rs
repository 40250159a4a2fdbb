//! Admission control: off by default; on, the fifth concurrent analysis beyond two running and
//! two queued is refused at once, and the queued ones complete.

use crate::helpers::{TestApp, header, status_and_text};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A batch that keeps the analyzer busy for a while (a large file, every analysis type).
fn slow_batch() -> Value {
    let line = "    logger.info(\"processing order {}\", order.id()); // step\n";
    json!({ "files": [{ "path": "src/Orders.java", "content": line.repeat(30_000) }] })
}

async fn gauge(app: &TestApp, name: &str) -> u64 {
    let metrics = app
        .get("/metrics")
        .await
        .text()
        .await
        .expect("a metrics page");
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {metrics}"))
}

async fn wait_for(app: &TestApp, inflight: u64, queued: u64) {
    let started = Instant::now();
    while (
        gauge(app, "admission_inflight").await,
        gauge(app, "admission_queued").await,
    ) != (inflight, queued)
    {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "queue never reached {inflight}+{queued}"
        );
        actix_web::rt::time::sleep(Duration::from_millis(5)).await;
    }
}

#[actix_web::test]
async fn beyond_two_running_and_two_queued_the_fifth_is_refused() {
    let settings = [
        ("ANALYZE_MAX_INFLIGHT", "2"),
        ("ANALYZE_MAX_QUEUE", "2"),
        ("ANALYZE_QUEUE_TIMEOUT_MS", "60000"),
    ];
    let app = Arc::new(TestApp::spawn(&settings).await);
    let batch = slow_batch();
    let mut running = Vec::new();
    for expected_queued in [0, 0, 1, 2] {
        let (app2, batch) = (app.clone(), batch.clone());
        running.push(actix_web::rt::spawn(async move {
            app2.post("/analyze", &batch).await.status().as_u16()
        }));
        let inflight = (running.len() as u64).min(2);
        wait_for(&app, inflight, expected_queued).await;
    }
    let started = Instant::now();
    let fifth = app.post("/analyze", &batch).await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "refused at once, not after waiting"
    );
    assert_eq!(header(&fifth, "retry-after").as_deref(), Some("60"));
    let body = r#"{"error":"overloaded","message":"too many analyses in progress; retry later","retry_after_ms":60000}"#;
    assert_eq!(status_and_text(fifth).await, (429, body.to_owned()));
    for request in running {
        assert_eq!(request.await.unwrap(), 200, "queued analyses complete");
    }
}

#[actix_web::test]
async fn unset_means_no_queueing() {
    let app = Arc::new(TestApp::spawn(&[]).await);
    let body = json!({ "files": [{ "path": "a.py", "content": "print('x')\n".repeat(2000) }] });
    let requests: Vec<_> = (0..5)
        .map(|_| {
            let (app, body) = (app.clone(), body.clone());
            actix_web::rt::spawn(async move { app.post("/analyze", &body).await.status().as_u16() })
        })
        .collect();
    for request in requests {
        assert_eq!(request.await.unwrap(), 200);
    }
    assert_eq!(gauge(&app, "admission_queued").await, 0);
}
