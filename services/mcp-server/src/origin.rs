//! `Origin` validation: a browser page on a site not in `CORS_ALLOWED_ORIGINS` is refused with
//! 403 before anything runs (DNS rebinding is how a web page reaches a server on someone's
//! loopback; the MCP transport requires this check). A request without `Origin` is a
//! non-browser client — the SDKs, curl, an agent — and passes.

use crate::errors::Refusal;
use crate::mcp::jsonrpc::ORIGIN_NOT_ALLOWED;
use crate::state::AppState;
use actix_web::dev::ServiceRequest;
use actix_web::http::StatusCode;
use actix_web::http::header::ORIGIN;
use actix_web::{HttpResponse, web};
use limiter_actix::routed_path;

/// The 403 for a request whose `Origin` is not allowed; `None` lets it through.
pub fn refusal(request: &ServiceRequest) -> Option<HttpResponse> {
    if allowed(request) {
        return None;
    }
    let refusal = Refusal {
        status: StatusCode::FORBIDDEN,
        code: "origin_not_allowed",
        rpc_code: ORIGIN_NOT_ALLOWED,
        message: "Forbidden: this Origin is not allowed".to_owned(),
        data: None,
    };
    Some(refusal.respond(routed_path(request.request())))
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
