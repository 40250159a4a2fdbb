//! `/rules`: validate, create, list, read, replace and delete custom rules.

use crate::errors::ApiError;
use crate::rules_store::{MAX_STORED_RULES, Refusal};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use logscan::RuleSpec;
use serde_json::json;

/// `POST /rules/validate`: 200 with the normalised rule, or 400 naming the first problem.
pub async fn validate(spec: web::Json<RuleSpec>) -> Result<HttpResponse, ApiError> {
    let rule = spec.validate()?;
    Ok(HttpResponse::Ok().json(json!({ "valid": true, "rule": rule.spec() })))
}

/// `GET /rules`.
pub async fn list(state: web::Data<AppState>) -> HttpResponse {
    let rules: Vec<RuleSpec> = state
        .rules
        .all()
        .await
        .iter()
        .map(|rule| rule.spec().clone())
        .collect();
    HttpResponse::Ok().json(json!({ "rules": rules }))
}

/// `GET /rules/{id}`.
pub async fn get(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let rule = state.rules.get(&id).await.ok_or_else(|| not_found(&id))?;
    Ok(HttpResponse::Ok().json(rule.spec()))
}

/// `POST /rules`: 201, or 409 when the id is taken.
pub async fn create(
    state: web::Data<AppState>,
    spec: web::Json<RuleSpec>,
) -> Result<HttpResponse, ApiError> {
    let rule = spec.validate()?;
    let body = rule.spec().clone();
    match state.rules.insert(rule).await {
        Ok(()) => Ok(HttpResponse::Created().json(body)),
        Err(Refusal::Taken) => Err(ApiError::Conflict(format!(
            "rule '{}' already exists",
            body.rule_id.unwrap_or_default()
        ))),
        Err(refusal) => Err(refused(refusal)),
    }
}

/// `PUT /rules/{id}`: create or replace; the body's `ruleId`, if any, must be the path's.
pub async fn put(
    state: web::Data<AppState>,
    id: web::Path<String>,
    spec: web::Json<RuleSpec>,
) -> Result<HttpResponse, ApiError> {
    let mut spec = spec.into_inner();
    match &spec.rule_id {
        Some(body_id) if body_id != id.as_str() => {
            return Err(ApiError::Invalid {
                code: "invalid_rule",
                message: format!("ruleId '{body_id}' does not match the path's '{id}'"),
            });
        }
        _ => spec.rule_id = Some(id.into_inner()),
    }
    let rule = spec.validate()?;
    let body = rule.spec().clone();
    let replaced = state.rules.put(rule).await.map_err(refused)?;
    Ok(if replaced {
        HttpResponse::Ok()
    } else {
        HttpResponse::Created()
    }
    .json(body))
}

/// `DELETE /rules/{id}`: 204, or 404.
pub async fn delete(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    if !state.rules.remove(&id).await.map_err(refused)? {
        return Err(not_found(&id));
    }
    Ok(HttpResponse::NoContent().finish())
}

/// The answer to a write the store refused (an id taken is the caller's own 409).
fn refused(refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::Unavailable => ApiError::StoreUnavailable,
        Refusal::Taken | Refusal::Full => ApiError::Conflict(format!(
            "at most {MAX_STORED_RULES} rules can be stored; delete one first"
        )),
    }
}

fn not_found(id: &str) -> ApiError {
    ApiError::NotFound(format!("rule '{id}' not found"))
}
