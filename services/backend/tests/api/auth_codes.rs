//! One-time codes and single-use links: the one 429 without a Retry-After, answers that
//! never reveal an account, and a reset link that works once and lifts the lock.

use crate::auth_support::{last_code, login, status_and_body, verified_account};
use crate::helpers::{TestApp, header};
use serde_json::json;

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
    let code = last_code(&app, "cy@example.com").await;
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
    let fresh = last_code(&app, "cy@example.com").await;
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
        .await
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
