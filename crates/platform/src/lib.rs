//! The actix service stack of the estate: what makes an actix-web binary a citizen of the
//! estate, on top of the framework-free core (`platform-core`: settings, logging, the command
//! line, the stop signal, the listen address), which it re-exports under the same names so a
//! service depends on this one crate.
//!
//! # Layout
//! - Re-exported from the core: [`config`], [`telemetry`], [`cli`], [`shutdown`], [`listen`],
//!   [`request_id`], [`log_fields`], [`bounds`] (reading an upstream's answer within a size
//!   bound).
//! - [`stack`]: the one actix `App` every service builds: its layers in the estate's order
//!   (request log, CORS, panic layer, the service's guard, limiter, routes).
//! - [`server`]: binding through [`ListenConfig`] and the run loop that drains on SIGTERM.
//! - [`envelope`]: the `{"error","message"}` envelope and its 500 form (analyzer, ai-service,
//!   mcp-server).
//! - [`health`]: the health handler every service mounts (503 once a stop is announced).
//! - [`metrics`]: the Prometheus exposition response.
//! - [`panic`]: the last-resort layer turning a panic into the service's 500 envelope;
//!   [`reference`]: the `err-xxxxxxxx` references such a 500 carries.
//! - [`rejection`]: status, code and message for a request refused before its handler
//!   (bad body, wrong content type, bad path or query).
//! - [`limits`]: [`LimiterSettings`], read once: the keys each limiter tracks and the Redis
//!   replicas share, and the one place a service's limiter builder is finished with them.
//! - [`jwt`]: the estate's HS256 tokens: the start-up guard on `SECURITY_JWT_SECRET_KEY`,
//!   one HKDF-derived key per [`TokenKind`], issuing, verifying and the bearer header.
//! - [`cors`]: the `CORS_ALLOWED_ORIGINS` allow-list and the actix-cors layer, mounted outermost
//!   but for the request log.
//! - [`request_log`]: the outermost layer that gives each request its id, its span and its one
//!   log line, and echoes the id.
//! - [`secret`]: a presented credential compared with the configured one in constant time.
//! - [`client_ip`]: the client address of a request behind the `TRUSTED_PROXIES`;
//!   [`client_key`]: the key a per-address budget is kept under (IPv6 by its
//!   `RATE_LIMIT_IPV6_PREFIX` network).

pub use platform_core::{bounds, cli, config, listen, log_fields, request_id, shutdown, telemetry};

pub mod client_ip;
pub mod client_key;
pub mod cors;
pub mod envelope;
pub mod health;
pub mod jwt;
pub mod limits;
pub mod metrics;
pub mod panic;
pub mod reference;
pub mod rejection;
pub mod request_log;
pub mod secret;
pub mod server;
pub mod stack;

pub use cli::{ServiceInfo, StartFailure};
pub use client_ip::TrustedProxies;
pub use client_key::ClientIp;
pub use config::{ConfigError, EXIT_CONFIG, Env, MapEnv, Parsed, ProcessEnv};
pub use cors::CorsConfig;
pub use jwt::{Claims, JwtError, JwtKeys, Subject, TokenKind};
pub use limits::LimiterSettings;
pub use reference::ErrorReference;
pub use rejection::Rejection;
pub use request_id::RequestId;
pub use request_log::RequestLog;
pub use server::ListenConfig;
pub use shutdown::StopSignal;
pub use stack::Stack;
