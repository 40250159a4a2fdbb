//! The analyzer for the backend's tests that scan: the real one, default settings and the
//! test token and a long deadline, on a free port; or the address of one that is not there.

/// The token the test analyzer takes and the backend presents.
pub const ANALYZER_TOKEN: &str = "test-analyzer-token-0123456789";

/// The bounds tests count on the findings bound deciding; a debug build on a loaded machine
/// would meet the analyzer's 5 s default deadline first and answer `"reason":"deadline"`.
const DEADLINE: (&str, &str) = ("ANALYZE_DEADLINE_MS", "60000");

/// The real analyzer on a free port (default settings but the deadline); its base URL.
pub fn spawn_analyzer() -> String {
    let env: platform::MapEnv = [("ANALYZER_TOKEN", ANALYZER_TOKEN), ("PORT", "0"), DEADLINE]
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
