//! The limiter where a client meets it: the reference run's 900-request burst, the switch, the
//! headers, the capacity promise to a scan's fan-out, and the counters on /metrics.

use crate::helpers::{TestApp, header, status_and_text};
use std::collections::BTreeMap;
use std::time::Duration;

const MANDATORY: &str = r#"{"error":"rule.ruleId is mandatory"}"#;

async fn burst(app: &TestApp, count: usize) -> BTreeMap<u16, usize> {
    let mut statuses = BTreeMap::new();
    for _ in 0..count {
        let response = app.post_raw("/rules/validate", "{}").await;
        *statuses.entry(response.status().as_u16()).or_default() += 1;
    }
    statuses
}

#[actix_web::test]
async fn a_burst_of_900_validations_meets_the_write_budget() {
    let app = TestApp::spawn(&[]).await;
    let first = app.post_raw("/rules/validate", "{}").await;
    assert_eq!(
        header(&first, "x-ratelimit-group").as_deref(),
        Some("write")
    );
    assert_eq!(header(&first, "x-ratelimit-limit").as_deref(), Some("60"));
    assert_eq!(
        header(&first, "x-ratelimit-remaining").as_deref(),
        Some("59")
    );
    assert_eq!(status_and_text(first).await, (400, MANDATORY.to_owned()));

    let statuses = burst(&app, 899).await;
    assert_eq!(statuses, BTreeMap::from([(400, 59), (429, 840)]));

    let refused = app.post_raw("/rules/validate", "{}").await;
    assert_eq!(header(&refused, "retry-after").as_deref(), Some("1"));
    assert_eq!(
        header(&refused, "x-ratelimit-group").as_deref(),
        Some("write")
    );
    assert_eq!(
        header(&refused, "x-ratelimit-remaining").as_deref(),
        Some("0")
    );
    assert_eq!(
        header(&refused, "ratelimit").as_deref(),
        Some(r#""write";r=0;t=1"#)
    );
    let body = r#"{"error":"rate_limited","group":"write","limit":60,"retry_after_ms":1000}"#;
    assert_eq!(status_and_text(refused).await, (429, body.to_owned()));

    // 729 ms on, one token is 271 ms away: the body says so exactly, the header rounds up.
    app.clock.advance(Duration::from_millis(729));
    let refused = app.post_raw("/rules/validate", "{}").await;
    assert_eq!(header(&refused, "retry-after").as_deref(), Some("1"));
    let body = r#"{"error":"rate_limited","group":"write","limit":60,"retry_after_ms":271}"#;
    assert_eq!(status_and_text(refused).await, (429, body.to_owned()));
}

#[actix_web::test]
async fn only_exactly_false_switches_the_limiter_off() {
    let off = TestApp::spawn(&[("ANALYZER_RATE_LIMIT_ENABLED", "false")]).await;
    assert_eq!(burst(&off, 900).await, BTreeMap::from([(400, 900)]));
    let response = off.get("/analysis-types").await;
    assert_eq!(header(&response, "x-ratelimit-group"), None);

    let mistyped = TestApp::spawn(&[("ANALYZER_RATE_LIMIT_ENABLED", "False")]).await;
    assert_eq!(
        burst(&mistyped, 61).await,
        BTreeMap::from([(400, 60), (429, 1)])
    );
}

#[actix_web::test]
async fn reads_carry_both_kinds_of_fields() {
    let app = TestApp::spawn(&[]).await;
    let response = app.get("/analysis-types").await;
    assert_eq!(response.status(), 200);
    let expected = [
        ("x-ratelimit-group", "read"),
        ("x-ratelimit-limit", "600"),
        ("x-ratelimit-remaining", "599"),
        ("ratelimit-policy", r#""read";q=600;w=60"#),
        ("ratelimit", r#""read";r=599;t=1"#),
    ];
    for (name, value) in expected {
        assert_eq!(header(&response, name).as_deref(), Some(value), "{name}");
    }
    let health = app.client.get(app.url("/health")).send().await.unwrap();
    assert_eq!(
        header(&health, "ratelimit"),
        None,
        "health is never metered"
    );
}

#[actix_web::test]
async fn a_scans_fan_out_of_3600_analyses_meets_no_429() {
    let app = std::sync::Arc::new(TestApp::spawn(&[]).await);
    let body = serde_json::json!({ "files": [{ "path": "src/lib.rs", "content": "fn main() { println!(\"hi\"); }\n" }] });
    let tasks: Vec<_> = (0..12)
        .map(|_| {
            let (app, body) = (app.clone(), body.clone());
            actix_web::rt::spawn(async move {
                let mut refused = 0;
                for _ in 0..300 {
                    refused += usize::from(app.post("/analyze", &body).await.status() == 429);
                }
                refused
            })
        })
        .collect();
    let mut refused = 0;
    for task in tasks {
        refused += task.await.unwrap();
    }
    assert_eq!(refused, 0);
    let metrics = app.get("/metrics").await.text().await.unwrap();
    let line =
        r#"limiter_decisions_total{service="analyzer",group="analyze",outcome="allowed"} 3600"#;
    assert!(metrics.contains(line), "{metrics}");
}
