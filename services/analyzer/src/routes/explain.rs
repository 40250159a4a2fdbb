//! `POST /llm/explain`: explains a finding, through the configured language model or, with
//! none configured, from the analysis type's own description and fix hint (deterministic).

use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use llm::{ChatMessage, ChatRequest, Provider, Role};
use serde::Deserialize;
use serde_json::json;

/// The finding to explain (the fields `/analyze` returns; only `ruleId` and `message` needed).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FindingInput {
    rule_id: String,
    message: String,
    path: Option<String>,
    line: Option<u32>,
    snippet: Option<String>,
}

/// The request body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplainRequest {
    finding: FindingInput,
}

/// Explains one finding.
pub async fn explain(
    state: web::Data<AppState>,
    request: web::Json<ExplainRequest>,
) -> Result<HttpResponse, ApiError> {
    let finding = &request.finding;
    if state.llm.provider() == Provider::Local {
        let body = json!({ "explanation": local_explanation(finding), "provider": Provider::Local, "model": "local" });
        return Ok(HttpResponse::Ok().json(body));
    }
    let chat = ChatRequest {
        messages: vec![
            ChatMessage {
                role: Role::System,
                content: SYSTEM_PROMPT.to_owned(),
            },
            ChatMessage {
                role: Role::User,
                content: describe(finding),
            },
        ],
        max_tokens: Some(400),
        temperature: Some(0.2),
    };
    let reply = state
        .llm
        .chat(&chat)
        .await
        .map_err(ApiError::LlmUnavailable)?;
    Ok(HttpResponse::Ok().json(
        json!({ "explanation": reply.content, "provider": reply.provider, "model": reply.model }),
    ))
}

const SYSTEM_PROMPT: &str = "You review logging code. Explain in three sentences why the finding matters and how to fix it.";

fn describe(finding: &FindingInput) -> String {
    let place = match (&finding.path, finding.line) {
        (Some(path), Some(line)) => format!(" at {path}:{line}"),
        (Some(path), None) => format!(" in {path}"),
        _ => String::new(),
    };
    let snippet = finding
        .snippet
        .as_deref()
        .map(|code| format!("\nCode: {code}"))
        .unwrap_or_default();
    format!(
        "Finding {}{place}: {}{snippet}",
        finding.rule_id, finding.message
    )
}

fn local_explanation(finding: &FindingInput) -> String {
    let known = logscan::analysis_types()
        .iter()
        .find(|kind| kind.id == finding.rule_id);
    match known {
        Some(kind) => format!(
            "{}: {} This finding says: {} (No language model is configured; this explanation comes from the rule's own description.)",
            kind.name, kind.description, finding.message
        ),
        None => format!(
            "Custom rule {}: {} (No language model is configured; this explanation repeats the rule's message.)",
            finding.rule_id, finding.message
        ),
    }
}
