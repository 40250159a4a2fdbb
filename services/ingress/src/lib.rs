//! The tunnel-style ingress: one hostname to its origin(s), configured with cloudflared's own
//! ingress file, so the same file could drive a real `cloudflared`; what cloudflared users
//! ask for and cloudflared lacks (several origins per service, health checks, connect retry,
//! drain) lives under one extra top-level key, `estate:`, that cloudflared ignores.
//!
//! It plays the edge too: it terminates TLS (HTTP/2 or HTTP/1.1 by ALPN), an unreachable
//! origin is Cloudflare's `502` with the whole body `error code: 502`, and every HTTPS answer
//! carries HSTS (plain HTTP is redirected to HTTPS, or served without it).
//!
//! # Layout
//! - [`config`]: the file, validated with cloudflared's rules and messages, and the request
//!   path as rules see it.
//! - [`origin`]: origins, their pools (round-robin over those that are up), keep-alive
//!   connections and active health checks.
//! - [`proxy`]: RFC 9112 checks, matching on the normalized path, forwarding with connect
//!   retry (and no request sent in a loop), headers, WebSocket tunnels, the edge's own
//!   400, 502 and 504.
//! - [`gate`]: the bounds on connections and streams, per client and for everyone;
//!   [`cancel_budget`]: a client's cancelled streams over all its connections.
//! - [`server`]: the accept loop and graceful stop; [`idle`]: the HTTP/2 idle timeout; [`workers`]: one thread and runtime per
//!   core on the proxied port ([`worker_index`]: which one is running; [`timer_floor`]: why each
//!   keeps a timer pending); [`application`]: build, serve, drain.
//! - [`admin`]: `/health` and `/metrics` on their own port; [`metrics`]: what they count.
//! - [`tls`]: TLS termination, certificate reload, and what each transport answers.
//! - [`settings`]: the environment; [`cli`]: the command line.

pub mod admin;
pub mod application;
pub mod cancel_budget;
pub mod cli;
pub mod config;
pub mod gate;
pub mod idle;
pub mod metrics;
pub mod origin;
pub mod proxy;
pub mod server;
pub mod settings;
pub mod stall;
pub mod timer_floor;
pub mod tls;
pub mod worker_index;
pub mod workers;

pub use application::Application;
