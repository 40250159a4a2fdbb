//! The analyzer: token-gated static analysis of logging code, behind the estate's limiter.
//!
//! A scan fans out thousands of `POST /analyze` calls here, so the limiter is on by default
//! (budgets sized so one scan cannot reach them), a client's bad body is a 400 (a 500 would be
//! retried by the caller and could never succeed), and admission control is there for batches
//! that would otherwise interleave on one event loop, but opt-in.
//!
//! # Layout
//! - [`config`]: settings; [`application`]: build, bind, serve, drain.
//! - [`gate`]: the `X-Analyzer-Token` gate; [`limits`]: groups, allow-list, refusal body.
//! - [`errors`]: the one error type and envelope; [`state`]: shared handler state;
//!   [`rules_store`]: stored custom rules.
//! - [`routes`]: one module per resource.

pub mod application;
pub mod config;
pub mod errors;
pub mod gate;
pub mod limits;
pub mod routes;
pub mod rules_store;
pub mod state;

pub use application::Application;
pub use config::AnalyzerConfig;

/// The analyzer on the command line.
pub const SERVICE: platform::ServiceInfo = platform::ServiceInfo {
    name: "analyzer",
    default_port: config::DEFAULT_PORT,
    health_path: gate::HEALTH_PATH,
    about: "token-gated static analysis of logging code",
};
