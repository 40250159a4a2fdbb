//! The analyzer for the backend's tests that scan: the real one, default settings and the
//! test token, on a free port; or the address of one that is not there.

/// The token the test analyzer takes and the backend presents.
pub const ANALYZER_TOKEN: &str = "test-analyzer-token-0123456789";

/// The real analyzer, default settings, on a free port; its base URL.
pub fn spawn_analyzer() -> String {
    let env: platform::MapEnv = [("ANALYZER_TOKEN", ANALYZER_TOKEN), ("PORT", "0")]
        .into_iter()
        .collect();
    let config = analyzer::AnalyzerConfig::from_env(&env).expect("test settings are valid");
    let app = analyzer::Application::build(config).expect("the analyzer builds");
    let base = format!("http://127.0.0.1:{}", app.port());
    actix_web::rt::spawn(app.into_server());
    base
}

/// The URL of an analyzer that is not there (a port nothing listens on).
pub fn absent_analyzer() -> String {
    format!("http://127.0.0.1:{}", testkit::free_port())
}
