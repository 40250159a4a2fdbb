//! `POST /api/v1/gatekeeper/check` `{"files":[…],"failOn"?:"error"|"warning"}`: a CI
//! pipeline's verdict on its files, `{"passed":bool,"findings":n,"blocking":n}`.
//!
//! The caller is a CI key, sent as a bearer or in `X-CI-Key` (the public filter meters the
//! `ci` group on the same key). An unknown key is 401 before the analyzer is asked. A finding
//! blocks when its severity is at least `failOn` (default `error`); the check passes when
//! none blocks. A 429 here is a red build, which is why the `ci` budget is its own.
//!
//! `findings` counts every finding found; `blocking` counts those among the findings the
//! (bounded) answer kept. An answer a bound cut never passes — a finding it did not keep may
//! block — and carries the `truncated` marker (`reason`, `found`) beside the counts.

use super::expensive::{AnalyzerFailure, FileBody, analyze_files, with_marker};
use crate::errors::ApiError;
use crate::limits::keys::ci_key;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use analysis::Severity;
use serde::Deserialize;
use serde_json::{Map, json};

/// Mounts the route.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/gatekeeper/check", web::post().to(check));
}

/// The least severity that fails the check.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
enum FailOn {
    #[default]
    Error,
    Warning,
}

impl FailOn {
    /// Whether a finding of `severity` blocks: it is at least this one.
    fn blocks(self, severity: Severity) -> bool {
        let least = match self {
            Self::Error => Severity::Error,
            Self::Warning => Severity::Warning,
        };
        severity >= least
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CheckBody {
    files: Vec<FileBody>,
    #[serde(default)]
    fail_on: FailOn,
}

async fn check(
    request: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<CheckBody>,
) -> Result<HttpResponse, AnalyzerFailure> {
    let key = match ci_key(&request) {
        Some(secret) => state
            .tenancy
            .ci_keys
            .authenticate(secret)
            .await
            .map_err(ApiError::from)?,
        None => None,
    };
    if key.is_none() {
        let refusal = ApiError::client(StatusCode::UNAUTHORIZED, "invalid CI key", &request);
        return Err(refusal.into());
    }
    let CheckBody { files, fail_on } = body.into_inner();
    let reply = analyze_files(&state, files, Vec::new()).await?;
    let blocking = reply
        .findings
        .iter()
        .filter(|finding| fail_on.blocks(finding.severity))
        .count();
    let summary = reply.summary;
    let verdict = Map::from_iter([
        (
            "passed".to_owned(),
            json!(blocking == 0 && !summary.is_truncated()),
        ),
        ("findings".to_owned(), json!(summary.found())),
        ("blocking".to_owned(), json!(blocking)),
    ]);
    Ok(HttpResponse::Ok().json(with_marker(verdict, &summary)))
}
