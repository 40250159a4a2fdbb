//! The estate under test: the real backend (embedded store in a temporary directory, the
//! system clock: the probe measures real time) and the real analyzer, each on a free port.

use probe::Settings;
use probe::estate::Targets;
use probe::expect::Expectations;
use probe::service::Service;
use std::collections::BTreeMap;
use std::time::Duration;

/// A strong test secret (64 hex characters).
const SECRET: &str = "9c2e5a7b1d4f6083b5e7c9a1d3f5b7e9021c4e6a8b0d2f4a6c8e0b2d4f6a8c0e";
/// The analyzer's token in these tests.
pub const TOKEN: &str = "probe-test-analyzer-token-0123456789";

/// Both services, running until the test ends.
pub struct Estate {
    pub backend: String,
    pub analyzer: String,
    _data: tempfile::TempDir,
}

impl Estate {
    pub async fn start() -> Self {
        let data = tempfile::tempdir().expect("a temporary data directory");
        let data_dir = data.path().to_string_lossy().into_owned();
        let env: platform_core::MapEnv = [
            ("SECURITY_JWT_SECRET_KEY", SECRET),
            ("PORT", "0"),
            ("DATA_DIR", data_dir.as_str()),
        ]
        .into_iter()
        .collect();
        let config = backend::BackendConfig::from_env(&env).expect("backend settings");
        let app = backend::Application::build(config).expect("the backend builds");
        let backend = format!("http://127.0.0.1:{}", app.port());
        actix_web::rt::spawn(app.into_server());
        let env: platform_core::MapEnv = [("ANALYZER_TOKEN", TOKEN), ("PORT", "0")]
            .into_iter()
            .collect();
        let config = analyzer::AnalyzerConfig::from_env(&env).expect("analyzer settings");
        let app = analyzer::Application::build(config).expect("the analyzer builds");
        let analyzer = format!("http://127.0.0.1:{}", app.port());
        actix_web::rt::spawn(app.into_server());
        Self {
            backend,
            analyzer,
            _data: data,
        }
    }

    /// Settings for `checks`, each service at its own URL.
    pub fn settings(&self, checks: &[&str]) -> Settings {
        let mut targets = Targets::ingress("http://127.0.0.1:9");
        targets.services = vec![Service::Backend, Service::Analyzer];
        targets.direct = BTreeMap::from([
            (Service::Backend, self.backend.clone()),
            (Service::Analyzer, self.analyzer.clone()),
        ]);
        targets.timeout = Duration::from_secs(30);
        let only: Vec<String> = checks.iter().map(|name| (*name).to_owned()).collect();
        Settings {
            targets,
            expect: Expectations::from_env(&platform_core::MapEnv::default()).expect("defaults"),
            analyzer_token: Some(TOKEN.to_owned()),
            checks: probe::checks::select(&only, &[]).expect("known checks"),
            restart: None,
            commit: Some("test".to_owned()),
        }
    }
}
