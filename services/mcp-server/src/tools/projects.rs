//! `list_projects`: the caller's projects, read from the backend AS the caller.
//!
//! The caller's own (verified) bearer is forwarded, never a credential of this server's: the
//! backend then applies its own tenant fence (the workspace comes from that token only), role
//! floors and budgets to the person, and this server can read nothing its caller could not.

use super::{ToolResult, arguments, success_body};
use crate::identity::Caller;
use crate::state::AppState;
use serde::Deserialize;
use serde_json::{Map, Value};

/// `list_projects` takes nothing.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArguments {}

/// What an anonymous caller is told.
pub const NEEDS_BEARER: &str = "list_projects reads the caller's own projects: call /mcp with \
     Authorization: Bearer <an access token scoped to a workspace>";

/// `GET /api/v1/projects` with the caller's bearer.
pub async fn list(state: &AppState, caller: &Caller, given: Map<String, Value>) -> ToolResult {
    if let Err(failure) = arguments::<NoArguments>(given) {
        return failure;
    }
    let Some(bearer) = &caller.bearer else {
        return ToolResult::error(NEEDS_BEARER);
    };
    let answer = state.upstream.backend_get("/api/v1/projects", bearer).await;
    success_body(answer).map_or_else(|failure| failure, ToolResult::ok)
}
