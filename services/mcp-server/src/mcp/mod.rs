//! MCP over Streamable HTTP at `POST /mcp`, written on `serde_json` rather than `rmcp`: rmcp's
//! HTTP transport is a tower service, and putting it behind actix-web's origin guard, bearer
//! check and limiter would take a second HTTP stack or an adapter larger than this module.
//!
//! Two eras are served from one endpoint, told apart by the `MCP-Protocol-Version` header:
//! - the handshake era (2024-11-05 … 2025-11-25; no header means 2025-03-26): `initialize`,
//!   `notifications/initialized` (202), `ping`, `tools/list`, `tools/call`;
//! - the stateless 2026-07-28 revision: `server/discover`, `tools/list`, `tools/call`, each
//!   request carrying its own `_meta` envelope, checked against the routing headers.
//!
//! The server keeps no session: it never issues `Mcp-Session-Id` (the Streamable HTTP transport
//! makes sessions optional), so any replica answers any request and `GET`/`DELETE /mcp` are 405.
//!
//! # Layout
//! - [`jsonrpc`]: messages, error codes, response shapes.
//! - [`envelope`]: the 2026-07-28 per-request envelope and its header checks.
//! - [`methods`]: what each method answers, per era.
//! - [`transport`]: the HTTP side: content type, `Accept`, body limit, era routing, statuses.

pub mod envelope;
pub mod jsonrpc;
pub mod methods;
pub mod transport;

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";
/// The header naming the protocol revision of a request.
pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
/// The protocol's own request headers a browser client sends (allowed by the CORS layer).
pub const REQUEST_HEADERS: [&str; 4] = [
    PROTOCOL_VERSION_HEADER,
    "mcp-method",
    "mcp-name",
    "mcp-session-id",
];
/// Revisions reached through the `initialize` handshake, oldest first.
pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Stateless revisions (per-request envelope, `server/discover`).
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];
/// What `initialize` offers when the client asks for a revision it does not know.
pub const LATEST_HANDSHAKE_VERSION: &str = "2025-11-25";
/// The revision a request without the header is taken to speak (the transport spec's rule).
pub const HEADERLESS_VERSION: &str = "2025-03-26";

/// Which protocol era a request belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Era {
    /// `initialize`-handshake revisions, or no header.
    Handshake,
    /// 2026-07-28: this revision.
    Modern(&'static str),
}

/// Every revision served, oldest first (what a version refusal lists).
pub fn supported_versions() -> Vec<&'static str> {
    HANDSHAKE_VERSIONS
        .iter()
        .chain(MODERN_VERSIONS.iter())
        .copied()
        .collect()
}

/// The era a `MCP-Protocol-Version` header value selects; `Err` for a revision not served.
pub fn era_of(header: Option<&str>) -> Result<Era, String> {
    match header {
        None => Ok(Era::Handshake),
        Some(version) if HANDSHAKE_VERSIONS.contains(&version) => Ok(Era::Handshake),
        Some(version) => MODERN_VERSIONS
            .iter()
            .find(|modern| **modern == version)
            .map(|modern| Era::Modern(modern))
            .ok_or_else(|| version.to_owned()),
    }
}

/// Who this server says it is.
pub fn server_info() -> serde_json::Value {
    serde_json::json!({
        "name": "estate-mcp-server",
        "title": "Estate MCP server",
        "version": env!("CARGO_PKG_VERSION"),
    })
}

/// What an agent should know before it calls (sent with `initialize` and `server/discover`).
pub const INSTRUCTIONS: &str = "Tools of the estate: static analysis of logging code through \
    the analyzer (list_analysis_types, analyze_snippet, validate_rule) and the caller's \
    projects through the backend (list_projects, which needs an access token scoped to a \
    workspace in Authorization: Bearer). Every call spends one token of the caller's mcp \
    budget (600 per 60 s by default); a refusal is error -32010 with HTTP 429 and Retry-After. \
    The skills package at GET /skills/package explains the tools, their limits and how to back \
    off.";
