//! `GET /ws/runs/{id}`: a run's frames over a WebSocket. Every frame so far is sent as a text
//! message, then the live ones; after the terminal frame (`DONE` or `ERROR: …`) the server
//! closes with a normal close (1000). A run another process drives (another replica) is
//! followed by reading the store every [`POLL_INTERVAL`]. Never metered.
//!
//! The upgrade is refused, in the api envelope, before any socket exists: 401 without a valid
//! token, 404 `scan not found` for a missing run and another workspace's alike.
//!
//! **Auth**: `Authorization: Bearer <access token>`, or a `token` query parameter, because a
//! browser's `WebSocket` cannot set headers. The trade-off: a query string ends up where
//! headers do not (proxy and access logs, browser history), so the parameter is read only on
//! this route, only when no `Authorization` header is sent, and only an access token (short
//! lived, scoped to one workspace) passes. Non-browser clients should send the header.

use super::runs::owned_run;
use crate::errors::ApiError;
use crate::identity::Scoped;
use crate::scans::runs::frames;
use crate::state::{AppState, ScanServices};
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{AUTHORIZATION, HeaderValue};
use actix_web::middleware::{Next, from_fn};
use actix_web::{HttpRequest, HttpResponse, web};
use actix_ws::{CloseCode, Closed, Message, MessageStream, Session};
use serde::Deserialize;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;
use uuid::Uuid;

/// How often a run driven elsewhere is re-read from the store.
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Mounts the route.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/ws/runs/{id}")
            .wrap(from_fn(token_from_query))
            .route(web::get().to(socket)),
    );
}

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// Turns `?token=…` into the `Authorization` header the extractors read, unless one is sent.
async fn token_from_query(
    mut request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let query = web::Query::<TokenQuery>::from_query(request.query_string()).ok();
    let token = query.and_then(|query| query.into_inner().token);
    let bearer = token.and_then(|token| HeaderValue::from_str(&format!("Bearer {token}")).ok());
    if let Some(bearer) = bearer.filter(|_| !request.headers().contains_key(AUTHORIZATION)) {
        request.headers_mut().insert(AUTHORIZATION, bearer);
    }
    next.call(request).await
}

async fn socket(
    request: HttpRequest,
    scope: Scoped,
    state: web::Data<AppState>,
    id: web::Path<String>,
    body: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let run = owned_run(&state, &scope.workspace_id, &id).await?;
    let (response, session, messages) = actix_ws::handle(&request, body).map_err(|_| {
        ApiError::client(
            StatusCode::BAD_REQUEST,
            "websocket upgrade required",
            &request,
        )
    })?;
    actix_web::rt::spawn(answer_client(session.clone(), messages));
    actix_web::rt::spawn(stream(state.scans.clone(), run.id, session));
    Ok(response)
}

/// Answers pings and the client's close; nothing else a client sends means anything here.
async fn answer_client(mut session: Session, mut messages: MessageStream) {
    while let Some(Ok(message)) = messages.recv().await {
        match message {
            Message::Ping(bytes) if session.pong(&bytes).await.is_err() => return,
            Message::Close(reason) => {
                session.close(reason).await.ok();
                return;
            }
            _ => {}
        }
    }
}

/// Sends the run's frames until its terminal one, then closes normally. A run the store can
/// no longer read closes with 1011: the socket never just goes quiet.
async fn stream(scans: ScanServices, run_id: Uuid, mut session: Session) {
    let mut sent = 0;
    let code = loop {
        match follow(&scans, run_id, &mut session, &mut sent).await {
            Ok(Some(code)) => break code,
            Ok(None) => {}
            Err(Closed) => return,
        }
    };
    session.close(Some(code.into())).await.ok();
}

/// One subscription's worth: the history not yet sent, then its live frames. `Some(code)`:
/// time to close; `None`: subscribe again (the receiver lagged, or there was none yet).
async fn follow(
    scans: &ScanServices,
    run_id: Uuid,
    session: &mut Session,
    sent: &mut usize,
) -> Result<Option<CloseCode>, Closed> {
    let Ok(Some(subscription)) = scans.hub.subscribe(run_id).await else {
        return Ok(Some(CloseCode::Error));
    };
    for frame in subscription.frames.iter().skip(*sent) {
        if send(session, frame, sent).await? {
            return Ok(Some(CloseCode::Normal));
        }
    }
    let Some(mut live) = subscription.live else {
        tokio::time::sleep(POLL_INTERVAL).await;
        return Ok(None);
    };
    loop {
        match live.recv().await {
            Ok(frame) if send(session, &frame, sent).await? => {
                return Ok(Some(CloseCode::Normal));
            }
            Ok(_) => {}
            Err(RecvError::Lagged(_) | RecvError::Closed) => return Ok(None),
        }
    }
}

/// Sends one frame; whether it was the terminal one.
async fn send(session: &mut Session, frame: &str, sent: &mut usize) -> Result<bool, Closed> {
    session.text(frame.to_owned()).await?;
    *sent += 1;
    Ok(frames::is_terminal(frame))
}
