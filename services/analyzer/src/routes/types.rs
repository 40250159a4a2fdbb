//! `GET /analysis-types`: the built-in analysis types.

use actix_web::HttpResponse;
use serde_json::json;

/// Lists the built-in types.
pub async fn list() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "analysisTypes": logscan::analysis_types() }))
}
