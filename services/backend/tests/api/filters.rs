//! The two filters where a client meets them: the reference run's sequences, the per-recipient
//! ceiling from many sources, and a forged X-Forwarded-For from an untrusted peer.

use crate::helpers::{TestApp, fail_body, header};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

#[actix_web::test]
async fn the_21st_login_from_one_address_is_refused_by_the_credential_bucket() {
    let app = TestApp::spawn(&[]).await;
    for attempt in 1..=20 {
        let body =
            json!({ "email": format!("user{attempt}@example.com"), "password": "wrong-password" });
        let response = app.post("/api/v1/auth/login", &body, None).await;
        assert_ne!(response.status(), 429, "attempt {attempt}");
    }
    let refused = app
        .post(
            "/api/v1/auth/login",
            &json!({ "email": "x@example.com" }),
            None,
        )
        .await;
    assert_eq!(header(&refused, "retry-after").as_deref(), Some("45"));
    assert_eq!(
        (refused.status().as_u16(), refused.text().await.unwrap()),
        (429, fail_body(45))
    );
}

#[actix_web::test]
async fn refill_then_a_burst_gets_exactly_what_is_left() {
    let app = Arc::new(TestApp::spawn(&[]).await);
    let step = Duration::from_secs(180) / 126;
    for request in 0..126 {
        let response = app
            .client
            .get(app.url("/api/v1/auth/workspace?name=acme"))
            .send()
            .await
            .unwrap();
        assert_ne!(response.status(), 429, "request {request}");
        app.clock.advance(step);
    }
    app.clock.advance(Duration::from_secs(180) - step * 126);
    let tasks: Vec<_> = (0..12)
        .map(|_| {
            let app = app.clone();
            actix_web::rt::spawn(async move {
                let mut refusals = Vec::new();
                for _ in 0..20 {
                    let response = app
                        .client
                        .get(app.url("/api/v1/auth/workspace?name=acme"))
                        .send()
                        .await
                        .unwrap();
                    if response.status() == 429 {
                        let retry_after = header(&response, "retry-after");
                        refusals.push((retry_after, response.text().await.unwrap()));
                    }
                }
                refusals
            })
        })
        .collect();
    let mut refusals = Vec::new();
    for task in tasks {
        refusals.extend(task.await.unwrap());
    }
    // 300 - 126 + 15 refunded in 180 s = 189 of the 240 pass.
    assert_eq!(refusals.len(), 240 - 189);
    for (retry_after, body) in refusals {
        assert_eq!((retry_after.as_deref(), body), (Some("12"), fail_body(12)));
    }
}

#[actix_web::test]
async fn one_inbox_is_protected_from_many_sources_with_the_same_body() {
    let app = TestApp::spawn(&[("TRUSTED_PROXIES", "127.0.0.1/32")]).await;
    let signup =
        json!({ "email": "Victim@Example.com", "password": "a-long-password", "name": "V" });
    for source in 1..=10 {
        let response = app
            .post(
                "/api/v1/auth/signup",
                &signup,
                Some(&format!("198.51.100.{source}")),
            )
            .await;
        assert_ne!(response.status(), 429, "source {source}");
        assert!(
            !header(&response, "ratelimit")
                .unwrap_or_default()
                .contains("recipient")
        );
    }
    let recipient_refusal = app
        .post("/api/v1/auth/signup", &signup, Some("198.51.100.99"))
        .await;
    assert_eq!(
        header(&recipient_refusal, "retry-after").as_deref(),
        Some("360")
    );
    let recipient_body = recipient_refusal.text().await.unwrap();
    assert_eq!(recipient_body, fail_body(360));

    for inbox in 1..=10 {
        let body = json!({ "email": format!("user{inbox}@example.com"), "password": "a-long-password", "name": "U" });
        app.post("/api/v1/auth/signup", &body, Some("203.0.113.5"))
            .await;
    }
    let other =
        json!({ "email": "someone@example.com", "password": "a-long-password", "name": "S" });
    let source_refusal = app
        .post("/api/v1/auth/signup", &other, Some("203.0.113.5"))
        .await;
    assert_eq!(
        header(&source_refusal, "retry-after").as_deref(),
        Some("360")
    );
    assert_eq!(
        source_refusal.text().await.unwrap(),
        recipient_body,
        "the body never says which ceiling refused"
    );
}

#[actix_web::test]
async fn a_forged_forwarded_for_from_an_untrusted_peer_changes_nothing() {
    let app = TestApp::spawn(&[]).await;
    for attempt in 1..=20 {
        let forged = format!("10.0.0.{attempt}");
        let response = app
            .post("/api/v1/auth/login", &json!({}), Some(&forged))
            .await;
        assert_ne!(response.status(), 429, "attempt {attempt}");
    }
    let refused = app
        .post("/api/v1/auth/login", &json!({}), Some("10.0.0.250"))
        .await;
    assert_eq!(refused.status(), 429);
}
