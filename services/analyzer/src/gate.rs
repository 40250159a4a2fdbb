//! The token gate: every route but `/health` needs `X-Analyzer-Token`, compared in constant
//! time (whatever its length: `platform::secret`). `/metrics` also takes the same token as `Authorization: Bearer …`, the one form a
//! Prometheus scrape can send. It runs before the limiter, so an unauthenticated caller is
//! refused without spending anybody's budget, and the limiter can key on the (valid) token's
//! digest.

use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, ResponseError, web};
use limiter_actix::routed_path;
use platform::secret::same_secret;

/// The header callers present.
pub const TOKEN_HEADER: &str = "x-analyzer-token";
/// The one path open without a token.
pub const HEALTH_PATH: &str = "/health";
/// The one path that also takes the token as a bearer credential.
pub const METRICS_PATH: &str = "/metrics";

/// The middleware function (mounted with `middleware::from_fn`).
pub async fn require_token(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    if routed_path(request.request()) == HEALTH_PATH || presents_token(&request) {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    let response = ApiError::Unauthorized.error_response();
    Ok(request.into_response(response).map_into_right_body())
}

fn presents_token(request: &ServiceRequest) -> bool {
    let Some(state) = request.app_data::<web::Data<AppState>>() else {
        return false;
    };
    let headers = request.headers();
    let presented = headers
        .get(TOKEN_HEADER)
        .map(|value| value.as_bytes())
        .or_else(|| {
            (routed_path(request.request()) == METRICS_PATH)
                .then(|| headers.get(header::AUTHORIZATION).and_then(bearer))
                .flatten()
        });
    presented.is_some_and(|presented| same_secret(presented, state.token.as_bytes()))
}

/// The credential of `Bearer <credential>` (the scheme is case-insensitive).
fn bearer(value: &HeaderValue) -> Option<&[u8]> {
    let bytes = value.as_bytes();
    let (scheme, credential) = bytes.split_at_checked(7)?;
    scheme
        .eq_ignore_ascii_case(b"bearer ")
        .then_some(credential)
}
