//! Small origin servers on the estate's own stack (actix-web, one worker), each with a name
//! so a test can tell which origin answered: `/echo` (and any unknown path) returns what the
//! origin saw, `/health`, `/ws` echoes WebSocket frames, `/stream` (which never reads a
//! request body) and `/upload` prove that bodies stream, `/slow` holds a request open,
//! `/trace` answers with the trace context it was sent.

use actix_web::dev::ServerHandle;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use futures_util::StreamExt;
use serde_json::{Map, Value, json};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Notify;

/// Hand-offs between a test and an origin's handlers (which run on the origin's thread).
#[derive(Clone, Default)]
pub struct Signals {
    /// `/stream` sends its second chunk once this is notified.
    pub release: Arc<Notify>,
    /// `/upload` notifies this when the first chunk of the body has arrived.
    pub first_chunk: Arc<Notify>,
}

#[derive(Clone)]
struct State {
    name: &'static str,
    hits: Arc<AtomicUsize>,
    signals: Signals,
    draining: Arc<AtomicBool>,
}

/// A running origin.
pub struct Origin {
    pub name: &'static str,
    pub port: u16,
    pub hits: Arc<AtomicUsize>,
    pub signals: Signals,
    draining: Arc<AtomicBool>,
    handle: ServerHandle,
}

impl Origin {
    /// On a free port.
    pub fn start(name: &'static str) -> Self {
        Self::start_on(name, 0)
    }

    /// On `port` (0: any), retrying the bind briefly (a just-stopped origin's port).
    pub fn start_on(name: &'static str, port: u16) -> Self {
        let listener = bind(port);
        let port = listener.local_addr().expect("bound").port();
        let state = State {
            name,
            hits: Arc::default(),
            signals: Signals::default(),
            draining: Arc::default(),
        };
        let (hits, signals) = (state.hits.clone(), state.signals.clone());
        let draining = state.draining.clone();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(web::Data::new(state.clone()))
                .route("/health", web::get().to(health))
                .route("/ws", web::get().to(websocket))
                .route("/stream", web::get().to(stream))
                .route("/stream", web::post().to(stream))
                .route("/upload", web::post().to(upload))
                .route("/slow", web::get().to(slow))
                .route("/trace", web::get().to(trace))
                .default_service(web::to(echo))
        })
        .workers(1)
        .keep_alive(Duration::from_secs(2))
        .shutdown_timeout(5)
        .disable_signals()
        .listen(listener)
        .expect("the origin listens")
        .run();
        let handle = server.handle();
        actix_web::rt::spawn(server);
        Self {
            name,
            port,
            hits,
            signals,
            draining,
            handle,
        }
    }

    /// `http://127.0.0.1:<port>`, as a service or origin in the ingress file.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Stops: `graceful` finishes in-flight requests (a deploy's SIGTERM); otherwise every
    /// connection is cut at once (a crash, a `kill -9`).
    pub async fn stop(&self, graceful: bool) {
        self.handle.stop(graceful).await;
    }

    /// The first step of a stop done right: `/health` answers 503 while requests are still
    /// served, until the ingress has taken the origin out of rotation.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    /// Requests served so far.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }
}

fn bind(port: u16) -> TcpListener {
    for _ in 0..100 {
        if let Ok(listener) = TcpListener::bind(("127.0.0.1", port)) {
            return listener;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("port {port} stayed busy");
}

async fn health(state: web::Data<State>) -> HttpResponse {
    if state.draining.load(Ordering::Relaxed) {
        HttpResponse::ServiceUnavailable().body("draining")
    } else {
        HttpResponse::Ok().body("ok")
    }
}

async fn echo(request: HttpRequest, body: web::Bytes, state: web::Data<State>) -> HttpResponse {
    state.hits.fetch_add(1, Ordering::Relaxed);
    let mut headers = Map::new();
    for name in request.headers().keys() {
        let values: Vec<&str> = request
            .headers()
            .get_all(name)
            .filter_map(|value| value.to_str().ok())
            .collect();
        headers.insert(name.as_str().to_owned(), Value::from(values.join(" | ")));
    }
    HttpResponse::Ok().json(json!({
        "origin": state.name,
        "method": request.method().as_str(),
        "path": request.uri().path(),
        "query": request.query_string(),
        "version": format!("{:?}", request.version()),
        "headers": headers,
        "body": String::from_utf8_lossy(&body),
    }))
}

async fn websocket(
    request: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse, actix_web::Error> {
    let (response, mut session, mut messages) = actix_ws::handle(&request, body)?;
    actix_web::rt::spawn(async move {
        while let Some(Ok(message)) = messages.next().await {
            let sent = match message {
                actix_ws::Message::Text(text) => session.text(format!("echo: {text}")).await,
                actix_ws::Message::Binary(bytes) => session.binary(bytes).await,
                actix_ws::Message::Ping(bytes) => session.pong(&bytes).await,
                actix_ws::Message::Close(reason) => {
                    let _ = session.close(reason).await;
                    return;
                }
                _ => Ok(()),
            };
            if sent.is_err() {
                return;
            }
        }
    });
    Ok(response)
}

async fn stream(state: web::Data<State>) -> HttpResponse {
    let release = state.signals.release.clone();
    let chunks = futures_util::stream::unfold(0, move |step| {
        let release = release.clone();
        async move {
            match step {
                0 => Some((Ok::<_, actix_web::Error>(web::Bytes::from("first\n")), 1)),
                1 => {
                    release.notified().await;
                    Some((Ok(web::Bytes::from("second\n")), 2))
                }
                _ => None,
            }
        }
    });
    HttpResponse::Ok()
        .content_type("text/plain")
        .streaming(chunks)
}

async fn upload(mut body: web::Payload, state: web::Data<State>) -> HttpResponse {
    let mut total = 0;
    let mut first = true;
    while let Some(Ok(chunk)) = body.next().await {
        total += chunk.len();
        if first {
            state.signals.first_chunk.notify_one();
            first = false;
        }
    }
    HttpResponse::Ok().body(format!("received {total} bytes"))
}

async fn slow(request: HttpRequest, state: web::Data<State>) -> HttpResponse {
    let millis = request
        .query_string()
        .strip_prefix("ms=")
        .and_then(|ms| ms.parse().ok())
        .unwrap_or(1000);
    tokio::time::sleep(Duration::from_millis(millis)).await;
    state.hits.fetch_add(1, Ordering::Relaxed);
    HttpResponse::Ok().body(format!("{} slept {millis} ms", state.name))
}

/// Answers with the `traceparent` and `tracestate` lines it was sent, as a traced origin does.
async fn trace(request: HttpRequest) -> HttpResponse {
    let mut response = HttpResponse::Ok();
    for name in ["traceparent", "tracestate"] {
        for value in request.headers().get_all(name) {
            response.append_header((name, value.clone()));
        }
    }
    response.finish()
}
