//! `Origin` validation: a browser page on a site not in `CORS_ALLOWED_ORIGINS` is refused with
//! 403 before anything runs (DNS rebinding is how a web page reaches a server on someone's
//! loopback; the MCP transport requires this check). A request without `Origin` is a
//! non-browser client — the SDKs, curl, an agent — and passes.

use crate::errors::Refusal;
use crate::mcp::jsonrpc::ORIGIN_NOT_ALLOWED;
use crate::state::AppState;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::ORIGIN;
use actix_web::middleware::Next;
use actix_web::{Error, web};
use limiter_actix::routed_path;

/// The middleware function (mounted with `middleware::from_fn`).
pub async fn guard(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    if allowed(&request) {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    let refusal = Refusal {
        status: StatusCode::FORBIDDEN,
        code: "origin_not_allowed",
        rpc_code: ORIGIN_NOT_ALLOWED,
        message: "Forbidden: this Origin is not allowed".to_owned(),
        data: None,
    };
    let response = refusal.respond(routed_path(request.request()));
    Ok(request.into_response(response).map_into_right_body())
}

/// No `Origin`, or one of the configured origins exactly.
fn allowed(request: &ServiceRequest) -> bool {
    let Some(origin) = request.headers().get(ORIGIN) else {
        return true;
    };
    let Some(state) = request.app_data::<web::Data<AppState>>() else {
        return false;
    };
    origin.to_str().is_ok_and(|origin| {
        state
            .allowed_origins
            .iter()
            .any(|allowed| allowed == origin)
    })
}
