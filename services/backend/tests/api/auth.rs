//! The auth flows where a client meets them: the seed's six logins, the one 429 without a
//! Retry-After, the lock across a restart, a store that cannot answer, and bad bodies.

use crate::helpers::{SECRET, TestApp, header};
use platform::MapEnv;
use platform::jwt::{JwtKeys, TokenKind};
use serde_json::{Value, json};

const INVALID_LOGIN: &str = r#"{"status":401,"message":"Invalid email or password"}"#;
const LOCKED: &str = r#"{"status":429,"message":"Too many failed attempts. Try again in 10 minute(s), or reset your password."}"#;

async fn login(app: &TestApp, email: &str, password: &str) -> reqwest::Response {
    app.post(
        "/api/v1/auth/login",
        &json!({ "email": email, "password": password }),
        None,
    )
    .await
}

async fn status_and_body(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// Signs up and verifies an account; returns its tokens.
async fn verified_account(app: &TestApp, email: &str, password: &str) -> Value {
    let signup = json!({ "email": email, "password": password, "name": "Ada" });
    assert_eq!(
        app.post("/api/v1/auth/signup", &signup, None)
            .await
            .status(),
        201
    );
    let code = last_code(app, email);
    let verified = app
        .post(
            "/api/v1/auth/verify-otp",
            &json!({ "email": email, "code": code }),
            None,
        )
        .await;
    assert_eq!(verified.status(), 200);
    verified.json().await.expect("tokens")
}

fn last_code(app: &TestApp, email: &str) -> String {
    let mail = app
        .outbox()
        .into_iter()
        .rev()
        .find(|mail| mail["to"] == email.to_lowercase())
        .expect("a mail");
    assert_eq!(mail["kind"], "otp");
    mail["code"].as_str().expect("a code").to_owned()
}

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

async fn verify(app: &TestApp, code: &str) -> reqwest::Response {
    app.post(
        "/api/v1/auth/verify-otp",
        &json!({ "email": "cy@example.com", "code": code }),
        None,
    )
    .await
}

#[actix_web::test]
async fn five_wrong_codes_destroy_the_code_and_the_429_names_no_wait() {
    let app = TestApp::spawn(&[]).await;
    let signup =
        json!({ "email": "cy@example.com", "password": "correct horse battery", "name": "Cy" });
    assert_eq!(
        app.post("/api/v1/auth/signup", &signup, None)
            .await
            .status(),
        201
    );
    let code = last_code(&app, "cy@example.com");
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 0..4 {
        let (status, body) = status_and_body(verify(&app, wrong).await).await;
        assert_eq!(
            (status, body.as_str()),
            (400, r#"{"status":400,"message":"Invalid or expired code"}"#)
        );
    }
    let exhausted = verify(&app, wrong).await;
    assert_eq!(
        header(&exhausted, "retry-after"),
        None,
        "no wait makes this code succeed"
    );
    let body = r#"{"status":429,"message":"Too many incorrect codes. Request a new code."}"#;
    assert_eq!(status_and_body(exhausted).await, (429, body.to_owned()));
    assert_eq!(
        verify(&app, &code).await.status(),
        400,
        "the right code was destroyed too"
    );
    let resent = app
        .post(
            "/api/v1/auth/resend-otp",
            &json!({ "email": "cy@example.com" }),
            None,
        )
        .await;
    assert_eq!(resent.status(), 202);
    let fresh = last_code(&app, "cy@example.com");
    assert_eq!(verify(&app, &fresh).await.status(), 200);
}

#[actix_web::test]
async fn answers_never_say_whether_an_address_has_an_account() {
    let app = TestApp::spawn(&[]).await;
    verified_account(&app, "dee@example.com", "correct horse battery").await;
    for path in ["/api/v1/auth/resend-otp", "/api/v1/auth/forgot-password"] {
        let known = status_and_body(
            app.post(path, &json!({ "email": "dee@example.com" }), None)
                .await,
        )
        .await;
        let unknown = status_and_body(
            app.post(path, &json!({ "email": "zed@example.com" }), None)
                .await,
        )
        .await;
        assert_eq!(known, unknown, "{path}");
    }
    let taken = json!({ "email": "Dee@Example.com", "password": "another long one", "name": "D" });
    let (status, body) = status_and_body(app.post("/api/v1/auth/signup", &taken, None).await).await;
    assert_eq!(status, 201);
    assert_eq!(
        body,
        r#"{"status":201,"message":"If this address can receive a code, one is on its way"}"#
    );
}

#[actix_web::test]
async fn a_reset_link_sets_the_password_once_and_lifts_the_lock() {
    let app = TestApp::spawn(&[]).await;
    verified_account(&app, "eve@example.com", "correct horse battery").await;
    for _ in 0..5 {
        login(&app, "eve@example.com", "wrong-password").await;
    }
    app.post(
        "/api/v1/auth/forgot-password",
        &json!({ "email": "eve@example.com" }),
        None,
    )
    .await;
    let mail = app
        .outbox()
        .into_iter()
        .rev()
        .find(|mail| mail["kind"] == "password_reset")
        .expect("a reset mail");
    let link = mail["link"].as_str().expect("a link").to_owned();
    let path = format!("/api/v1/auth{link}");
    let reset = app
        .post(&path, &json!({ "password": "a brand new secret" }), None)
        .await;
    assert_eq!(
        status_and_body(reset).await,
        (
            200,
            r#"{"status":200,"message":"Password updated"}"#.to_owned()
        )
    );
    let again = app
        .post(&path, &json!({ "password": "yet another secret" }), None)
        .await;
    assert_eq!(again.status(), 400, "single use");
    assert_eq!(
        login(&app, "eve@example.com", "a brand new secret")
            .await
            .status(),
        200
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
