//! Helpers for the tenancy and token tests: verified accounts, bearer requests answered as
//! (status, body text), workspaces to switch into, and the test secret's keys.

use crate::helpers::{SECRET, TestApp};
use platform::MapEnv;
use platform::jwt::{Claims, JwtKeys, TokenKind};
use reqwest::Method;
use serde_json::{Value, json};

pub const PASSWORD: &str = "correct horse battery";
pub const PROJECT_NOT_FOUND: &str = r#"{"status":"NOT_FOUND","message":"project not found"}"#;
pub const INSUFFICIENT_ROLE: &str = r#"{"status":"FORBIDDEN","message":"insufficient role"}"#;
pub const SCOPE_REQUIRED: &str = r#"{"status":"FORBIDDEN","message":"workspace scope required"}"#;
pub const WORKSPACE_NOT_FOUND_AUTH: &str = r#"{"status":404,"message":"workspace not found"}"#;

/// A verified account and its login (unscoped) access token.
pub struct Account {
    pub id: String,
    pub email: String,
    pub token: String,
}

/// The keys the test app signs with.
pub fn keys() -> JwtKeys {
    JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)]))
        .expect("the test secret derives keys")
}

/// The claims of an access token the app minted.
pub fn claims(token: &str) -> Claims {
    keys()
        .verify(TokenKind::Access, token)
        .expect("a valid access token")
}

/// Signs `email` up, verifies it with the mailed code and returns the account.
pub async fn account(app: &TestApp, email: &str) -> Account {
    let signup = json!({ "email": email, "password": PASSWORD, "name": "Tester" });
    let created = app.post("/api/v1/auth/signup", &signup, None).await;
    assert_eq!(created.status(), 201, "signup of {email}");
    let mail = app
        .outbox()
        .await
        .into_iter()
        .rev()
        .find(|mail| mail["to"] == email && mail["kind"] == "otp")
        .expect("a code in the outbox");
    let verify = json!({ "email": email, "code": mail["code"] });
    let verified = app.post("/api/v1/auth/verify-otp", &verify, None).await;
    assert_eq!(verified.status(), 200, "verification of {email}");
    let tokens: Value = verified.json().await.expect("tokens");
    let token = tokens["accessToken"].as_str().expect("an access token");
    Account {
        id: claims(token).sub,
        email: email.to_owned(),
        token: token.to_owned(),
    }
}

/// Sends `method path` with an optional bearer and JSON body; returns status and body text.
pub async fn call(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&(impl AsRef<str> + ?Sized)>,
    body: Option<&Value>,
) -> (u16, String) {
    let mut request = app.client.request(method, app.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token.as_ref());
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.expect("the backend answers");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// Parses a body the test expects to be JSON.
pub fn parsed(body: &str) -> Value {
    serde_json::from_str(body).expect("a JSON body")
}

/// Creates a workspace as `owner`; returns its id.
pub async fn workspace(app: &TestApp, owner: &Account, name: &str) -> String {
    let body = json!({ "name": name });
    let (status, text) = call(
        app,
        Method::POST,
        "/api/v1/workspaces",
        Some(&owner.token),
        Some(&body),
    )
    .await;
    assert_eq!(status, 201, "{text}");
    let created = parsed(&text);
    assert_eq!(created["name"], name);
    created["id"].as_str().expect("an id").to_owned()
}

/// Switches `account` into `workspace_id`; returns the scoped access token.
pub async fn switch(app: &TestApp, account: &Account, workspace_id: &str) -> String {
    let body = json!({ "workspaceId": workspace_id });
    let path = "/api/v1/auth/workspace";
    let (status, text) = call(app, Method::POST, path, Some(&account.token), Some(&body)).await;
    assert_eq!(status, 200, "{text}");
    parsed(&text)["accessToken"]
        .as_str()
        .expect("an access token")
        .to_owned()
}

/// Creates a project with the scoped `token`; returns its id.
pub async fn project(app: &TestApp, token: &str, name: &str, key: &str) -> String {
    let body = json!({ "name": name, "key": key });
    let path = "/api/v1/projects";
    let (status, text) = call(app, Method::POST, path, Some(token), Some(&body)).await;
    assert_eq!(status, 201, "{text}");
    parsed(&text)["id"].as_str().expect("an id").to_owned()
}
