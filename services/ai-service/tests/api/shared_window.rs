//! `REDIS_URL`: replicas share the chat window and the public log-analysis budget (one real
//! Redis in Docker, two ai-service apps; skipped when `ESTATE_SKIP_DOCKER=1`), and a Redis
//! that does not answer never fails a chat.

use crate::helpers::{TestApp, closed_port_url, header, refusal_body, status_and_text, token};
use serde_json::json;

/// Status, Retry-After, RateLimit and body of a chat by `user` on `app`.
async fn chat_as(app: &TestApp, user: &str) -> (u16, Option<String>, Option<String>, String) {
    let response = app.chat(&token(user), &json!({ "message": "hello" })).await;
    let retry_after = header(&response, "retry-after");
    let state = header(&response, "ratelimit");
    let (status, body) = status_and_text(response).await;
    (status, retry_after, state, body)
}

async fn metrics(app: &TestApp) -> String {
    let response = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .expect("metrics");
    response.text().await.expect("text")
}

fn chat_count(outcome: &str, count: u32) -> String {
    format!(
        r#"limiter_decisions_total{{service="ai-service",group="chat",outcome="{outcome}"}} {count}"#
    )
}

#[actix_web::test]
async fn two_replicas_share_one_window_per_subject_exactly() {
    let Some(redis) = testkit::Redis::start().await else {
        return;
    };
    // Redis decides every request here: a loaded machine can take longer than the default 50 ms
    // (the first call also opens the connection), which would decide locally instead.
    let settings = [
        ("REDIS_URL", redis.url.as_str()),
        ("RATE_LIMIT_REDIS_TIMEOUT_MS", "2000"),
    ];
    let replicas = [
        TestApp::spawn(&settings).await,
        TestApp::spawn(&settings).await,
    ];
    for call in 1..=60u32 {
        let replica = &replicas[usize::from(call % 2 == 0)];
        let (status, retry_after, state, _) = chat_as(replica, "user-ann").await;
        let expected = format!(r#""chat";r={};t=60"#, 60 - call);
        assert_eq!(
            (status, retry_after, state),
            (200, None, Some(expected)),
            "chat {call}, alternating replicas"
        );
    }
    for replica in &replicas {
        let (status, retry_after, state, body) = chat_as(replica, "user-ann").await;
        let secs: u64 = retry_after
            .as_deref()
            .expect("a refusal carries Retry-After")
            .parse()
            .expect("whole seconds");
        assert!(
            (1..=60).contains(&secs),
            "the wait for the oldest chat: {secs}"
        );
        let expected_state = format!(r#""chat";r=0;t={secs}"#);
        assert_eq!(
            (status, state, body),
            (429, Some(expected_state), refusal_body(secs)),
            "the 61st chat across both replicas"
        );
    }
    let (status, _, state, _) = chat_as(&replicas[1], "user-bob").await;
    assert_eq!(
        (status, state.as_deref()),
        (200, Some(r#""chat";r=59;t=60"#)),
        "another subject has its own window"
    );

    let (first, second) = (metrics(&replicas[0]).await, metrics(&replicas[1]).await);
    for (text, allowed) in [(&first, 30), (&second, 31)] {
        assert!(text.contains(&chat_count("allowed", allowed)), "{text}");
        assert!(text.contains(&chat_count("refused", 1)), "{text}");
        assert!(text.contains(&chat_count("fallback", 0)), "{text}");
    }
}

#[actix_web::test]
async fn two_replicas_share_one_log_analysis_budget_per_address_exactly() {
    let Some(redis) = testkit::Redis::start().await else {
        return;
    };
    // Redis decides every request here: a loaded machine can take longer than the default 50 ms
    // (the first call also opens the connection), which would decide locally instead.
    let settings = [
        ("REDIS_URL", redis.url.as_str()),
        ("RATE_LIMIT_REDIS_TIMEOUT_MS", "2000"),
        ("LOG_ANALYSIS_PUBLIC_RATE_LIMIT", "4"),
    ];
    let replicas = [
        TestApp::spawn(&settings).await,
        TestApp::spawn(&settings).await,
    ];
    for replica in &replicas {
        // Opens the replica's Redis connection in a group no assertion below counts.
        assert_eq!(chat_as(replica, "user-warm-up").await.0, 200);
    }
    let body = json!({ "log": "ERROR boom" });
    for call in 0..6_usize {
        let response = replicas[call % 2].analyze_log(&body).await;
        if call < 4 {
            assert_eq!(
                response.status(),
                200,
                "analysis {call}: within the one budget"
            );
            continue;
        }
        let secs: u64 = header(&response, "retry-after")
            .expect("a refusal carries Retry-After")
            .parse()
            .expect("whole seconds");
        assert_eq!(
            status_and_text(response).await,
            (429, refusal_body(secs)),
            "analysis {call}: the budget is spent across both replicas"
        );
    }
    let count = |outcome: &str, count: u32| {
        format!(
            r#"limiter_decisions_total{{service="ai-service",group="log_analysis",outcome="{outcome}"}} {count}"#
        )
    };
    for replica in &replicas {
        let text = metrics(replica).await;
        assert!(text.contains(&count("allowed", 2)), "{text}");
        assert!(text.contains(&count("refused", 1)), "{text}");
        assert!(text.contains(&count("fallback", 0)), "{text}");
    }
}

#[actix_web::test]
async fn a_redis_that_does_not_answer_leaves_the_window_in_this_process() {
    let down = closed_port_url().replace("http://", "redis://");
    let app = TestApp::spawn(&[("REDIS_URL", down.as_str()), ("AI_RATE_LIMIT_CHAT", "2/1m")]).await;
    assert_eq!(chat_as(&app, "user-ann").await.0, 200);
    assert_eq!(chat_as(&app, "user-ann").await.0, 200);
    assert_eq!(
        chat_as(&app, "user-ann").await,
        (
            429,
            Some("60".to_owned()),
            Some(r#""chat";r=0;t=60"#.to_owned()),
            refusal_body(60)
        ),
        "the local window, on the app's clock"
    );
    let text = metrics(&app).await;
    for (outcome, count) in [("allowed", 2), ("refused", 1), ("fallback", 3)] {
        assert!(text.contains(&chat_count(outcome, count)), "{text}");
    }
}
