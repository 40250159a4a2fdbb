//! The ceilings over HTTP on a fake clock: the per-subject window, the global backstop (whose
//! refusal is indistinguishable from the subject's), the disable switch, and the public
//! per-address budget of the log analysis.

use crate::helpers::{TestApp, header, refusal_body, status_and_text, token};
use serde_json::json;
use std::time::Duration;

/// Status, Retry-After, RateLimit and body of a chat by `user`.
async fn chat_as(app: &TestApp, user: &str) -> (u16, Option<String>, Option<String>, String) {
    let response = app.chat(&token(user), &json!({ "message": "hello" })).await;
    let retry_after = header(&response, "retry-after");
    let state = header(&response, "ratelimit");
    let (status, body) = status_and_text(response).await;
    (
        status,
        retry_after,
        state,
        if status == 200 { String::new() } else { body },
    )
}

#[actix_web::test]
async fn the_61st_chat_in_a_minute_waits_while_another_subject_is_served() {
    let app = TestApp::spawn(&[]).await;
    for call in 1..=60 {
        let (status, ..) = chat_as(&app, "user-ann").await;
        assert_eq!(status, 200, "chat {call}");
    }
    let refused = app
        .chat(&token("user-ann"), &json!({ "message": "hello" }))
        .await;
    assert_eq!(header(&refused, "retry-after").as_deref(), Some("60"));
    assert_eq!(
        header(&refused, "ratelimit").as_deref(),
        Some(r#""chat";r=0;t=60"#)
    );
    assert_eq!(status_and_text(refused).await, (429, refusal_body(60)));

    let bob = app
        .chat(&token("user-bob"), &json!({ "message": "hello" }))
        .await;
    assert_eq!(bob.status(), 200, "another subject is served");
    assert_eq!(
        header(&bob, "ratelimit-policy").as_deref(),
        Some(r#""chat";q=60;w=60"#)
    );
    assert_eq!(
        header(&bob, "ratelimit").as_deref(),
        Some(r#""chat";r=59;t=60"#)
    );

    app.clock.advance(Duration::from_millis(30_500));
    assert_eq!(
        chat_as(&app, "user-ann").await,
        (
            429,
            Some("30".into()),
            Some(r#""chat";r=0;t=30"#.into()),
            refusal_body(30)
        ),
        "29.5 s left, rounded up"
    );
    app.clock.advance(Duration::from_secs(30));
    assert_eq!(chat_as(&app, "user-ann").await.0, 200, "the window slid");

    let metrics = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .expect("metrics");
    let metrics = metrics.text().await.expect("text");
    assert!(
        metrics.contains(r#"ai_chat_window_decisions_total{outcome="refused"} 2"#)
            && metrics.contains(r#"ai_chat_window_decisions_total{outcome="allowed"} 62"#),
        "{metrics}"
    );
}

#[actix_web::test]
async fn the_global_backstop_refuses_across_subjects_in_the_same_words() {
    let app = TestApp::spawn(&[
        ("AI_RATE_LIMIT_CHAT", "2/1m"),
        ("AI_RATE_LIMIT_GLOBAL", "3/1m"),
    ])
    .await;
    assert_eq!(chat_as(&app, "user-ann").await.0, 200);
    assert_eq!(chat_as(&app, "user-ann").await.0, 200);
    let by_subject = chat_as(&app, "user-ann").await;
    assert_eq!(chat_as(&app, "user-bob").await.0, 200);
    let by_backstop = chat_as(&app, "user-carl").await;
    let expected = (
        429,
        Some("60".to_owned()),
        Some(r#""chat";r=0;t=60"#.to_owned()),
        refusal_body(60),
    );
    assert_eq!(by_subject, expected);
    assert_eq!(by_backstop, expected, "which ceiling refused is never told");
    for user in (0..20).map(|n| format!("user-{n}")) {
        assert_eq!(chat_as(&app, &user).await.0, 429, "{user}");
    }
    app.clock.advance(Duration::from_secs(60));
    assert_eq!(chat_as(&app, "user-dan").await.0, 200);
}

#[actix_web::test]
async fn only_exactly_true_switches_the_chat_limiter_off() {
    let off = TestApp::spawn(&[
        ("RATE_LIMIT_DISABLED", "true"),
        ("AI_RATE_LIMIT_CHAT", "2/1m"),
    ])
    .await;
    for call in 1..=5 {
        let (status, retry_after, state, _) = chat_as(&off, "user-ann").await;
        assert_eq!(
            (status, retry_after, state),
            (200, None, None),
            "chat {call}"
        );
    }
    let on = TestApp::spawn(&[
        ("RATE_LIMIT_DISABLED", "TRUE"),
        ("AI_RATE_LIMIT_CHAT", "2/1m"),
    ])
    .await;
    assert_eq!(chat_as(&on, "user-ann").await.0, 200);
    assert_eq!(chat_as(&on, "user-ann").await.0, 200);
    assert_eq!(chat_as(&on, "user-ann").await.0, 429);
}

#[actix_web::test]
async fn the_log_analysis_budget_is_per_client_address() {
    let app = TestApp::spawn(&[
        ("LOG_ANALYSIS_PUBLIC_RATE_LIMIT", "2"),
        ("TRUSTED_PROXIES", "127.0.0.1"),
        // The chat switch leaves the public budget alone.
        ("RATE_LIMIT_DISABLED", "true"),
    ])
    .await;
    let body = json!({ "log": "ERROR boom" });
    let from = |ip: &'static str| {
        app.client
            .post(app.url("/api/log-analysis"))
            .header("x-forwarded-for", ip)
            .json(&body)
            .send()
    };
    for _ in 0..2 {
        let served = from("203.0.113.7").await.expect("an answer");
        assert_eq!(served.status(), 200);
        assert_eq!(
            header(&served, "ratelimit-policy").as_deref(),
            Some(r#""log_analysis";q=2;w=60"#)
        );
    }
    let refused = from("203.0.113.7").await.expect("an answer");
    assert_eq!(header(&refused, "retry-after").as_deref(), Some("30"));
    assert_eq!(status_and_text(refused).await, (429, refusal_body(30)));
    assert_eq!(from("198.51.100.9").await.expect("an answer").status(), 200);
    app.clock.advance(Duration::from_secs(30));
    assert_eq!(from("203.0.113.7").await.expect("an answer").status(), 200);
}

#[actix_web::test]
async fn one_ipv6_subscriber_is_one_log_analysis_budget() {
    let app = TestApp::spawn(&[
        ("LOG_ANALYSIS_PUBLIC_RATE_LIMIT", "2"),
        ("TRUSTED_PROXIES", "127.0.0.1"),
    ])
    .await;
    let body = json!({ "log": "ERROR boom" });
    let from = |ip: &'static str| {
        app.client
            .post(app.url("/api/log-analysis"))
            .header("x-forwarded-for", ip)
            .json(&body)
            .send()
    };
    for ip in ["2001:db8:7:7::1", "2001:db8:7:7::2"] {
        assert_eq!(from(ip).await.expect("an answer").status(), 200, "{ip}");
    }
    let refused = from("2001:db8:7:7:abcd::3").await.expect("an answer");
    assert_eq!(status_and_text(refused).await, (429, refusal_body(30)));
    let neighbour = from("2001:db8:7:8::1").await.expect("an answer");
    assert_eq!(neighbour.status(), 200, "another /64");
}
