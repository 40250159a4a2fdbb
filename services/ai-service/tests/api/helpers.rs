//! `TestApp`: the real ai-service on a free port, with a fake clock and its own settings, and
//! tokens minted with the test secret.

use ai_service::{AiConfig, Application};
use platform::MapEnv;
use platform::jwt::{JwtKeys, Subject, TokenKind};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// A strong test secret (64 hex characters), shared with the backend in the stack tests.
pub const SECRET: &str = "4f1c9a7e2b8d6053a1e4c7b9d2f608e35a7c1b9e4d2f6a8c0b3e5d7f9a1c3e5b";

/// The service as `testkit::TestApp` runs it, with this service's requests.
pub struct TestApp {
    app: testkit::TestApp,
}

impl std::ops::Deref for TestApp {
    type Target = testkit::TestApp;

    fn deref(&self) -> &testkit::TestApp {
        &self.app
    }
}

impl TestApp {
    /// The ai-service with the test secret, no backend (a closed port) and `overrides`.
    pub async fn spawn(overrides: &[(&str, &str)]) -> Self {
        let closed = closed_port_url();
        let mut settings = vec![
            ("SECURITY_JWT_SECRET_KEY", SECRET),
            ("PORT", "0"),
            ("BACKEND_URL", closed.as_str()),
        ];
        settings.extend_from_slice(overrides);
        let env: MapEnv = settings.into_iter().collect();
        let config = AiConfig::from_env(&env).expect("test settings are valid");
        let app = testkit::TestApp::spawn(|clock| {
            let app = Application::build_with_clock(config, Arc::new(clock.clone()))
                .expect("the ai-service builds");
            (app.port(), app.into_server())
        });
        Self { app }
    }

    /// `POST /api/chat` with `token` as the bearer.
    pub async fn chat(&self, token: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url("/api/chat"))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .expect("the ai-service answers")
    }

    /// `POST /api/log-analysis` with `body` as JSON.
    pub async fn analyze_log(&self, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url("/api/log-analysis"))
            .json(body)
            .send()
            .await
            .expect("the ai-service answers")
    }
}

fn keys() -> JwtKeys {
    JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)]))
        .expect("the test secret is valid")
}

/// An access token for `user`, valid for an hour.
pub fn token(user: &str) -> String {
    keys()
        .issue(
            TokenKind::Access,
            &Subject::user(user),
            Duration::from_secs(3600),
        )
        .expect("the token is signed")
}

/// A token of another kind for `user`.
pub fn token_of_kind(kind: TokenKind, user: &str) -> String {
    keys()
        .issue(kind, &Subject::user(user), Duration::from_secs(3600))
        .expect("the token is signed")
}

/// An access token for `user` that expired a minute ago.
pub fn expired_token(user: &str) -> String {
    let issued = SystemTime::now() - Duration::from_secs(3600);
    keys()
        .issue_at(
            TokenKind::Access,
            &Subject::user(user),
            issued,
            Duration::from_secs(3540),
        )
        .expect("the token is signed")
}

/// The URL of a port nothing listens on.
pub fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("an address").port();
    format!("http://127.0.0.1:{port}")
}

/// A response header as text.
pub fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().expect("an ASCII header").to_owned())
}

/// Status and body text.
pub async fn status_and_text(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// Status and JSON body.
pub async fn status_and_json(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

/// The one 429 body, whichever ceiling refused.
pub fn refusal_body(secs: u64) -> String {
    format!(
        r#"{{"error":"rate_limited","message":"too many requests; try again in {secs} second(s)"}}"#
    )
}

/// A chat message with one Python block that logs a password.
pub fn leaky_python() -> String {
    "Why is this flagged?\n```python\ndef login(user, password):\n    logger.info(f\"login {user} {password}\")\n```\n".to_owned()
}
