//! The tools: each does real work through the analyzer or the backend.
//!
//! A tool that cannot do its work answers a result with `isError: true` and a sentence the
//! agent can act on (the upstream is down, rate limiting, refused the token, the arguments are
//! wrong); only an unknown tool name is a protocol error (-32602, in [`crate::mcp::methods`]).
//! A successful result carries the upstream's JSON as `structuredContent` and, for clients that
//! read only text, the same JSON serialised in one text block.
//!
//! # Layout
//! - [`catalog`]: names, descriptions and input schemas, as `tools/list` shows them.
//! - [`analysis`]: `list_analysis_types`, `analyze_snippet`, `validate_rule` (analyzer).
//! - [`projects`]: `list_projects` (backend, with the caller's bearer).

pub mod analysis;
pub mod catalog;
pub mod projects;

use crate::identity::Caller;
use crate::state::AppState;
use crate::upstream::{Reply, Unreachable};
use platform::bounds::BodyError;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// What a tool call produced.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    /// The payload of a success; `None` for a failure.
    pub structured: Option<Value>,
    /// The text block.
    pub text: String,
}

impl ToolResult {
    /// A success carrying `structured`.
    pub fn ok(structured: Value) -> Self {
        Self {
            text: structured.to_string(),
            structured: Some(structured),
        }
    }

    /// A failure the agent reads.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            structured: None,
            text: message.into(),
        }
    }

    /// True for a failure.
    pub fn is_error(&self) -> bool {
        self.structured.is_none()
    }

    /// The `tools/call` result.
    pub fn to_json(&self) -> Value {
        let mut result = json!({ "content": [{ "type": "text", "text": self.text }] });
        if let (Some(structured), Some(object)) = (&self.structured, result.as_object_mut()) {
            object.insert("structuredContent".to_owned(), structured.clone());
        }
        if let Some(object) = result.as_object_mut() {
            object.insert("isError".to_owned(), json!(self.is_error()));
        }
        result
    }
}

/// Runs tool `name`; `None` when there is no such tool.
pub async fn call(
    state: &AppState,
    caller: &Caller,
    name: &str,
    arguments: Map<String, Value>,
) -> Option<ToolResult> {
    let result = match name {
        catalog::LIST_ANALYSIS_TYPES => analysis::list_types(state, arguments).await,
        catalog::ANALYZE_SNIPPET => analysis::analyze(state, arguments).await,
        catalog::VALIDATE_RULE => analysis::validate_rule(state, arguments).await,
        catalog::LIST_PROJECTS => projects::list(state, caller, arguments).await,
        _ => return None,
    };
    state.tool_metrics.record(name, result.is_error());
    Some(result)
}

/// The arguments as `T`, or the failure that tells the agent what is wrong with them.
pub fn arguments<T: DeserializeOwned>(arguments: Map<String, Value>) -> Result<T, ToolResult> {
    serde_json::from_value(Value::Object(arguments))
        .map_err(|error| ToolResult::error(format!("invalid arguments: {error}")))
}

/// The body of a 200, or the failure the agent should see for any other answer.
pub fn success_body(answer: Result<Reply, Unreachable>) -> Result<Value, ToolResult> {
    let reply = answer.map_err(|unreachable| {
        log_unreachable(&unreachable);
        ToolResult::error(match unreachable.cause {
            BodyError::TooLarge { limit } => format!(
                "the {}'s answer is larger than {limit} bytes; ask for less (a smaller snippet, \
                 fewer analysis types)",
                unreachable.service
            ),
            BodyError::Transport(_) => format!(
                "the {} did not answer; try again in a little while",
                unreachable.service
            ),
        })
    })?;
    if reply.status == 200 {
        return Ok(reply.body);
    }
    Err(ToolResult::error(refusal_text(&reply)))
}

/// What a non-200 answer means for the agent.
pub fn refusal_text(reply: &Reply) -> String {
    match (reply.status, reply.retry_after) {
        (429 | 503, Some(seconds)) => {
            format!("the upstream is limiting calls; retry in {seconds} second(s)")
        }
        (status, _) if status >= 500 => {
            format!("the upstream failed (HTTP {status}); try again in a little while")
        }
        (status, _) => format!("refused (HTTP {status}): {}", reply.message()),
    }
}

fn log_unreachable(unreachable: &Unreachable) {
    tracing::warn!(
        service = unreachable.service,
        cause = %unreachable.cause,
        "an upstream did not answer a tool call"
    );
}
