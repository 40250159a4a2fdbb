//! A stand-in analyzer for the failure sequences the real one cannot be made to produce on
//! demand (500, 500, 200; a 429 with a chosen `Retry-After`; a slow answer): it answers a
//! script in order and counts the requests that reached it.

use crate::support::ANALYZER_TOKEN;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use backend::scans::analyzer_client::{AnalyzerClient, RetryPolicy};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// One scripted answer of the stub.
#[derive(Clone)]
pub struct Step {
    pub status: u16,
    pub retry_after: Option<&'static str>,
    pub delay: Duration,
    pub body: Value,
}

impl Step {
    pub fn new(status: u16, body: Value) -> Self {
        Self {
            status,
            retry_after: None,
            delay: Duration::ZERO,
            body,
        }
    }

    pub fn retry_after(mut self, seconds: &'static str) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// A reply the analyzer could have sent for one file.
pub fn reply(findings: u64) -> Value {
    serde_json::json!({ "findings": [], "summary": { "files": 1, "findings": findings } })
}

/// A stand-in analyzer answering its script in order (the last step repeats), 401 without
/// the token, and counting the requests that carried it.
pub struct Stub {
    pub base: String,
    calls: Arc<AtomicUsize>,
}

impl Stub {
    pub fn spawn(script: Vec<Step>) -> Self {
        let calls = Arc::new(AtomicUsize::new(0));
        let shared = (calls.clone(), Arc::new(script));
        let server = HttpServer::new(move || {
            let (calls, script) = shared.clone();
            App::new().default_service(web::to(move |request: HttpRequest| {
                let (calls, script) = (calls.clone(), script.clone());
                async move { answer(&request, &calls, &script).await }
            }))
        })
        .workers(1)
        .disable_signals()
        .bind(("127.0.0.1", 0))
        .expect("the stub binds");
        let base = format!("http://{}", server.addrs()[0]);
        actix_web::rt::spawn(server.run());
        Self { base, calls }
    }

    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    pub fn client(&self, policy: RetryPolicy) -> AnalyzerClient {
        AnalyzerClient::new(&self.base, ANALYZER_TOKEN, policy)
    }
}

async fn answer(request: &HttpRequest, calls: &AtomicUsize, script: &[Step]) -> HttpResponse {
    let token = request.headers().get("x-analyzer-token");
    if token.is_none_or(|token| token.as_bytes() != ANALYZER_TOKEN.as_bytes()) {
        return HttpResponse::Unauthorized().json(serde_json::json!({"error": "unauthorized"}));
    }
    let call = calls.fetch_add(1, Ordering::SeqCst);
    let step = script[call.min(script.len() - 1)].clone();
    tokio::time::sleep(step.delay).await;
    let status = actix_web::http::StatusCode::from_u16(step.status).expect("a status");
    let mut response = HttpResponse::build(status);
    if let Some(seconds) = step.retry_after {
        response.insert_header(("Retry-After", seconds));
    }
    response.json(step.body)
}
