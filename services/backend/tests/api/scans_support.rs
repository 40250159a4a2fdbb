//! What the scan, EXPENSIVE and gatekeeper tests share: two tenants written to the store
//! before the backend opens it, the real analyzer on a free port, access tokens of sessions
//! opened in the store and minted with the test secret, and a WebSocket reader.

use crate::helpers::{SECRET, TestApp};
use awc::ws::{CloseReason, Frame};
use backend::auth::sessions::Sessions;
use backend::store::Store;
use backend::tenancy::{CiKeys, Denial, Projects, Workspaces};
use futures_util::StreamExt;
use platform::MapEnv;
use platform::jwt::{JwtKeys, Subject, TokenKind};
use std::time::Duration;

pub use crate::analyzer_support::{ANALYZER_TOKEN, absent_analyzer, spawn_analyzer};

/// A user with a workspace, a project in it, a CI key for it, and a scoped access token.
pub struct Tenant {
    pub workspace_id: String,
    pub project_id: String,
    pub token: String,
    pub ci_secret: String,
}

/// The backend with two tenants, talking to the analyzer at the URL it was given.
pub struct ScanApp {
    pub app: TestApp,
    pub alice: Tenant,
    pub bob: Tenant,
    _data: tempfile::TempDir,
}

impl ScanApp {
    /// The backend on a data directory holding two tenants, with `overrides`.
    pub async fn spawn(analyzer: &str, overrides: &[(&str, &str)]) -> Self {
        let data = tempfile::tempdir().expect("a temporary data directory");
        let (alice, bob) = {
            // redb allows one open handle: this one is dropped before the backend opens it.
            let store = Store::embedded(data.path()).expect("the embedded store opens");
            let alice = tenant(&store, "user-alice", "Alpha", "ALP").await;
            let bob = tenant(&store, "user-bob", "Bravo", "BRV").await;
            (alice, bob)
        };
        let mut settings = vec![
            ("ANALYZER_URL", analyzer),
            ("ANALYZER_TOKEN", ANALYZER_TOKEN),
        ];
        settings.extend_from_slice(overrides);
        let app = TestApp::spawn_on(data.path(), &settings).await;
        Self {
            app,
            alice,
            bob,
            _data: data,
        }
    }

    /// POST `body` with `token` as the bearer.
    pub async fn post(
        &self,
        path: &str,
        token: &str,
        body: &serde_json::Value,
    ) -> reqwest::Response {
        let request = self.app.client.post(self.app.url(path)).bearer_auth(token);
        request
            .json(body)
            .send()
            .await
            .expect("the backend answers")
    }

    /// GET with `token` as the bearer.
    pub async fn get(&self, path: &str, token: &str) -> reqwest::Response {
        let request = self.app.client.get(self.app.url(path)).bearer_auth(token);
        request.send().await.expect("the backend answers")
    }

    /// Every text message on `/ws/runs/{run_id}` and the close that ended them (30 s at most).
    pub async fn socket(&self, run_id: &str, token: &str) -> (Vec<String>, Option<CloseReason>) {
        let url = self.app.url(&format!("/ws/runs/{run_id}?token={token}"));
        let (_, mut socket) = awc::Client::new()
            .ws(url)
            .connect()
            .await
            .expect("the upgrade is accepted");
        let mut messages = Vec::new();
        loop {
            let next = tokio::time::timeout(Duration::from_secs(30), socket.next());
            match next.await.expect("the socket ends within 30 s") {
                Some(Ok(Frame::Text(text))) => {
                    messages.push(String::from_utf8(text.to_vec()).expect("UTF-8 text"));
                }
                Some(Ok(Frame::Close(reason))) => return (messages, reason),
                Some(Ok(_)) => {}
                other => panic!("the socket ended without a close frame: {other:?}"),
            }
        }
    }

    /// The status the upgrade of `/ws/runs/{run_id}` was refused with.
    pub async fn refused_upgrade(&self, run_id: &str, token: &str) -> u16 {
        let url = self.app.url(&format!("/ws/runs/{run_id}"));
        match awc::Client::new()
            .ws(url)
            .bearer_auth(token)
            .connect()
            .await
        {
            Err(awc::error::WsClientError::InvalidResponseStatus(status)) => status.as_u16(),
            Err(other) => panic!("refused with a status, not {other}"),
            Ok(_) => panic!("the upgrade of {run_id} was accepted"),
        }
    }
}

async fn tenant(store: &Store, user: &str, name: &str, key: &str) -> Tenant {
    let workspace = Workspaces::new(store.clone())
        .create(user, name)
        .await
        .expect("the workspace is created");
    let workspace_id = workspace.id.to_string();
    let project = Projects::new(store.clone(), Denial::default())
        .create(&workspace_id, "Main", key)
        .await
        .expect("the project is created");
    let project_id = project.id.to_string();
    let (_, ci_secret) = CiKeys::new(store.clone())
        .create(&workspace_id, &project_id, "runner")
        .await
        .expect("the CI key is created");
    Tenant {
        token: access_token(store, user, Some(&workspace_id)).await,
        workspace_id,
        project_id,
        ci_secret,
    }
}

/// An access token for `user` in a new session opened in `store`, scoped to `workspace` when
/// one is named.
pub async fn access_token(store: &Store, user: &str, workspace: Option<&str>) -> String {
    let keys = JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)]))
        .expect("the test secret is valid");
    let opened = Sessions::new(store.clone())
        .open(user, Duration::from_secs(3600))
        .await
        .expect("the session opens");
    let subject = Subject {
        workspace_id: workspace.map(str::to_owned),
        role: Some("OWNER".into()),
        session: Some(opened.session),
        ..Subject::user(user)
    };
    keys.issue(TokenKind::Access, &subject, Duration::from_secs(3600))
        .expect("the token is signed")
}

/// Files with findings: a print in Rust (a warning) and a password logged in Python (an
/// error).
pub fn sample_files() -> serde_json::Value {
    serde_json::json!([
        {"path": "src/main.rs", "content": "fn main() {\n    println!(\"debug\");\n}\n"},
        {"path": "app.py", "content": "def f(password):\n    logger.info(f\"pw={password}\")\n"},
    ])
}
