//! What every estate service needs to be a citizen of the estate: settings read from the
//! environment, logging, and the stop signal that starts a drain.
//!
//! A service's `main` uses all three in order: [`telemetry::init`], then its typed config
//! through [`config::Env`] (exit [`config::EXIT_CONFIG`] with the [`config::ConfigError`]'s
//! message on a bad value), then it runs until [`shutdown::signal`] resolves and drains.
//!
//! # Layout
//! - [`config`]: the [`Env`] trait, [`ProcessEnv`] and [`MapEnv`], typed helpers (strings,
//!   integers, strict booleans, limiter budgets) and [`ConfigError`].
//! - [`telemetry`]: the global `tracing` subscriber (`RUST_LOG`, `LOG_FORMAT`).
//! - [`shutdown`]: a future that resolves on SIGTERM or Ctrl-C.

pub mod config;
pub mod shutdown;
pub mod telemetry;

pub use config::{ConfigError, EXIT_CONFIG, Env, MapEnv, ProcessEnv};
pub use shutdown::StopSignal;
