//! The real estate behind a chat turn, in-process: the analyzer, and the backend (embedded
//! store in a temporary directory, the same JWT secret) whose EXPENSIVE endpoints the
//! ai-service calls with each user's own bearer: an access token of a session the backend
//! holds, since it refuses a token of no live session.

use crate::helpers::SECRET;
use backend::auth::sessions::Sessions;
use backend::store::Store;
use limiter::FakeClock;
use platform::MapEnv;
use platform::jwt::{JwtKeys, Subject, TokenKind};
use std::sync::Arc;
use std::time::Duration;

const ANALYZER_TOKEN: &str = "test-analyzer-token-0123456789";

/// A running backend; its data directory lives as long as this does.
pub struct Backend {
    pub base: String,
    store: Store,
    _data: tempfile::TempDir,
}

impl Backend {
    /// An access token of `user` in a new session of this backend, valid for an hour.
    pub async fn token(&self, user: &str) -> String {
        let hour = Duration::from_secs(3600);
        let opened = Sessions::new(self.store.clone())
            .open(user, hour)
            .await
            .expect("the session opens");
        let subject = Subject {
            session: Some(opened.session),
            ..Subject::user(user)
        };
        JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)]))
            .expect("the test secret is valid")
            .issue(TokenKind::Access, &subject, hour)
            .expect("the token is signed")
    }

    /// Ends every session of `user`, as a password reset on the backend does.
    pub async fn end_sessions(&self, user: &str) {
        Sessions::new(self.store.clone())
            .end_all(user)
            .await
            .expect("the sessions end");
    }
}

/// The bounds tests count on the findings bound deciding; a debug build on a loaded machine
/// would meet the analyzer's 5 s default deadline first and answer `"reason":"deadline"`.
const DEADLINE: (&str, &str) = ("ANALYZE_DEADLINE_MS", "60000");

/// The real analyzer on a free port; its base URL.
pub fn spawn_analyzer() -> String {
    let env: MapEnv = [("ANALYZER_TOKEN", ANALYZER_TOKEN), ("PORT", "0"), DEADLINE]
        .into_iter()
        .collect();
    let config = analyzer::AnalyzerConfig::from_env(&env).expect("test settings are valid");
    let app = analyzer::Application::build(config).expect("the analyzer builds");
    let base = format!("http://127.0.0.1:{}", app.port());
    actix_web::rt::spawn(app.into_server());
    base
}

/// The real backend in front of a real analyzer, with `overrides`, on a frozen clock (so an
/// EXPENSIVE budget of `n/1h` refuses the `n+1`-th call with an exact wait).
pub fn spawn_backend(overrides: &[(&str, &str)]) -> Backend {
    let data = tempfile::tempdir().expect("a temporary data directory");
    let data_dir = data.path().to_string_lossy().into_owned();
    let analyzer = spawn_analyzer();
    let mut settings = vec![
        ("SECURITY_JWT_SECRET_KEY", SECRET),
        ("PORT", "0"),
        ("DATA_DIR", data_dir.as_str()),
        ("ANALYZER_URL", analyzer.as_str()),
        ("ANALYZER_TOKEN", ANALYZER_TOKEN),
    ];
    settings.extend_from_slice(overrides);
    let env: MapEnv = settings.into_iter().collect();
    let config = backend::BackendConfig::from_env(&env).expect("test settings are valid");
    let app = backend::Application::build_with_clock(config, Arc::new(FakeClock::new()))
        .expect("the backend builds");
    let base = format!("http://127.0.0.1:{}", app.port());
    let store = app.state().store.clone();
    actix_web::rt::spawn(app.into_server());
    Backend {
        base,
        store,
        _data: data,
    }
}
