//! Failures over HTTP: which are retried, how often, and what the caller gets.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use llm::{ChatMessage, ChatRequest, LlmConfig, LlmError};

use crate::stub::{Canned, Stub};
use crate::{TEST_KEY, client, remote_config};

async fn call(stub: &Stub) -> Result<llm::ChatReply, LlmError> {
    call_with(remote_config(&stub.base_url)).await
}

async fn call_with(config: LlmConfig) -> Result<llm::ChatReply, LlmError> {
    let request = ChatRequest::new(vec![ChatMessage::user("hello")]);
    client(config).chat(&request).await
}

#[actix_web::test]
async fn a_5xx_is_retried_and_the_next_success_returned() {
    let stub = Stub::start(vec![Canned::status(500), Canned::completion("second time")]);
    let reply = call(&stub).await.expect("success after a retry");
    assert_eq!(reply.content, "second time");
    assert_eq!(stub.calls(), 2);
}

#[actix_web::test]
async fn a_provider_that_stays_down_gets_three_attempts_in_all() {
    let stub = Stub::start(vec![Canned::status(503)]);
    let error = call(&stub).await.expect_err("still down");
    assert_eq!(error, LlmError::Unavailable { status: Some(503) });
    assert_eq!(stub.calls(), 3);
}

#[actix_web::test]
async fn a_4xx_is_never_retried_and_its_body_never_shown() {
    for status in [400, 401, 404] {
        let stub = Stub::start(vec![Canned::status(status)]);
        let error = call(&stub).await.expect_err("rejected");
        assert_eq!(error, LlmError::Rejected { status });
        assert_eq!(stub.calls(), 1, "status {status}");
        assert!(!error.to_string().contains(TEST_KEY), "{error}");
    }
}

#[actix_web::test]
async fn a_short_retry_after_is_waited_once_then_the_call_succeeds() {
    let stub = Stub::start(vec![
        Canned::status(429).header("retry-after", "1"),
        Canned::completion("after the wait"),
    ]);
    let started = Instant::now();
    let reply = call(&stub).await.expect("success after waiting");
    assert_eq!(reply.content, "after the wait");
    assert_eq!(stub.calls(), 2);
    assert!(started.elapsed() >= Duration::from_secs(1));
}

#[actix_web::test]
async fn a_long_retry_after_is_handed_back_without_retrying() {
    let stub = Stub::start(vec![Canned::status(429).header("retry-after", "60")]);
    let error = call(&stub).await.expect_err("rate limited");
    assert_eq!(
        error,
        LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(60))
        }
    );
    assert_eq!(stub.calls(), 1);
}

#[actix_web::test]
async fn a_429_without_retry_after_is_handed_back_without_retrying() {
    let stub = Stub::start(vec![Canned::status(429)]);
    let error = call(&stub).await.expect_err("rate limited");
    assert_eq!(error, LlmError::RateLimited { retry_after: None });
    assert_eq!(stub.calls(), 1);
}

#[actix_web::test]
async fn a_slow_provider_times_out_within_the_timeout() {
    let stub = Stub::start(vec![
        Canned::completion("late").delayed(Duration::from_secs(3)),
    ]);
    let started = Instant::now();
    let error = call_with(LlmConfig {
        timeout: Duration::from_millis(300),
        ..remote_config(&stub.base_url)
    })
    .await
    .expect_err("too slow");
    assert_eq!(error, LlmError::Timeout);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[actix_web::test]
async fn a_malformed_success_body_is_a_bad_response_quoted_briefly() {
    let garbage = format!("{{\"choices\": [ {}", "x".repeat(1000));
    let stub = Stub::start(vec![Canned::status(200).body(&garbage)]);
    let error = call(&stub).await.expect_err("unparseable");
    let LlmError::BadResponse(reason) = &error else {
        panic!("expected BadResponse, got {error:?}");
    };
    assert!(reason.starts_with("not a chat completion"), "{reason}");
    assert!(error.to_string().len() < 250, "{error}");
    assert_eq!(stub.calls(), 1);
}

#[actix_web::test]
async fn a_success_without_choices_is_a_bad_response() {
    let stub = Stub::start(vec![Canned::status(200).body(r#"{"choices": []}"#)]);
    let error = call(&stub).await.expect_err("no choices");
    assert_eq!(
        error,
        LlmError::BadResponse("no choice with text content".to_owned())
    );
}

#[actix_web::test]
async fn an_unreachable_provider_is_unavailable_after_two_backoffs() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("a bound address").port()
    };
    let started = Instant::now();
    let error = call_with(remote_config(&format!("http://127.0.0.1:{port}/v1")))
        .await
        .expect_err("nobody listens");
    assert_eq!(error, LlmError::Unavailable { status: None });
    assert!(started.elapsed() >= Duration::from_millis(500));
}
