//! `TestApp`: the real backend on a free port, with its own data directory and a fake clock.

use backend::{Application, BackendConfig};
use limiter::FakeClock;
use platform::MapEnv;
use std::sync::Arc;

/// A strong test secret (64 hex characters).
pub const SECRET: &str = "4f1c9a7e2b8d6053a1e4c7b9d2f608e35a7c1b9e4d2f6a8c0b3e5d7f9a1c3e5b";

pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub clock: FakeClock,
    _data: tempfile::TempDir,
}

impl TestApp {
    pub async fn spawn(overrides: &[(&str, &str)]) -> Self {
        let data = tempfile::tempdir().expect("a temporary data directory");
        let data_dir = data.path().to_string_lossy().into_owned();
        let mut settings = vec![
            ("SECURITY_JWT_SECRET_KEY", SECRET),
            ("PORT", "0"),
            ("DATA_DIR", data_dir.as_str()),
        ];
        settings.extend_from_slice(overrides);
        let env: MapEnv = settings.into_iter().collect();
        let config = BackendConfig::from_env(&env).expect("test settings are valid");
        let clock = FakeClock::new();
        let app = Application::build_with_clock(config, Arc::new(clock.clone()))
            .expect("the backend builds");
        let base = format!("http://127.0.0.1:{}", app.port());
        actix_web::rt::spawn(app.into_server());
        Self {
            base,
            client: reqwest::Client::new(),
            clock,
            _data: data,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
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
