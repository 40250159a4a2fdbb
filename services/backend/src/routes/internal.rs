//! `/internal/**`: service-to-service reads, never metered. Every request must carry
//! `X-Internal-Token` equal to `INTERNAL_TOKEN`, compared in constant time (over SHA-256
//! digests, so the length is not compared either: `platform::secret`); with `INTERNAL_TOKEN` unset every request
//! is 401. The ingress does not route these paths publicly; the token still holds on its own.
//!
//! - `GET /internal/runs/{id}`: any workspace's run, or 404 `scan not found`.

use crate::errors::ApiError;
use crate::state::AppState;
use crate::tenancy::Resource;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use platform::secret::same_secret;
use uuid::Uuid;

/// The header the token travels in.
pub const INTERNAL_TOKEN_HEADER: &str = "x-internal-token";

/// Mounts the routes.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/internal/runs/{id}", web::get().to(get_run));
}

/// 401 unless the request carries the configured token.
fn require_token(request: &HttpRequest, state: &AppState) -> Result<(), ApiError> {
    let presented = request.headers().get(INTERNAL_TOKEN_HEADER);
    let expected = state
        .config
        .internal_token
        .as_deref()
        .filter(|token| !token.is_empty());
    match presented.zip(expected) {
        Some((presented, expected)) if same_secret(presented.as_bytes(), expected.as_bytes()) => {
            Ok(())
        }
        _ => Err(ApiError::client(
            StatusCode::UNAUTHORIZED,
            "authentication required",
            request,
        )),
    }
}

async fn get_run(
    request: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    require_token(&request, &state)?;
    let missing = || ApiError::from(Resource::Scan.missing());
    let id = Uuid::parse_str(&id).map_err(|_| missing())?;
    let run = state.scans.runs.read(id).await?.ok_or_else(missing)?;
    Ok(HttpResponse::Ok().json(run))
}
