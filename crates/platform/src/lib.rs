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
//! - [`server`]: `BIND_ADDR`/`PORT`, binding, and the run loop that drains on SIGTERM.
//! - [`bounds`]: bounded analysis answers: the findings kept, their bytes, the `truncated`
//!   marker, and reading an upstream's answer within a size bound.
//! - [`cli`]: the shared command line (`--healthcheck`, `--help`).
//! - [`envelope`]: the `{"error","message"}` envelope and its 500 form (analyzer, ai-service,
//!   mcp-server).
//! - [`health`]: the health handler every service mounts (503 once a stop is announced).
//! - [`metrics`]: the Prometheus exposition response.
//! - [`panic`]: the last-resort layer turning a panic into the service's 500 envelope;
//!   [`reference`]: the `err-xxxxxxxx` references such a 500 carries.
//! - [`rejection`]: status, code and message for a request refused before its handler
//!   (bad body, wrong content type, bad path or query).
//! - [`jwt`]: the estate's HS256 tokens: the start-up guard on `SECURITY_JWT_SECRET_KEY`,
//!   one HKDF-derived key per [`TokenKind`], issuing, verifying and the bearer header.
//! - [`cors`]: the `CORS_ALLOWED_ORIGINS` allow-list and the actix-cors layer, mounted outermost
//!   but for the request log.
//! - [`request_id`]: the `x-request-id` a request is followed by, minted or kept when
//!   well-formed; [`request_log`]: the outermost layer that gives each request its id, its
//!   span and its one log line, and echoes the id.
//! - [`client_ip`]: the client address behind the `TRUSTED_PROXIES` (rightmost untrusted
//!   `X-Forwarded-For` hop; the peer otherwise); [`client_key`]: the key a per-address
//!   budget is kept under (IPv6 by its `RATE_LIMIT_IPV6_PREFIX` network).

pub mod bounds;
pub mod cli;
pub mod client_ip;
pub mod client_key;
pub mod config;
pub mod cors;
pub mod envelope;
pub mod health;
pub mod jwt;
pub mod metrics;
pub mod panic;
pub mod reference;
pub mod rejection;
pub mod request_id;
pub mod request_log;
pub mod server;
pub mod shutdown;
pub mod telemetry;

pub use cli::{ServiceInfo, StartFailure};
pub use client_ip::TrustedProxies;
pub use client_key::ClientIp;
pub use config::{ConfigError, EXIT_CONFIG, Env, MapEnv, ProcessEnv};
pub use cors::CorsConfig;
pub use jwt::{Claims, JwtError, JwtKeys, Subject, TokenKind};
pub use reference::ErrorReference;
pub use rejection::Rejection;
pub use request_id::RequestId;
pub use request_log::RequestLog;
pub use server::ListenConfig;
pub use shutdown::StopSignal;
