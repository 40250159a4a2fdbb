//! The EXPENSIVE endpoints: real work done by the analyzer, one call each. The public filter
//! meters them per bearer (group `expensive`): the ai-service forwards each user's own token
//! from one address, so an IP key would pool every user into one bucket.
//!
//! - `POST /api/v1/analyzer` `{"files":[…],"analysisTypes"?}`: the analyzer's findings.
//! - `POST /api/v1/code-analysis` `{"code","language","path"?}`: findings for one snippet.
//! - `POST /api/v1/codeFixes` `{"files":[…]}`: only the findings that carry a `fix`, per file.
//! - `POST /api/v1/generator` `{"ruleId","pattern","message","severity"?,"languages"?}`: the
//!   analyzer's verdict on a custom rule (200 as it wrote it, or its 400 in the api envelope).
//!
//! How an analyzer failure reaches the caller is [`AnalyzerFailure`]'s job.
//!
//! Every answer is bounded whatever the analyzer's own settings: the analyzer client reads at
//! most 4 MiB of it, the findings relayed are the first [`MAX_RELAYED_FINDINGS`] taking at
//! most [`MAX_RELAYED_BYTES`], and an answer a bound cut (here or in the analyzer) carries the
//! `truncated` marker with its `reason` and how many were `found`: in its `summary`, or beside
//! its counts where it has none (`codeFixes`, the gatekeeper).

mod failure;

pub(super) use failure::AnalyzerFailure;

use crate::errors::{ApiError, Envelope};
use crate::identity::Authenticated;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use analysis::{AnalyzeAnswer, AnalyzeFile, AnalyzeRequest, Finding, Summary, keep_within};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The most findings one relayed answer carries.
pub const MAX_RELAYED_FINDINGS: usize = 1000;
/// The most bytes the findings of one relayed answer take.
pub const MAX_RELAYED_BYTES: usize = 2 * 1024 * 1024;

/// The path a snippet is analyzed under when the caller names none.
const SNIPPET_PATH: &str = "snippet";

/// Mounts the routes (full paths: a second `/api/v1` scope would shadow the others).
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/analyzer", web::post().to(analyze))
        .route("/api/v1/code-analysis", web::post().to(code_analysis))
        .route("/api/v1/codeFixes", web::post().to(code_fixes))
        .route("/api/v1/generator", web::post().to(generator));
}

/// One file as a caller sends it.
#[derive(Debug, Deserialize)]
pub(super) struct FileBody {
    path: String,
    content: String,
    #[serde(default)]
    language: Option<String>,
}

impl From<FileBody> for AnalyzeFile {
    fn from(file: FileBody) -> Self {
        Self {
            path: file.path,
            content: file.content,
            language: file.language,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AnalyzeBody {
    files: Vec<FileBody>,
    #[serde(default)]
    analysis_types: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct SnippetBody {
    code: String,
    language: String,
    #[serde(default)]
    path: Option<String>,
}

#[derive(Debug, Deserialize)]
struct FilesBody {
    files: Vec<FileBody>,
}

/// A custom rule; forwarded field by field, so the analyzer names what is missing.
#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    severity: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    languages: Option<Vec<String>>,
}

/// One analyzer call for `files`, its findings within the relay's bounds.
pub(super) async fn analyze_files(
    state: &AppState,
    files: Vec<FileBody>,
    analysis_types: Vec<String>,
) -> Result<AnalyzeAnswer, AnalyzerFailure> {
    let batch = AnalyzeRequest {
        files: files.into_iter().map(AnalyzeFile::from).collect(),
        analysis_types,
        rules: Vec::new(),
    };
    let mut reply = state.scans.analyzer.analyze(&batch).await?;
    keep_within(
        &mut reply.findings,
        &mut reply.summary,
        MAX_RELAYED_FINDINGS,
        MAX_RELAYED_BYTES,
    );
    Ok(reply)
}

/// `body` with the `truncated` marker of `summary` beside its own fields, when there is one.
pub(super) fn with_marker(mut body: Map<String, Value>, summary: &Summary) -> Value {
    if let Some(marker) = summary.truncation
        && let Ok(Value::Object(fields)) = serde_json::to_value(marker)
    {
        body.extend(fields);
    }
    Value::Object(body)
}

async fn analyze(
    _caller: Authenticated,
    state: web::Data<AppState>,
    body: web::Json<AnalyzeBody>,
) -> Result<HttpResponse, AnalyzerFailure> {
    let AnalyzeBody {
        files,
        analysis_types,
    } = body.into_inner();
    let reply = analyze_files(&state, files, analysis_types).await?;
    Ok(HttpResponse::Ok().json(reply))
}

async fn code_analysis(
    _caller: Authenticated,
    state: web::Data<AppState>,
    body: web::Json<SnippetBody>,
) -> Result<HttpResponse, AnalyzerFailure> {
    let SnippetBody {
        code,
        language,
        path,
    } = body.into_inner();
    let file = FileBody {
        path: path.unwrap_or_else(|| SNIPPET_PATH.to_owned()),
        content: code,
        language: Some(language),
    };
    let reply = analyze_files(&state, vec![file], Vec::new()).await?;
    Ok(HttpResponse::Ok().json(reply))
}

async fn code_fixes(
    _caller: Authenticated,
    state: web::Data<AppState>,
    body: web::Json<FilesBody>,
) -> Result<HttpResponse, AnalyzerFailure> {
    let reply = analyze_files(&state, body.into_inner().files, Vec::new()).await?;
    let summary = reply.summary;
    let mut by_path: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
    for finding in reply.findings.into_iter().filter(|f| f.fix.is_some()) {
        by_path
            .entry(finding.path.clone())
            .or_default()
            .push(finding);
    }
    let files: Vec<Value> = by_path
        .into_iter()
        .map(|(path, fixes)| json!({ "path": path, "fixes": fixes }))
        .collect();
    let body = Map::from_iter([("files".to_owned(), Value::Array(files))]);
    Ok(HttpResponse::Ok().json(with_marker(body, &summary)))
}

async fn generator(
    _caller: Authenticated,
    state: web::Data<AppState>,
    body: web::Json<RuleBody>,
) -> Result<HttpResponse, AnalyzerFailure> {
    let rule = serde_json::to_value(body.into_inner()).map_err(|error| ApiError::Internal {
        kind: "rule encoding failed",
        cause: error.to_string(),
    })?;
    let (status, verdict) = state.scans.analyzer.validate_rule(&rule).await?;
    if status == StatusCode::BAD_REQUEST.as_u16() {
        let problem = verdict.get("error").and_then(Value::as_str);
        return Err(ApiError::Client {
            status: StatusCode::BAD_REQUEST,
            message: problem.unwrap_or("invalid rule").to_owned(),
            envelope: Envelope::Api,
        }
        .into());
    }
    Ok(HttpResponse::Ok().json(verdict))
}
