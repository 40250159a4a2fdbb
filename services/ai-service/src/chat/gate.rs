//! The chat gate: the user's access token first (401 before any budget is spent), then the
//! sliding window keyed on the token's subject with the global backstop behind it (shared by
//! every replica through Redis when `REDIS_URL` is set, in this process otherwise).
//!
//! Keyed on the subject (`sub`), not the token: a user with two tabs and two tokens has one
//! window. The key is the subject's digest; the raw token travels on only in the request's
//! extensions, for the backend call that forwards it. A refusal is the same body whichever
//! ceiling refused, with `Retry-After`; metered answers carry the IETF draft fields for the
//! per-subject budget (`RateLimit-Policy: "chat";q=60;w=60`, `RateLimit: "chat";r=..;t=..`).

use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, ResponseError, web};
use limiter::{Decision, KeyDigest, retry_after_secs};
use platform::jwt::{TokenKind, bearer_token};

/// Who is chatting: the verified subject and the bearer to forward for them.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The token's subject (the user id).
    pub subject: String,
    /// The token exactly as presented, forwarded to the backend's EXPENSIVE endpoints.
    pub bearer: String,
}

/// The middleware function (mounted on the chat resource with `middleware::from_fn`).
pub async fn require_caller(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    let Some(state) = request.app_data::<web::Data<AppState>>().cloned() else {
        let missing = ApiError::Internal {
            kind: "state missing",
            cause: "AppState not registered".to_owned(),
        };
        return Ok(request.error_response(missing).map_into_right_body());
    };
    let Some(caller) = authenticate(&state, request.headers()) else {
        return Ok(request
            .into_response(ApiError::Unauthorized.error_response())
            .map_into_right_body());
    };
    let decision = match &state.window {
        Some(window) => Some(window.decide(KeyDigest::of(&caller.subject)).await),
        None => None,
    };
    if let Some(decision) = decision {
        state.metrics.window_decision(decision.is_allowed());
    }
    if let Some(retry_after) = decision.and_then(|decision| decision.retry_after()) {
        let mut response = ApiError::RateLimited { retry_after }.error_response();
        fields(&state, decision, response.headers_mut());
        return Ok(request.into_response(response).map_into_right_body());
    }
    request.extensions_mut().insert(caller);
    let mut response = next.call(request).await?;
    fields(&state, decision, response.headers_mut());
    Ok(response.map_into_left_body())
}

/// The caller of a valid access token (any other kind, a bad signature or an expired token:
/// `None`, answered with the one 401).
fn authenticate(state: &AppState, headers: &HeaderMap) -> Option<Caller> {
    let token = bearer_token(headers)?;
    let claims = state.jwt.verify(TokenKind::Access, token).ok()?;
    Some(Caller {
        subject: claims.sub,
        bearer: token.to_owned(),
    })
}

/// The per-subject budget's fields; none when the window is off.
fn fields(state: &AppState, decision: Option<Decision>, headers: &mut HeaderMap) {
    let Some(decision) = decision else {
        return;
    };
    let policy = state.chat_policy;
    let state_field = match decision.retry_after() {
        Some(wait) => format!("\"chat\";r=0;t={}", retry_after_secs(wait)),
        None => format!(
            "\"chat\";r={};t={}",
            decision.remaining(),
            retry_after_secs(decision.reset_after())
        ),
    };
    let policy_field = format!(
        "\"chat\";q={};w={}",
        policy.limit(),
        policy.period().as_secs()
    );
    for (name, value) in [
        (limiter::headers::RATE_LIMIT_POLICY, policy_field),
        (limiter::headers::RATE_LIMIT, state_field),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), value);
        }
    }
}
