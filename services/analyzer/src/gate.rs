//! The token gate: every route but `/health` needs `X-Analyzer-Token`, compared in constant
//! time. It runs before the limiter, so an unauthenticated caller is refused without spending
//! anybody's budget, and the limiter can key on the (valid) token's digest.

use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{Error, ResponseError, web};
use limiter_actix::routed_path;
use subtle::ConstantTimeEq;

/// The header callers present.
pub const TOKEN_HEADER: &str = "x-analyzer-token";
/// The one path open without a token.
pub const HEALTH_PATH: &str = "/health";

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
    let (Some(state), Some(presented)) = (
        request.app_data::<web::Data<AppState>>(),
        request.headers().get(TOKEN_HEADER),
    ) else {
        return false;
    };
    bool::from(state.token.as_bytes().ct_eq(presented.as_bytes()))
}
