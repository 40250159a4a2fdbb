//! The estate's MCP server: MCP over Streamable HTTP at `POST /mcp` (revision 2025-11-25 with
//! its `initialize` handshake, and the stateless 2026-07-28 revision with `server/discover`),
//! tools that do their work through the analyzer and the backend, the estate's agent skills as
//! a package, and an installer script that registers the server with an MCP client.
//!
//! A bearer access token names the caller (an anonymous caller is allowed; an invalid token is
//! 401), `Origin` is checked against the allow-list (403), and the limiter is on by default:
//! an opt-in limiter is one nobody opted into.
//!
//! # Layout
//! - [`config`]: settings; [`public_url`]: the URL the installer writes; [`application`]:
//!   build, bind, serve, drain; [`state`]: shared handler state; [`metrics`]: tool counters.
//! - [`guard`]: the stack's guard, [`origin`] (the `Origin` check) then [`identity`] (the
//!   bearer check and the [`identity::Caller`]);
//!   [`limits`]: groups, allow-list, key, refusal bodies; [`errors`]: the envelopes.
//! - [`mcp`]: JSON-RPC, the two protocol eras, the HTTP transport.
//! - [`tools`]: the tools; [`upstream`]: the analyzer and backend clients.
//! - [`skills`]: the packaged skills; [`routes`]: one module per resource.

pub mod application;
pub mod config;
pub mod errors;
pub mod guard;
pub mod identity;
pub mod limits;
pub mod mcp;
pub mod metrics;
pub mod origin;
pub mod public_url;
pub mod routes;
pub mod skills;
pub mod state;
pub mod tools;
pub mod upstream;

pub use application::Application;
pub use config::McpConfig;

/// The MCP server on the command line.
pub const SERVICE: platform::ServiceInfo = platform::ServiceInfo {
    name: "mcp-server",
    default_port: config::DEFAULT_PORT,
    health_path: "/health",
    about: "MCP over Streamable HTTP at /mcp, the skills package and the installer",
};
