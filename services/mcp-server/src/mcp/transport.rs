//! The HTTP side of `/mcp`: one JSON-RPC message per `POST`, answered with `application/json`.
//!
//! Checks, in order: `Content-Type` is JSON (else 415), `Accept` admits JSON when present (else
//! 406), the body fits the limit (else 413), it parses (else 400 with -32700/-32600/-32602),
//! the `MCP-Protocol-Version` header names a served revision (else 400 with -32022 listing
//! them). A notification is then 202 with no body; a request gets its response with:
//! - handshake era: 200, the error (if any) in the body, as JSON-RPC over HTTP has it;
//! - 2026-07-28: the revision's status table: -32601 → 404; -32600, -32602, -32020, -32022
//!   → 400; otherwise 200.
//!
//! Statuses never depend on a tool's outcome: a tool that failed is a 200 result with
//! `isError: true`.

use super::jsonrpc::{self, INVALID_REQUEST, Message, RpcError, UNSUPPORTED_PROTOCOL_VERSION};
use super::methods::{self, Request};
use super::{Era, PROTOCOL_VERSION_HEADER, era_of, supported_versions};
use crate::identity::Caller;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::http::header::{ALLOW, Accept, Header};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

/// `POST /mcp`.
pub async fn post(
    request: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    if let Err((status, message)) = check_media(&request) {
        return refuse(status, message);
    }
    let body = match payload.to_bytes_limited(state.max_body_bytes).await {
        Ok(Ok(body)) => body,
        Ok(Err(_)) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "Invalid Request: the body could not be read",
            );
        }
        Err(_) => {
            let message = format!(
                "Invalid Request: the body is larger than {} bytes",
                state.max_body_bytes
            );
            return refuse(StatusCode::PAYLOAD_TOO_LARGE, &message);
        }
    };
    let message = match jsonrpc::parse(&body) {
        Ok(message) => message,
        Err(rejected) => return reply(StatusCode::BAD_REQUEST, &rejected.id, &rejected.error),
    };
    let header = request
        .headers()
        .get(PROTOCOL_VERSION_HEADER)
        .map(|value| value.to_str().unwrap_or_default());
    let era = era_of(header);
    match (message, era) {
        (Message::Notification { .. }, Ok(_)) => HttpResponse::Accepted().finish(),
        (Message::Notification { .. }, Err(requested)) => reply(
            StatusCode::BAD_REQUEST,
            &Value::Null,
            &unsupported(&requested),
        ),
        (Message::Request { id, .. }, Err(requested)) => {
            reply(StatusCode::BAD_REQUEST, &id, &unsupported(&requested))
        }
        (Message::Request { id, method, params }, Ok(era)) => {
            let caller = Caller::of(&request);
            let call = Request {
                era: &era,
                method: &method,
                params: &params,
                headers: request.headers(),
            };
            match methods::answer(&state, &caller, call).await {
                Ok(result) => HttpResponse::Ok().json(jsonrpc::success(&id, result)),
                Err(error) => reply(status_for(&era, error.code), &id, &error),
            }
        }
    }
}

/// Any other method on `/mcp`: no SSE stream is offered and no session is kept to delete.
pub async fn method_not_allowed() -> HttpResponse {
    let error = RpcError::new(
        INVALID_REQUEST,
        "Invalid Request: only POST is served on /mcp (no SSE stream, no sessions)",
    );
    HttpResponse::MethodNotAllowed()
        .insert_header((ALLOW, "POST"))
        .json(jsonrpc::failure(&Value::Null, &error))
}

fn check_media(request: &HttpRequest) -> Result<(), (StatusCode, &'static str)> {
    let json_body = request
        .mime_type()
        .ok()
        .flatten()
        .is_some_and(|mime| mime.essence_str() == "application/json");
    if !json_body {
        return Err((
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Invalid Request: Content-Type must be application/json",
        ));
    }
    if !accepts_json(request) {
        return Err((
            StatusCode::NOT_ACCEPTABLE,
            "Invalid Request: Accept must admit application/json, the only type answered",
        ));
    }
    Ok(())
}

/// No `Accept` (or one that does not parse) takes anything; otherwise some range with a
/// non-zero quality must cover `application/json`.
fn accepts_json(request: &HttpRequest) -> bool {
    if !request.headers().contains_key(Accept::name()) {
        return true;
    }
    let Ok(accept) = Accept::parse(request) else {
        return true;
    };
    accept.iter().any(|item| {
        let (kind, subtype) = (item.item.type_().as_str(), item.item.subtype().as_str());
        item.quality > actix_web::http::header::Quality::ZERO
            && (kind == "*" || kind == "application")
            && (subtype == "*" || subtype == "json")
    })
}

fn unsupported(requested: &str) -> RpcError {
    RpcError::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        .with_data(json!({ "supported": supported_versions(), "requested": requested }))
}

/// The HTTP status of an error answered to a request of `era`.
pub fn status_for(era: &Era, code: i64) -> StatusCode {
    match era {
        Era::Handshake => StatusCode::OK,
        Era::Modern(_) => match code {
            jsonrpc::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
            jsonrpc::PARSE_ERROR
            | jsonrpc::INVALID_REQUEST
            | jsonrpc::INVALID_PARAMS
            | jsonrpc::HEADER_MISMATCH
            | UNSUPPORTED_PROTOCOL_VERSION => StatusCode::BAD_REQUEST,
            _ => StatusCode::OK,
        },
    }
}

fn refuse(status: StatusCode, message: &str) -> HttpResponse {
    reply(
        status,
        &Value::Null,
        &RpcError::new(INVALID_REQUEST, message),
    )
}

fn reply(status: StatusCode, id: &Value, error: &RpcError) -> HttpResponse {
    HttpResponse::build(status).json(jsonrpc::failure(id, error))
}
