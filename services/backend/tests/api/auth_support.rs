//! What the auth tests share: logging in, reading answers, and accounts verified through
//! the outbox.

use crate::helpers::TestApp;
use serde_json::{Value, json};

pub const INVALID_LOGIN: &str = r#"{"status":401,"message":"Invalid email or password"}"#;
pub const LOCKED: &str = r#"{"status":429,"message":"Too many failed attempts. Try again in 10 minute(s), or reset your password."}"#;

pub async fn login(app: &TestApp, email: &str, password: &str) -> reqwest::Response {
    app.post(
        "/api/v1/auth/login",
        &json!({ "email": email, "password": password }),
        None,
    )
    .await
}

pub async fn status_and_body(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// Signs up and verifies an account; returns its tokens.
pub async fn verified_account(app: &TestApp, email: &str, password: &str) -> Value {
    let signup = json!({ "email": email, "password": password, "name": "Ada" });
    assert_eq!(
        app.post("/api/v1/auth/signup", &signup, None)
            .await
            .status(),
        201
    );
    let code = last_code(app, email).await;
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

pub async fn last_code(app: &TestApp, email: &str) -> String {
    let mail = app
        .outbox()
        .await
        .into_iter()
        .rev()
        .find(|mail| mail["to"] == email.to_lowercase())
        .expect("a mail");
    assert_eq!(mail["kind"], "otp");
    mail["code"].as_str().expect("a code").to_owned()
}
