//! The framework-free core of every estate binary: settings read from the environment,
//! logging, the shared command line, the stop signal, where to listen, and the request id and
//! request-line fields the services and the edge write alike. The actix services get it
//! through `platform` (which re-exports it beside the actix service stack); the hyper-based
//! ingress and the command-line tools use it directly, without compiling a web framework.
//!
//! A binary's `main` uses it in order: [`telemetry::init`], then its typed config through
//! [`config::Env`] (exit [`config::EXIT_CONFIG`] with the [`config::ConfigError`]'s message on
//! a bad value), then it runs until [`shutdown::signal`] resolves and drains.
//!
//! # Layout
//! - [`config`]: the [`Env`] trait, [`ProcessEnv`] and [`MapEnv`], typed helpers (strings,
//!   integers, strict booleans, any value its own type parses, such as a limiter budget) and
//!   [`ConfigError`].
//! - [`telemetry`]: the global `tracing` subscriber (`RUST_LOG`, `LOG_FORMAT`).
//! - [`cli`]: the shared command line (`--healthcheck`, `--help`) and [`StartFailure`].
//! - [`shutdown`]: a future that resolves on SIGTERM or Ctrl-C.
//! - [`listen`]: `BIND_ADDR`, `PORT`, `SHUTDOWN_DELAY_MS`.
//! - [`trusted_proxies`]: `TRUSTED_PROXIES` and the client address behind them; [`cors`]:
//!   `CORS_ALLOWED_ORIGINS` and its default.
//! - [`request_id`]: the `x-request-id` a request is followed by; [`log_fields`]: how a request
//!   line writes durations and client text; [`metrics`]: the metrics answer's content type.
//! - [`subscriber`]: one client as a budget sees it (an IPv4 address, an IPv6 /64).
//! - [`bounds`]: reading an upstream's answer (another service, a language model provider)
//!   within a size bound.

pub mod bounds;
pub mod cli;
pub mod config;
pub mod cors;
pub mod listen;
pub mod log_fields;
pub mod metrics;
pub mod request_id;
pub mod shutdown;
pub mod subscriber;
pub mod telemetry;
pub mod trusted_proxies;

pub use cli::{ServiceInfo, StartFailure};
pub use config::{ConfigError, EXIT_CONFIG, Env, MapEnv, Parsed, ProcessEnv};
pub use listen::ListenConfig;
pub use request_id::RequestId;
pub use shutdown::StopSignal;
pub use trusted_proxies::TrustedProxies;
