//! A stand-in for the paid language model API (the one place a stand-in is right): a small
//! actix app on 127.0.0.1:0 speaking the chat-completions shape, JSON or server-sent events,
//! that records what it was sent.

use actix_web::{App, HttpResponse, HttpServer, web};
use futures_util::StreamExt;
use serde_json::{Value, json};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the stand-in answers every request.
#[derive(Clone)]
pub enum Reply {
    /// 200 with one completion.
    Completion(&'static str),
    /// 200 `text/event-stream`, one chunk per piece, then `[DONE]`.
    Events(Vec<&'static str>),
    /// The pieces, then an `error` event instead of `[DONE]` (a provider failing halfway).
    FailMidStream(Vec<&'static str>),
    /// That status with an error body.
    Status(u16),
    /// A completion, after this long.
    Slow(Duration),
    /// An answer that does not stop (64 MiB at the most): a completion whose text never
    /// closes, or (`streamed`) one piece and then one event line that never ends.
    Endless { streamed: bool },
}

#[derive(Clone)]
struct Shared {
    reply: Reply,
    received: Arc<Mutex<Vec<Value>>>,
}

pub struct LlmStub {
    /// What `LLM_BASE_URL` would be.
    pub base_url: String,
    received: Arc<Mutex<Vec<Value>>>,
}

impl LlmStub {
    pub fn start(reply: Reply) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("an address").port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let shared = Shared {
            reply,
            received: received.clone(),
        };
        let server = HttpServer::new(move || {
            App::new()
                .app_data(web::Data::new(shared.clone()))
                .route("/v1/chat/completions", web::post().to(completions))
        })
        .workers(1)
        .disable_signals()
        .listen(listener)
        .expect("listening")
        .run();
        actix_web::rt::spawn(server);
        Self {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            received,
        }
    }

    /// Every request body so far.
    pub fn received(&self) -> Vec<Value> {
        self.received.lock().expect("stub log").clone()
    }
}

fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "stub-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]
    })
}

fn event(data: &Value) -> String {
    format!("data: {data}\n\n")
}

fn chunks(pieces: &[&str]) -> String {
    pieces
        .iter()
        .map(|piece| event(&json!({"choices": [{"index": 0, "delta": {"content": piece}}]})))
        .collect()
}

async fn completions(shared: web::Data<Shared>, body: web::Json<Value>) -> HttpResponse {
    shared
        .received
        .lock()
        .expect("stub log")
        .push(body.into_inner());
    let events = |body: String| {
        let body = futures_util::stream::iter([Ok::<_, actix_web::Error>(web::Bytes::from(body))]);
        HttpResponse::Ok()
            .content_type("text/event-stream")
            .streaming(body.boxed_local())
    };
    match &shared.reply {
        Reply::Completion(text) => HttpResponse::Ok().json(completion(text)),
        Reply::Events(pieces) => events(chunks(pieces) + "data: [DONE]\n\n"),
        Reply::FailMidStream(pieces) => {
            events(chunks(pieces) + &event(&json!({"error": {"message": "overloaded"}})))
        }
        Reply::Status(status) => {
            HttpResponse::build(actix_web::http::StatusCode::from_u16(*status).expect("a status"))
                .json(json!({"error": {"message": "stub failure", "type": "server_error"}}))
        }
        Reply::Endless { streamed } => {
            let (content_type, start) = if *streamed {
                ("text/event-stream", chunks(&["Partial "]) + "data: ")
            } else {
                (
                    "application/json",
                    r#"{"choices":[{"message":{"content":""#.to_owned(),
                )
            };
            let filler = web::Bytes::from("a".repeat(64 * 1024));
            let rest = futures_util::stream::repeat(filler).take(1024);
            let body = futures_util::stream::once(async move { web::Bytes::from(start) })
                .chain(rest)
                .map(Ok::<_, actix_web::Error>);
            HttpResponse::Ok()
                .content_type(content_type)
                .streaming(body.boxed_local())
        }
        Reply::Slow(delay) => {
            actix_web::rt::time::sleep(*delay).await;
            HttpResponse::Ok().json(completion("too late"))
        }
    }
}
