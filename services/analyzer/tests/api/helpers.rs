//! `TestApp`: the real analyzer on a free port, with a fake clock and its own settings.

use analyzer::{AnalyzerConfig, Application};
use platform::MapEnv;
use serde_json::Value;
use std::sync::Arc;

pub const TOKEN: &str = "test-analyzer-token-0123456789";

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
    /// The analyzer with the default settings plus `overrides`.
    pub async fn spawn(overrides: &[(&str, &str)]) -> Self {
        let mut settings = vec![("ANALYZER_TOKEN", TOKEN), ("PORT", "0")];
        settings.extend_from_slice(overrides);
        let env: MapEnv = settings.into_iter().collect();
        let config = AnalyzerConfig::from_env(&env).expect("test settings are valid");
        let app = testkit::TestApp::spawn(|clock| {
            let app = Application::build_with_clock(config, Arc::new(clock.clone()))
                .expect("the analyzer builds");
            (app.port(), app.into_server())
        });
        Self { app }
    }

    /// A request with the token.
    pub fn authed(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.client
            .request(method, self.url(path))
            .header("x-analyzer-token", TOKEN)
    }

    /// POST raw text as JSON, with the token.
    pub async fn post_raw(&self, path: &str, body: &str) -> reqwest::Response {
        self.authed(reqwest::Method::POST, path)
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await
            .expect("the analyzer answers")
    }

    /// POST a JSON value, with the token.
    pub async fn post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.post_raw(path, &body.to_string()).await
    }

    /// GET with the token.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.authed(reqwest::Method::GET, path)
            .send()
            .await
            .expect("the analyzer answers")
    }
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
