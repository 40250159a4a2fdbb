//! The rest of the estate, in-process: the real analyzer, and the real backend holding two
//! tenants and their sessions (written to its store before it opens it), each on a free port.

use crate::helpers::{ANALYZER_TOKEN, SECRET, keys};
use backend::auth::sessions::Sessions;
use backend::store::Store;
use backend::tenancy::{Denial, Projects, Workspaces};
use platform::MapEnv;
use platform::jwt::{Subject, TokenKind};
use std::time::Duration;

/// The bounds tests count on the findings bound deciding; a debug build on a loaded machine
/// would meet the analyzer's 5 s default deadline first and answer `"reason":"deadline"`.
const DEADLINE: (&str, &str) = ("ANALYZE_DEADLINE_MS", "60000");

/// The real analyzer with default settings but a long deadline; its base URL.
pub fn spawn_analyzer() -> String {
    let env: MapEnv = [("ANALYZER_TOKEN", ANALYZER_TOKEN), ("PORT", "0"), DEADLINE]
        .into_iter()
        .collect();
    let config = analyzer::AnalyzerConfig::from_env(&env).expect("analyzer settings are valid");
    let app = analyzer::Application::build(config).expect("the analyzer builds");
    let base = format!("http://127.0.0.1:{}", app.port());
    actix_web::rt::spawn(app.into_server());
    base
}

/// A user with a workspace holding projects, and the user's scoped and unscoped tokens.
pub struct Tenant {
    pub workspace_id: String,
    pub token: String,
    pub unscoped_token: String,
}

/// The backend with two tenants.
pub struct Backend {
    pub base: String,
    pub alice: Tenant,
    pub bob: Tenant,
    store: Store,
    _data: tempfile::TempDir,
}

impl Backend {
    /// Ends every session of `user`, as a password reset on the backend does.
    pub async fn end_sessions(&self, user: &str) {
        Sessions::new(self.store.clone())
            .end_all(user)
            .await
            .expect("the sessions end");
    }
}

/// The real backend on a data directory holding Alice (projects ALP and ALQ) and Bob (BRV).
pub async fn spawn_backend() -> Backend {
    let data = tempfile::tempdir().expect("a temporary data directory");
    let (alice, bob) = {
        // redb allows one open handle: this one is dropped before the backend opens it.
        let store = Store::embedded(data.path()).expect("the embedded store opens");
        let alice = tenant(&store, "user-alice", "Alpha", &["ALP", "ALQ"]).await;
        let bob = tenant(&store, "user-bob", "Bravo", &["BRV"]).await;
        (alice, bob)
    };
    let data_dir = data.path().to_string_lossy().into_owned();
    let env: MapEnv = [
        ("SECURITY_JWT_SECRET_KEY", SECRET),
        ("PORT", "0"),
        ("DATA_DIR", data_dir.as_str()),
    ]
    .into_iter()
    .collect();
    let config = backend::BackendConfig::from_env(&env).expect("backend settings are valid");
    let app = backend::Application::build(config).expect("the backend builds");
    let base = format!("http://127.0.0.1:{}", app.port());
    let store = app.state().store.clone();
    actix_web::rt::spawn(app.into_server());
    Backend {
        base,
        alice,
        bob,
        store,
        _data: data,
    }
}

async fn tenant(store: &Store, user: &str, name: &str, keys: &[&str]) -> Tenant {
    let workspace = Workspaces::new(store.clone())
        .create(user, name)
        .await
        .expect("the workspace is created");
    let workspace_id = workspace.id.to_string();
    for key in keys {
        Projects::new(store.clone(), Denial::default())
            .create(&workspace_id, &format!("Project {key}"), key)
            .await
            .expect("the project is created");
    }
    Tenant {
        token: session_token(store, user, Some(&workspace_id)).await,
        unscoped_token: session_token(store, user, None).await,
        workspace_id,
    }
}

/// An access token of `user` in a session opened in the backend's `store` (the backend refuses
/// a token of no live session), scoped to `workspace` when one is named, valid for an hour.
async fn session_token(store: &Store, user: &str, workspace: Option<&str>) -> String {
    let hour = Duration::from_secs(3600);
    let opened = Sessions::new(store.clone())
        .open(user, hour)
        .await
        .expect("the session opens");
    let subject = Subject {
        workspace_id: workspace.map(str::to_owned),
        role: Some("OWNER".to_owned()),
        session: Some(opened.session),
        ..Subject::user(user)
    };
    keys()
        .issue(TokenKind::Access, &subject, hour)
        .expect("the token is signed")
}
