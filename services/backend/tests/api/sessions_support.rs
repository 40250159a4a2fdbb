//! What the session tests share: a session's two tokens, refreshing, a protected call, and a
//! password reset through the mailed link.

use crate::auth_support::{login, verified_account};
use crate::helpers::TestApp;
use serde_json::{Value, json};

pub const PASSWORD: &str = "correct horse battery";
/// What `/auth/refresh` answers for a token that is not a live refresh token.
pub const TOKEN_REFUSED: &str = r#"{"status":401,"message":"Invalid or expired token"}"#;
/// What a protected route outside `/auth` answers without a live access token.
pub const AUTH_REQUIRED: &str = r#"{"status":"UNAUTHORIZED","message":"authentication required"}"#;
/// What a protected route under `/auth` answers without a live access token.
pub const AUTH_REQUIRED_AUTH: &str = r#"{"status":401,"message":"authentication required"}"#;

/// A session's tokens.
#[derive(Clone, Debug)]
pub struct Pair {
    pub access: String,
    pub refresh: String,
}

/// The two tokens of an answer that must hold exactly `accessToken` and `refreshToken`.
pub fn pair(body: &str) -> Pair {
    let value: Value = serde_json::from_str(body).expect("a JSON body");
    let keys: Vec<&str> = value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["accessToken", "refreshToken"], "{body}");
    Pair {
        access: value["accessToken"].as_str().expect("access").to_owned(),
        refresh: value["refreshToken"].as_str().expect("refresh").to_owned(),
    }
}

/// Signs `email` up with [`PASSWORD`]; the session the verification opened.
pub async fn signed_up(app: &TestApp, email: &str) -> Pair {
    pair(&verified_account(app, email, PASSWORD).await.to_string())
}

/// A new session by password.
pub async fn signed_in(app: &TestApp, email: &str, password: &str) -> Pair {
    let response = login(app, email, password).await;
    assert_eq!(response.status(), 200, "login of {email}");
    pair(&response.text().await.expect("a body"))
}

/// `POST /auth/refresh` with `token`: status and body.
pub async fn refresh(app: &TestApp, token: &str) -> (u16, String) {
    let response = app
        .post(
            "/api/v1/auth/refresh",
            &json!({ "refreshToken": token }),
            None,
        )
        .await;
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// A protected call (`GET /api/v1/workspaces`) with `access`: status and body.
pub async fn protected(app: &TestApp, access: &str) -> (u16, String) {
    let response = app
        .client
        .get(app.url("/api/v1/workspaces"))
        .bearer_auth(access)
        .send()
        .await
        .expect("the backend answers");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// Asserts that neither token of `session` is accepted any more, in the exact envelopes.
pub async fn assert_ended(app: &TestApp, session: &Pair, what: &str) {
    assert_eq!(
        protected(app, &session.access).await,
        (401, AUTH_REQUIRED.to_owned()),
        "{what}: the access token"
    );
    assert_eq!(
        refresh(app, &session.refresh).await,
        (401, TOKEN_REFUSED.to_owned()),
        "{what}: the refresh token"
    );
}

/// Asks for a reset link for `email` and sets `password` with it: status and body.
pub async fn reset_password(app: &TestApp, email: &str, password: &str) -> (u16, String) {
    let asked = app
        .post(
            "/api/v1/auth/forgot-password",
            &json!({ "email": email }),
            None,
        )
        .await;
    assert_eq!(asked.status(), 202);
    let mail = app
        .outbox()
        .await
        .into_iter()
        .rev()
        .find(|mail| mail["kind"] == "password_reset" && mail["to"] == email)
        .expect("a reset mail");
    let link = mail["link"].as_str().expect("a link");
    let response = app
        .post(
            &format!("/api/v1/auth{link}"),
            &json!({ "password": password }),
            None,
        )
        .await;
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// An authenticated JSON call: status and body.
pub async fn authed(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    access: &str,
    body: &Value,
) -> (u16, String) {
    let response = app
        .client
        .request(method, app.url(path))
        .bearer_auth(access)
        .json(body)
        .send()
        .await
        .expect("the backend answers");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}
