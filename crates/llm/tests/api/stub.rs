//! A stub chat-completions API on 127.0.0.1:0: it records what it receives and answers from a
//! script, so tests see exactly what the client sent and how it handled each answer.

use std::collections::VecDeque;
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use futures_util::StreamExt;
use serde_json::{Value, json};

/// One scripted answer.
#[derive(Clone)]
pub struct Canned {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
    delay: Duration,
    content_type: &'static str,
    stall: bool,
    /// Sent again and again after the body, up to [`ENDLESS_CAP`] bytes.
    filler: Option<&'static str>,
}

/// The most an endless answer sends: a bound on the test, far above any bound the client has.
pub const ENDLESS_CAP: usize = 64 * 1024 * 1024;

impl Canned {
    /// 200 with a full completion whose text is `content`.
    pub fn completion(content: &str) -> Self {
        let body = json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "stub-model",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop"
            }],
            "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}
        });
        Self::status(200).body(&body.to_string())
    }

    /// `status` with an OpenAI-style error body that echoes the key, as careless providers do.
    pub fn status(status: u16) -> Self {
        let body = json!({"error": {
            "message": format!("Incorrect API key provided: {}", crate::TEST_KEY),
            "type": "invalid_request_error"
        }});
        Self {
            status,
            headers: Vec::new(),
            body: body.to_string(),
            delay: Duration::ZERO,
            content_type: "application/json",
            stall: false,
            filler: None,
        }
    }

    /// 200 `text/event-stream`: one chunk per piece (after a role-only chunk), then `[DONE]`.
    pub fn events(pieces: &[&str]) -> Self {
        let chunk = |delta: Value| {
            let chunk = json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]});
            format!("data: {chunk}\n\n")
        };
        let mut body = chunk(json!({"role": "assistant"}));
        for piece in pieces {
            body.push_str(&chunk(json!({ "content": piece })));
        }
        body.push_str("data: [DONE]\n\n");
        Self {
            content_type: "text/event-stream",
            ..Self::status(200).body(&body)
        }
    }

    /// The same answer without its `[DONE]`, whose body then never ends (a provider gone
    /// quiet mid-stream).
    pub fn stalled(mut self) -> Self {
        self.stall = true;
        if let Some(cut) = self.body.strip_suffix("data: [DONE]\n\n") {
            self.body = cut.to_owned();
        }
        self
    }

    /// The same answer followed by `filler` repeated until the client stops reading (or
    /// [`ENDLESS_CAP`] bytes): a provider that does not stop talking.
    pub fn endless(mut self, filler: &'static str) -> Self {
        self.filler = Some(filler);
        self
    }

    /// The same answer with `body` instead.
    pub fn body(mut self, body: &str) -> Self {
        body.clone_into(&mut self.body);
        self
    }

    /// The same answer with one more header.
    pub fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_owned()));
        self
    }

    /// The same answer, sent after `delay`.
    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// What one request carried.
#[derive(Clone, Debug)]
pub struct Received {
    /// The JSON body (`Null` if it was not JSON).
    pub body: Value,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
}

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<Canned>>,
    received: Mutex<Vec<Received>>,
    sent: AtomicUsize,
}

impl Shared {
    /// The next scripted answer; the last one repeats once the script is spent.
    fn next(&self) -> Canned {
        let mut script = self.script.lock().expect("stub script");
        if script.len() > 1 {
            script.pop_front().expect("a scripted answer")
        } else {
            script.front().cloned().expect("a non-empty script")
        }
    }
}

/// A running stub.
pub struct Stub {
    /// What a client's `LLM_BASE_URL` would be.
    pub base_url: String,
    shared: Arc<Shared>,
}

impl Stub {
    /// Starts a stub that answers with `script`, in order.
    pub fn start(script: Vec<Canned>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("a bound address").port();
        let shared = Arc::new(Shared {
            script: Mutex::new(script.into()),
            ..Shared::default()
        });
        let data = web::Data::from(Arc::clone(&shared));
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
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
            shared,
        }
    }

    /// Every request so far, oldest first.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().expect("stub log").clone()
    }

    /// How many bytes of endless answers were handed to the connection.
    pub fn endless_bytes_sent(&self) -> usize {
        self.shared.sent.load(Ordering::Relaxed)
    }

    /// How many requests arrived.
    pub fn calls(&self) -> usize {
        self.shared.received.lock().expect("stub log").len()
    }
}

async fn completions(
    shared: web::Data<Shared>,
    request: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let authorization = request
        .headers()
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    shared.received.lock().expect("stub log").push(Received {
        body,
        authorization,
    });
    let canned = shared.next();
    if !canned.delay.is_zero() {
        actix_web::rt::time::sleep(canned.delay).await;
    }
    let mut response =
        HttpResponse::build(StatusCode::from_u16(canned.status).expect("a valid status"));
    for (name, value) in &canned.headers {
        response.insert_header((*name, value.as_str()));
    }
    response.content_type(canned.content_type);
    if let Some(filler) = canned.filler {
        return response.streaming(endless(canned.body, filler, shared.into_inner()));
    }
    if canned.stall {
        let first = futures_util::stream::once(async move {
            Ok::<_, actix_web::Error>(web::Bytes::from(canned.body))
        });
        return response.streaming(first.chain(futures_util::stream::pending()));
    }
    response.body(canned.body)
}

/// `body`, then `filler` until the cap, counting what the connection took.
fn endless(
    body: String,
    filler: &'static str,
    shared: Arc<Shared>,
) -> impl futures_util::Stream<Item = Result<web::Bytes, actix_web::Error>> {
    let first = futures_util::stream::once(async move { Ok(web::Bytes::from(body)) });
    let rest = futures_util::stream::repeat(filler.repeat(1024))
        .take(ENDLESS_CAP / (filler.len() * 1024))
        .map(move |chunk| {
            shared.sent.fetch_add(chunk.len(), Ordering::Relaxed);
            Ok(web::Bytes::from(chunk))
        });
    first.chain(rest)
}
