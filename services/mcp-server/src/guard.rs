//! The MCP server's guard in the estate's stack (`platform::stack`): the `Origin` check first
//! (403 before anything runs, [`crate::origin`]), then the bearer check (401 before any budget
//! is spent; it leaves the caller for the limiter, [`crate::identity`]).

use crate::{identity, origin};
use actix_web::Error;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;

/// The middleware function the stack mounts between the panic layer and the limiter.
pub async fn guard(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    if let Some(response) = origin::refusal(&request) {
        return Ok(request.into_response(response).map_into_right_body());
    }
    Ok(identity::identify(request, next)
        .await?
        .map_into_left_body())
}
