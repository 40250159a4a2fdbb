//! The ai-service: chat over the user's own code findings, and public log analysis, behind
//! per-subject windows (docs/DESIGN.md, "The ai-service").
//!
//! A chat turn forwards the END USER'S bearer to the backend's EXPENSIVE endpoints, so each
//! user spends their own analysis budget there, then asks the language model (paced by the
//! outbound pacer) or, with none configured, answers deterministically and says so. A
//! dependency that is down or slow degrades the answer, never fails it.
//!
//! # Layout
//! - [`config`]: settings; [`application`]: build, bind, serve, drain; [`state`]: shared state.
//! - [`errors`]: the one error type and envelope; [`metrics`]: the service's counters.
//! - [`limits`]: the chat window and backstop, and the per-address log-analysis group.
//! - [`routes`]: the route table; [`chat`]: `POST /api/chat` (gate, code blocks, backend
//!   call, prompt, streaming); [`logs`]: `POST /api/log-analysis` (parsing, levels, error
//!   signatures, first failure).

pub mod application;
pub mod chat;
pub mod config;
pub mod errors;
pub mod limits;
pub mod logs;
pub mod metrics;
pub mod routes;
pub mod state;

pub use application::Application;
pub use config::AiConfig;

/// The ai-service on the command line.
pub const SERVICE: platform::ServiceInfo = platform::ServiceInfo {
    name: "ai-service",
    default_port: config::DEFAULT_PORT,
    health_path: routes::HEALTH_PATH,
    about: "chat over the user's own findings and public log analysis",
};
