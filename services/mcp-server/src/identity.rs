//! Who is calling: a valid access token (HS256, the access kind, from the estate's one secret)
//! names the caller; no `Authorization` header is an anonymous caller; anything else in that
//! header — a malformed, expired or wrong-kind token, another scheme — is 401, so a client
//! that meant to act as somebody never silently acts as nobody.
//!
//! Runs before the limiter (an invalid bearer spends nobody's budget) and leaves a [`Caller`]
//! in the request's extensions for the limiter's key and the tools: the project tool forwards
//! the (verified) bearer to the backend, so the backend's own checks and budgets apply to the
//! person, not to this server.

use crate::errors::Refusal;
use crate::mcp::jsonrpc::UNAUTHORIZED;
use crate::state::AppState;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, HttpRequest, HttpResponse, web};
use limiter_actix::routed_path;
use platform::TokenKind;
use platform::jwt::bearer_token;

/// Paths that never look at credentials.
pub const OPEN_PATHS: [&str; 2] = ["/health", "/metrics"];

/// The caller of one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Caller {
    /// The token's subject; `None` for an anonymous caller.
    pub subject: Option<String>,
    /// The verified bearer token, forwarded to the backend on the caller's behalf.
    pub bearer: Option<String>,
}

impl Caller {
    /// The caller a middleware left on `request` (anonymous when none did).
    pub fn of(request: &HttpRequest) -> Self {
        request
            .extensions()
            .get::<Self>()
            .cloned()
            .unwrap_or_default()
    }
}

/// The bearer check, inside the `Origin` check ([`crate::guard`]).
pub async fn identify(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    if OPEN_PATHS.contains(&routed_path(request.request())) {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    match caller_of(&request) {
        Some(caller) => {
            request.extensions_mut().insert(caller);
            Ok(next.call(request).await?.map_into_left_body())
        }
        None => {
            let response = unauthorized(routed_path(request.request()));
            Ok(request.into_response(response).map_into_right_body())
        }
    }
}

/// The caller, or `None` when the `Authorization` header is present but not a valid token.
fn caller_of(request: &ServiceRequest) -> Option<Caller> {
    let headers = request.headers();
    if !headers.contains_key(AUTHORIZATION) {
        return Some(Caller::default());
    }
    let token = bearer_token(headers)?;
    let state = request.app_data::<web::Data<AppState>>()?;
    let claims = state.jwt.verify(TokenKind::Access, token).ok()?;
    Some(Caller {
        subject: Some(claims.sub),
        bearer: Some(token.to_owned()),
    })
}

fn unauthorized(path: &str) -> HttpResponse {
    let refusal = Refusal {
        status: StatusCode::UNAUTHORIZED,
        code: "unauthorized",
        rpc_code: UNAUTHORIZED,
        message: "Unauthorized: Authorization must be Bearer <a valid access token>, or absent"
            .to_owned(),
        data: None,
    };
    let mut response = HttpResponse::Unauthorized();
    response.insert_header((
        WWW_AUTHENTICATE,
        r#"Bearer realm="estate-mcp", error="invalid_token""#,
    ));
    refusal.respond_with(&mut response, path)
}
