//! The login attempt ceiling where a client meets it: the reference run's six logins, the lock
//! across a restart, a store that cannot answer, and bad bodies.

use crate::auth_support::{INVALID_LOGIN, LOCKED, login, status_and_body, verified_account};
use crate::helpers::{SECRET, TestApp, header};
use platform::MapEnv;
use platform::jwt::{JwtKeys, TokenKind};
use serde_json::{Value, json};

#[actix_web::test]
async fn six_wrong_logins_for_an_unknown_address_lock_it() {
    let app = TestApp::spawn(&[]).await;
    for attempt in 1..=5 {
        let response = login(&app, "nobody@example.com", "wrong-password").await;
        assert_eq!(header(&response, "retry-after"), None, "attempt {attempt}");
        assert_eq!(
            status_and_body(response).await,
            (401, INVALID_LOGIN.to_owned()),
            "attempt {attempt}"
        );
    }
    let sixth = login(&app, "NOBODY@example.com", "wrong-password").await;
    let retry_after: u64 = header(&sixth, "retry-after")
        .expect("a wait")
        .parse()
        .expect("seconds");
    assert!((599..=600).contains(&retry_after), "{retry_after}");
    assert_eq!(status_and_body(sixth).await, (429, LOCKED.to_owned()));
}

#[actix_web::test]
async fn the_lock_refuses_the_right_password_and_survives_a_restart() {
    let app = TestApp::spawn(&[]).await;
    verified_account(&app, "ada@example.com", "correct horse battery").await;
    for _ in 0..5 {
        assert_eq!(
            login(&app, "ada@example.com", "wrong-password")
                .await
                .status(),
            401
        );
    }
    assert_eq!(
        login(&app, "ada@example.com", "correct horse battery")
            .await
            .status(),
        429
    );
    let data_dir = app.data_dir.clone();
    let _kept = app.stop().await;
    let restarted = TestApp::spawn_on(&data_dir, &[]).await;
    let response = login(&restarted, "ada@example.com", "correct horse battery").await;
    assert_eq!(status_and_body(response).await, (429, LOCKED.to_owned()));
    restarted.stop().await;
}

#[actix_web::test]
async fn a_success_resets_the_count_and_tokens_are_of_their_kind() {
    let app = TestApp::spawn(&[]).await;
    let tokens = verified_account(&app, "bob@example.com", "correct horse battery").await;
    for _ in 0..4 {
        assert_eq!(
            login(&app, "bob@example.com", "wrong-password")
                .await
                .status(),
            401
        );
    }
    let success = login(&app, "bob@example.com", "correct horse battery").await;
    assert_eq!(success.status(), 200);
    for _ in 0..4 {
        assert_eq!(
            login(&app, "bob@example.com", "wrong-password")
                .await
                .status(),
            401,
            "the count restarted"
        );
    }
    let keys =
        JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)])).expect("keys");
    let access = tokens["accessToken"].as_str().expect("an access token");
    let refresh = tokens["refreshToken"].as_str().expect("a refresh token");
    assert_eq!(
        keys.verify(TokenKind::Access, access)
            .expect("valid")
            .email
            .as_deref(),
        Some("bob@example.com")
    );
    assert!(
        keys.verify(TokenKind::Access, refresh).is_err(),
        "a refresh token is never an access token"
    );
}

#[actix_web::test]
async fn a_store_that_cannot_answer_fails_closed_without_detail() {
    let app = TestApp::spawn(&[]).await;
    app.faults.fail(true);
    let response = login(&app, "ann@example.com", "whatever-password").await;
    assert_eq!(header(&response, "retry-after").as_deref(), Some("5"));
    let body = r#"{"status":"SERVICE_UNAVAILABLE","message":"service temporarily unavailable"}"#;
    assert_eq!(status_and_body(response).await, (503, body.to_owned()));
}

#[actix_web::test]
async fn bad_bodies_are_4xx_in_the_auth_envelope() {
    let app = TestApp::spawn(&[]).await;
    let routes = [
        "/api/v1/auth/login",
        "/api/v1/auth/signup",
        "/api/v1/auth/verify-otp",
        "/api/v1/auth/resend-otp",
    ];
    for path in routes {
        for (content_type, body) in [
            ("application/json", "{"),
            ("application/json", r#"{"email":5}"#),
            ("text/plain", "{}"),
        ] {
            let response = app
                .client
                .post(app.url(path))
                .header("content-type", content_type)
                .body(body)
                .send()
                .await
                .unwrap();
            let (status, text) = status_and_body(response).await;
            assert!(
                status == 400 || status == 415,
                "{path} {body}: {status} {text}"
            );
            let value: Value = serde_json::from_str(&text).expect("JSON");
            assert_eq!(value["status"], status, "{path}: {text}");
        }
    }
    let passkey = app
        .post("/api/v1/auth/mfa/passkey/register", &json!({}), None)
        .await;
    let body = r#"{"status":501,"message":"Passkeys are not available yet"}"#;
    assert_eq!(status_and_body(passkey).await, (501, body.to_owned()));
}

#[actix_web::test]
async fn a_refresh_token_buys_an_access_token_and_nothing_else_does() {
    let app = TestApp::spawn(&[]).await;
    let tokens = verified_account(&app, "ivy@example.com", "correct horse battery").await;
    let refresh = json!({ "refreshToken": tokens["refreshToken"] });
    let renewed = app.post("/api/v1/auth/refresh", &refresh, None).await;
    assert_eq!(renewed.status(), 200);
    let body: Value = renewed.json().await.expect("JSON");
    let keys =
        JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)])).expect("keys");
    let access = body["accessToken"].as_str().expect("an access token");
    assert_eq!(
        keys.verify(TokenKind::Access, access)
            .expect("valid")
            .email
            .as_deref(),
        Some("ivy@example.com")
    );
    let misused = app
        .post(
            "/api/v1/auth/refresh",
            &json!({ "refreshToken": tokens["accessToken"] }),
            None,
        )
        .await;
    let refused = r#"{"status":401,"message":"Invalid or expired token"}"#;
    assert_eq!(status_and_body(misused).await, (401, refused.to_owned()));
}

#[actix_web::test]
async fn an_unknown_magic_link_is_refused_in_the_auth_envelope() {
    let app = TestApp::spawn(&[]).await;
    let answer = app
        .post(
            "/api/v1/auth/verify-magic",
            &json!({ "token": "not-a-real-link" }),
            None,
        )
        .await;
    let body = r#"{"status":400,"message":"Invalid or expired link"}"#;
    assert_eq!(status_and_body(answer).await, (400, body.to_owned()));
}
