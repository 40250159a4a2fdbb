//! `TestApp`: the real MCP server on a free port with a fake clock and its own settings, and
//! the requests the tests send it.

use mcp_server::{Application, McpConfig};
use platform::MapEnv;
use platform::jwt::{JwtKeys, Subject, TokenKind};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// The estate's test secret (64 hex characters): the backend in these tests signs with it too.
pub const SECRET: &str = "4f1c9a7e2b8d6053a1e4c7b9d2f608e35a7c1b9e4d2f6a8c0b3e5d7f9a1c3e5b";
/// The analyzer token of these tests.
pub const ANALYZER_TOKEN: &str = "test-analyzer-token-0123456789";
/// The modern revision.
pub const MODERN: &str = "2026-07-28";

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

/// An answer: status, headers, body text.
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|value| value.to_str().expect("ASCII"))
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("a JSON body")
    }
}

impl TestApp {
    /// The MCP server with test settings plus `overrides` (an analyzer and backend that are
    /// not there unless the overrides name them).
    pub async fn spawn(overrides: &[(&str, &str)]) -> Self {
        let mut settings = vec![
            ("PORT", "0"),
            ("ANALYZER_TOKEN", ANALYZER_TOKEN),
            ("SECURITY_JWT_SECRET_KEY", SECRET),
            ("ANALYZER_URL", "http://127.0.0.1:9"),
            ("BACKEND_URL", "http://127.0.0.1:9"),
        ];
        settings.extend_from_slice(overrides);
        let env: MapEnv = settings.into_iter().collect();
        let config = McpConfig::from_env(&env).expect("test settings are valid");
        let app = testkit::TestApp::spawn(|clock| {
            let app = Application::build_with_clock(config, Arc::new(clock.clone()))
                .expect("the MCP server builds");
            (app.port(), app.into_server())
        });
        Self { app }
    }

    /// POST `body` to `/mcp` as the SDK does (JSON, both Accept types) plus `headers`.
    pub async fn post_mcp(&self, body: &str, headers: &[(&str, &str)]) -> Answer {
        let mut request = self
            .client
            .post(self.url("/mcp"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_owned());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        answer(request).await
    }

    /// A handshake-era request of `method` with `params`.
    pub async fn call(&self, method: &str, params: Value, headers: &[(&str, &str)]) -> Answer {
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        self.post_mcp(&body.to_string(), headers).await
    }

    /// `tools/call` of `name` in the handshake era; the answer's `result`.
    pub async fn tool(&self, name: &str, arguments: Value, headers: &[(&str, &str)]) -> Value {
        let params = json!({ "name": name, "arguments": arguments });
        let answer = self.call("tools/call", params, headers).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        answer.json()["result"].clone()
    }

    /// A plain GET of `path` with `headers`.
    pub async fn get(&self, path: &str, headers: &[(&str, &str)]) -> Answer {
        let mut request = self.client.get(self.url(path));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        answer(request).await
    }
}

pub async fn answer(request: reqwest::RequestBuilder) -> Answer {
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.text().await.expect("a body");
    Answer {
        status,
        headers,
        body,
    }
}

/// The keys the tests sign with.
pub fn keys() -> JwtKeys {
    JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)]))
        .expect("the test secret derives keys")
}

/// An access token of `user`, scoped to `workspace` when one is named, valid for an hour.
pub fn access_token(user: &str, workspace: Option<&str>) -> String {
    token(TokenKind::Access, user, workspace, SystemTime::now())
}

/// A token of `kind` for `user` issued at `issued_at`, valid for an hour from then.
pub fn token(
    kind: TokenKind,
    user: &str,
    workspace: Option<&str>,
    issued_at: SystemTime,
) -> String {
    let subject = Subject {
        workspace_id: workspace.map(str::to_owned),
        role: Some("OWNER".to_owned()),
        ..Subject::user(user)
    };
    keys()
        .issue_at(kind, &subject, issued_at, Duration::from_secs(3600))
        .expect("the token is signed")
}

/// `Authorization: Bearer <token>` as a header pair.
pub fn bearer(token: &str) -> (&'static str, String) {
    ("authorization", format!("Bearer {token}"))
}
