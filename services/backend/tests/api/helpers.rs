//! `TestApp`: the real backend as `testkit::TestApp` runs it, with its own data directory, its
//! store and its account mail.

use backend::auth::mail_jobs::MailJobs;
use backend::store::{FaultSwitch, Store};
use backend::{Application, BackendConfig};
use limiter::FakeClock;
use platform::MapEnv;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest a test waits for the account mail the backend sends in the background; every
/// wait returns as soon as the mail is out (an idle machine takes milliseconds).
pub const MAIL_PATIENCE: Duration = Duration::from_secs(10);

/// A strong test secret (64 hex characters).
pub const SECRET: &str = "4f1c9a7e2b8d6053a1e4c7b9d2f608e35a7c1b9e4d2f6a8c0b3e5d7f9a1c3e5b";

pub struct TestApp {
    app: testkit::TestApp,
    pub faults: FaultSwitch,
    /// The app's own store (the embedded database admits one handle: this is it).
    pub store: Store,
    /// The account-mail jobs, to wait for before reading the outbox.
    pub mail_jobs: MailJobs,
    pub data_dir: PathBuf,
    _data: Option<tempfile::TempDir>,
}

impl std::ops::Deref for TestApp {
    type Target = testkit::TestApp;

    fn deref(&self) -> &testkit::TestApp {
        &self.app
    }
}

impl TestApp {
    /// The backend on a fresh data directory.
    pub async fn spawn(overrides: &[(&str, &str)]) -> Self {
        let data = tempfile::tempdir().expect("a temporary data directory");
        let mut app = Self::spawn_on(data.path(), overrides).await;
        app._data = Some(data);
        app
    }

    /// The backend on an existing data directory (a restart).
    pub async fn spawn_on(data: &Path, overrides: &[(&str, &str)]) -> Self {
        let data_dir = data.to_string_lossy().into_owned();
        let mut settings = vec![
            ("SECURITY_JWT_SECRET_KEY", SECRET),
            ("PORT", "0"),
            ("DATA_DIR", data_dir.as_str()),
        ];
        settings.extend_from_slice(overrides);
        let env: MapEnv = settings.into_iter().collect();
        let config = BackendConfig::from_env(&env).expect("test settings are valid");
        let clock = FakeClock::new();
        let app = build_when_free(config, &clock).await;
        let faults = app.state().store.fault_switch();
        let store = app.state().store.clone();
        let mail_jobs = app.state().auth.mail_jobs.clone();
        let port = app.port();
        Self {
            app: testkit::TestApp::run(clock, port, app.into_server()),
            faults,
            store,
            mail_jobs,
            data_dir: data.to_path_buf(),
            _data: None,
        }
    }

    /// Stops the server and lets go of its store (the embedded database can be reopened);
    /// hands back the data directory, which lives as long as the caller keeps it.
    pub async fn stop(self) -> Option<tempfile::TempDir> {
        self.app.stop().await;
        self._data
    }

    /// The mail the backend sent so far, once every account-mail job written so far is done
    /// (or [`MAIL_PATIENCE`] has passed: a job the store cannot take may wait for longer).
    pub async fn outbox(&self) -> Vec<serde_json::Value> {
        let started = Instant::now();
        while !self.mail_jobs.settled().await.unwrap_or(false) && started.elapsed() < MAIL_PATIENCE
        {
            actix_web::rt::time::sleep(Duration::from_millis(5)).await;
        }
        let text = std::fs::read_to_string(self.data_dir.join("outbox.jsonl")).unwrap_or_default();
        text.lines()
            .map(|line| serde_json::from_str(line).expect("an outbox line"))
            .collect()
    }

    /// POST JSON, optionally as forwarded for `client_ip`.
    pub async fn post(
        &self,
        path: &str,
        body: &serde_json::Value,
        client_ip: Option<&str>,
    ) -> reqwest::Response {
        let mut request = self.client.post(self.url(path)).json(body);
        if let Some(ip) = client_ip {
            request = request.header("x-forwarded-for", ip);
        }
        request.send().await.expect("the backend answers")
    }
}

/// Builds the backend, waiting (at most 10 s) while a stopped predecessor's workers still
/// hold the embedded store: one process owns it at a time, and `stop` can return before every
/// worker has let go.
async fn build_when_free(config: BackendConfig, clock: &FakeClock) -> Application {
    let started = std::time::Instant::now();
    loop {
        match Application::build_with_clock(config.clone(), Arc::new(clock.clone())) {
            Ok(app) => return app,
            Err(error)
                if error.to_string() == "store unavailable" && started.elapsed().as_secs() < 10 =>
            {
                actix_web::rt::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(error) => panic!("the backend builds: {error:?}"),
        }
    }
}

pub fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().expect("an ASCII header").to_owned())
}

pub fn fail_body(secs: u64) -> String {
    format!(
        r#"{{"status":"FAIL","message":"Too many requests. Please try again in {secs} second(s)."}}"#
    )
}
