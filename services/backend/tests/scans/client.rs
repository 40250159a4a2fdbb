//! `AnalyzerClient` against the scripted stub: what it retries, what it waits for, and what
//! it sends exactly once.

use crate::stub::{Step, Stub, reply};
use analysis::{AnalyzeFile, AnalyzeRequest};
use backend::scans::analyzer_client::{AnalyzerError, RetryPolicy};
use serde_json::json;
use std::time::{Duration, Instant};

fn batch() -> AnalyzeRequest {
    AnalyzeRequest {
        files: vec![AnalyzeFile {
            path: "src/lib.rs".to_owned(),
            content: "fn main() {}\n".to_owned(),
            language: None,
        }],
        ..AnalyzeRequest::default()
    }
}

fn internal() -> Step {
    Step::new(
        500,
        json!({"error": "internal_error", "message": "panic", "reference": "err-1"}),
    )
}

#[actix_web::test]
async fn two_500s_then_a_200_succeeds_on_the_third_attempt() {
    let stub = Stub::spawn(vec![internal(), internal(), Step::new(200, reply(2))]);
    let answer = stub.client(RetryPolicy::default()).analyze(&batch()).await;
    assert_eq!(
        answer.expect("the third attempt answers").summary.findings,
        2
    );
    assert_eq!(stub.calls(), 3);
}

#[actix_web::test]
async fn a_429_with_a_short_retry_after_is_waited_for_then_retried() {
    let limited = Step::new(429, json!({"error": "rate_limited"})).retry_after("1");
    let stub = Stub::spawn(vec![limited, Step::new(200, reply(0))]);
    let started = Instant::now();
    let answer = stub.client(RetryPolicy::default()).analyze(&batch()).await;
    assert!(answer.is_ok(), "{answer:?}");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(stub.calls(), 2);
}

#[actix_web::test]
async fn a_429_asking_for_longer_than_the_policy_waits_gives_up_at_once() {
    let stub = Stub::spawn(vec![
        Step::new(429, json!({"error": "rate_limited"})).retry_after("60"),
    ]);
    let started = Instant::now();
    let error = stub
        .client(RetryPolicy::default())
        .analyze(&batch())
        .await
        .unwrap_err();
    let expected = AnalyzerError::RateLimited {
        retry_after: Some(Duration::from_secs(60)),
    };
    assert_eq!(error, expected);
    assert_eq!(
        error.to_string(),
        "analyzer rate limited (retry after 60 s)"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(stub.calls(), 1);
}

#[actix_web::test]
async fn a_400_is_sent_exactly_once() {
    let body = json!({"error": "invalid_request_body", "message": "expected `,` at line 1"});
    let stub = Stub::spawn(vec![Step::new(400, body), Step::new(200, reply(0))]);
    let error = stub
        .client(RetryPolicy::default())
        .analyze(&batch())
        .await
        .unwrap_err();
    let expected = AnalyzerError::Rejected {
        status: 400,
        error: "invalid_request_body".to_owned(),
    };
    assert_eq!(error, expected);
    assert_eq!(stub.calls(), 1);
}

#[actix_web::test]
async fn persistent_5xx_is_unavailable_after_exactly_max_attempts() {
    let stub = Stub::spawn(vec![Step::new(502, json!("error code: 502"))]);
    let error = stub
        .client(RetryPolicy::default())
        .analyze(&batch())
        .await
        .unwrap_err();
    assert_eq!(error, AnalyzerError::Unavailable { attempts: 4 });
    assert_eq!(stub.calls(), 4);
    assert!(!error.to_string().contains("127.0.0.1"), "{error}");
}

#[actix_web::test]
async fn an_attempt_past_its_timeout_is_abandoned_and_retried() {
    let slow = Step::new(200, reply(9)).delayed(Duration::from_secs(5));
    let stub = Stub::spawn(vec![slow, Step::new(200, reply(1))]);
    let policy = RetryPolicy {
        attempt_timeout: Duration::from_millis(300),
        ..RetryPolicy::default()
    };
    let started = Instant::now();
    let answer = stub
        .client(policy)
        .analyze(&batch())
        .await
        .expect("the second attempt answers");
    assert_eq!(answer.summary.findings, 1);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(stub.calls(), 2);
}

#[actix_web::test]
async fn a_2xx_that_breaks_the_contract_is_a_bad_response_not_a_retry() {
    let stub = Stub::spawn(vec![Step::new(200, json!({"unexpected": true}))]);
    let error = stub
        .client(RetryPolicy::default())
        .analyze(&batch())
        .await
        .unwrap_err();
    assert_eq!(error, AnalyzerError::BadResponse);
    assert_eq!(stub.calls(), 1);
}

#[actix_web::test]
async fn rule_validation_passes_the_analyzers_verdict_through_once() {
    let verdict = json!({"error": "rule.ruleId is mandatory"});
    let stub = Stub::spawn(vec![Step::new(400, verdict.clone())]);
    let answer = stub
        .client(RetryPolicy::default())
        .validate_rule(&json!({}))
        .await;
    assert_eq!(answer.expect("a verdict is an answer"), (400, verdict));
    assert_eq!(stub.calls(), 1);
}

#[actix_web::test]
async fn a_wrong_token_is_a_rejection_that_names_no_secret() {
    let stub = Stub::spawn(vec![Step::new(200, reply(0))]);
    let client = backend::scans::analyzer_client::AnalyzerClient::new(
        &stub.base,
        "the-wrong-token",
        RetryPolicy::default(),
    );
    let error = client.analysis_types().await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "analyzer rejected the request (401 unauthorized)"
    );
    assert!(!format!("{client:?}").contains("the-wrong-token"));
    assert_eq!(stub.calls(), 0);
}
