//! Custom rules with `REDIS_URL`: every replica answers the same rule set (a rule stored on
//! one is listed, applied, replaced and deleted through another, and survives them all), and
//! Redis going away loses nothing: analyses go on with the rules last read, writes are a 503
//! in the analyzer's envelope, and the store works again when Redis is back.

use crate::helpers::{TestApp, status_and_text};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use testkit::Redis;

fn todo_rule(message: &str) -> Value {
    json!({ "ruleId": "no-todo", "pattern": "TODO", "message": message, "severity": "error" })
}

/// The custom findings `app` reports on one line with a TODO.
async fn custom_findings(app: &TestApp) -> Vec<String> {
    let batch = json!({
        "files": [{ "path": "a.py", "content": "x = 1\nlog.info('TODO later %s', x)\n" }],
        "analysisTypes": ["custom"]
    });
    let (status, text) = status_and_text(app.post("/analyze", &batch).await).await;
    assert_eq!(status, 200, "{text}");
    let found: Value = serde_json::from_str(&text).expect("JSON");
    found["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|finding| format!("{} {}", finding["ruleId"], finding["message"]))
        .collect()
}

async fn send(app: &TestApp, method: reqwest::Method, path: &str, body: &Value) -> (u16, String) {
    let request = app.authed(method, path).json(body);
    status_and_text(request.send().await.expect("the analyzer answers")).await
}

#[actix_web::test]
async fn every_replica_answers_the_same_rule_set() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let shared = [("REDIS_URL", redis.url.as_str())];
    let (first, second) = (TestApp::spawn(&shared).await, TestApp::spawn(&shared).await);
    let (status, created) = status_and_text(first.post("/rules", &todo_rule("first")).await).await;
    assert_eq!(status, 201, "{created}");
    let (status, listed) = status_and_text(second.get("/rules").await).await;
    assert_eq!(
        (status, listed),
        (200, format!(r#"{{"rules":[{created}]}}"#))
    );
    assert_eq!(custom_findings(&second).await, [r#""no-todo" "first""#]);
    let (status, taken) = status_and_text(second.post("/rules", &todo_rule("again")).await).await;
    assert_eq!(
        (status, taken.as_str()),
        (
            409,
            r#"{"error":"conflict","message":"rule 'no-todo' already exists"}"#
        ),
        "an id taken on one replica is taken on all"
    );
    let (status, _) = send(
        &second,
        reqwest::Method::PUT,
        "/rules/no-todo",
        &todo_rule("second"),
    )
    .await;
    assert_eq!(status, 200, "replaced");
    assert_eq!(custom_findings(&first).await, [r#""no-todo" "second""#]);
    let third = TestApp::spawn(&shared).await;
    let (status, read) = status_and_text(third.get("/rules/no-todo").await).await;
    assert_eq!(
        status, 200,
        "a replica started later reads the stored rule: {read}"
    );
    assert!(read.contains(r#""message":"second""#), "{read}");
    let (status, _) = send(
        &first,
        reqwest::Method::DELETE,
        "/rules/no-todo",
        &json!({}),
    )
    .await;
    assert_eq!(status, 204);
    let (status, gone) = status_and_text(second.get("/rules/no-todo").await).await;
    assert_eq!(
        (status, gone.as_str()),
        (
            404,
            r#"{"error":"not_found","message":"rule 'no-todo' not found"}"#
        )
    );
    assert!(
        custom_findings(&third).await.is_empty(),
        "deleted everywhere"
    );
}

#[actix_web::test]
async fn redis_away_loses_nothing() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let shared = [("REDIS_URL", redis.url.as_str())];
    let (app, other) = (TestApp::spawn(&shared).await, TestApp::spawn(&shared).await);
    let (status, _) = status_and_text(app.post("/rules", &todo_rule("kept")).await).await;
    assert_eq!(status, 201);
    assert_eq!(custom_findings(&app).await, [r#""no-todo" "kept""#]);
    redis.container.pause().await.expect("pause Redis");
    assert_eq!(
        custom_findings(&app).await,
        [r#""no-todo" "kept""#],
        "analyses go on with the rules last read"
    );
    let started = Instant::now();
    assert_eq!(custom_findings(&app).await, [r#""no-todo" "kept""#]);
    assert!(
        started.elapsed() < Duration::from_millis(300),
        "the next analysis does not wait for Redis again: {:?}",
        started.elapsed()
    );
    let started = Instant::now();
    let late = json!({ "ruleId": "late", "pattern": "x", "message": "m" });
    let (status, body) = status_and_text(app.post("/rules", &late).await).await;
    assert_eq!(
        (status, body.as_str()),
        (
            503,
            r#"{"error":"store_unavailable","message":"the rule store did not confirm the write; read the rule before retrying"}"#
        )
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "bounded: {:?}",
        started.elapsed()
    );
    redis.container.unpause().await.expect("unpause Redis");
    let fresh = json!({ "ruleId": "fresh", "pattern": "y", "message": "m" });
    let (status, _) = status_and_text(app.post("/rules", &fresh).await).await;
    assert_eq!(status, 201, "writes work again");
    let (status, seen) = status_and_text(app.get("/rules").await).await;
    assert_eq!(status, 200);
    assert!(
        seen.contains(r#""ruleId":"fresh""#),
        "the replica that wrote it lists it at once: {seen}"
    );
    // The unconfirmed write may have landed once Redis woke: whichever it is, the replicas
    // agree once the first one asks Redis again, and nothing stored before is gone.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, seen) = status_and_text(app.get("/rules").await).await;
        assert_eq!(status, 200);
        assert!(
            seen.contains(r#""ruleId":"no-todo""#),
            "still stored: {seen}"
        );
        if status_and_text(other.get("/rules").await).await == (200, seen.clone()) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the replicas never agreed: {seen}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
