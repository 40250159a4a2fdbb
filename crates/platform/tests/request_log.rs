//! The request log over HTTP: a test app with the estate's layers in the services' order
//! (request log, CORS, panic layer, a gate that refuses with an error, the routes). Every
//! answer echoes the request's id — the one it came with when well-formed, a fresh one
//! otherwise — and the log holds one line per request with that id, and the id on the lines
//! written while it was served: a panic's reference, an inner layer's 500.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::{Next, from_fn};
use actix_web::{App, Error, HttpResponse, HttpServer, ResponseError, web};
use platform::panic::CatchPanic;
use platform::reference::ErrorReference;
use platform::{CorsConfig, MapEnv, RequestLog};
use serde_json::{Value, json};
use std::fmt;
use std::net::TcpListener;
use testkit::request_id::{echoed, is_minted};

const ALLOWED: &str = "https://app.example.com";

async fn boom() -> HttpResponse {
    panic!("the database said DELETE FROM accounts")
}

async fn item(path: web::Path<u32>) -> HttpResponse {
    HttpResponse::Ok().body(format!("item {path}"))
}

/// An inner layer's own failure: logged with a fresh reference, like a service's 500 path.
#[derive(Debug)]
struct GateFailed;

impl fmt::Display for GateFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the gate failed")
    }
}

impl ResponseError for GateFailed {
    fn error_response(&self) -> HttpResponse {
        platform::envelope::internal_error("gate", "the gate's store is gone")
    }
}

async fn gate(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    if request.path() == "/gate" {
        return Err(GateFailed.into());
    }
    next.call(request).await
}

fn start() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let base = format!("http://{}", listener.local_addr().expect("bound"));
    let cors = CorsConfig::from_env(&MapEnv::from_iter([("CORS_ALLOWED_ORIGINS", ALLOWED)]))
        .expect("an allow-list");
    let server = HttpServer::new(move || {
        let app = App::new()
            .route("/boom", web::get().to(boom))
            .route("/items/{id}", web::get().to(item))
            .route("/health", web::get().to(platform::health::health))
            .wrap(from_fn(gate))
            .wrap(CatchPanic::new(|reference: &ErrorReference| {
                platform::envelope::internal_envelope("panic", reference)
            }));
        platform::cors::mount(app, Some(&cors)).wrap(RequestLog)
    })
    .workers(1)
    .listen(listener)
    .expect("listens")
    .run();
    actix_web::rt::spawn(server);
    base
}

/// The one request line for `id`, which every other line of the request shares.
fn request_line(id: &str) -> Value {
    let lines: Vec<Value> = testkit::logs::captured()
        .containing(id)
        .into_iter()
        .filter(|line| line["message"] == "answered")
        .collect();
    assert_eq!(lines.len(), 1, "one request line for {id}: {lines:?}");
    assert_eq!(lines[0]["span"]["request_id"], id);
    lines[0].clone()
}

#[actix_web::test]
async fn a_well_formed_id_is_kept_echoed_and_logged_with_the_route_pattern() {
    testkit::logs::captured();
    let base = start();
    let id = "test-kept-0af7651916cd43dd8448eb21";
    let response = reqwest::Client::new()
        .get(format!("{base}/items/42?token=secret"))
        .header("x-request-id", id)
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 200);
    assert_eq!(echoed(response.headers()), id);
    assert_eq!(response.text().await.expect("body"), "item 42");
    let line = request_line(id);
    assert_eq!(line["level"], "INFO");
    assert_eq!(line["method"], "GET");
    assert_eq!(line["route"], "/items/{id}");
    assert_eq!(line["status"], 200);
    assert!(line["duration_ms"].as_f64().is_some(), "{line}");
    assert!(!line.to_string().contains("secret"), "{line}");
    assert!(!line.to_string().contains("/items/42"), "{line}");
}

#[actix_web::test]
async fn a_missing_or_malformed_id_is_replaced_by_a_fresh_one() {
    testkit::logs::captured();
    let base = start();
    let client = reqwest::Client::new();
    let too_long = "a".repeat(65);
    let mut seen = Vec::new();
    let cases: [&[&str]; 9] = [
        &[],
        &[""],
        &[too_long.as_str()],
        &["a b"],
        &["{\"level\":\"ERROR\"}"],
        &["a%0Ab"],
        &["caf\u{e9}"],
        &["one", "two"],
        &["a,b"],
    ];
    for values in cases {
        let mut request = client.get(format!("{base}/nowhere"));
        for value in values {
            request = request.header(
                "x-request-id",
                reqwest::header::HeaderValue::from_bytes(value.as_bytes()).expect("sendable"),
            );
        }
        let response = request.send().await.expect("answered");
        assert_eq!(response.status(), 404, "{values:?}");
        let id = echoed(response.headers());
        assert!(is_minted(&id), "{values:?} answered {id}");
        let line = request_line(&id);
        assert_eq!(line["route"], "-");
        assert_eq!(line["status"], 404);
        seen.push(id);
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), cases.len(), "every id is fresh: {seen:?}");
}

#[actix_web::test]
async fn a_panic_logs_its_reference_with_the_id_and_answers_the_same_envelope() {
    testkit::logs::captured();
    let base = start();
    let id = "test-panic-5b1f0e";
    let response = reqwest::Client::new()
        .get(format!("{base}/boom"))
        .header("x-request-id", id)
        .header("origin", ALLOWED)
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 500);
    assert_eq!(echoed(response.headers()), id);
    assert_eq!(
        response.headers()["access-control-allow-origin"],
        ALLOWED,
        "CORS still dresses the 500"
    );
    let body: Value = response.json().await.expect("the envelope");
    let reference = body["reference"].as_str().expect("a reference").to_owned();
    assert_eq!(
        body,
        json!({ "error": "internal_error", "message": "panic", "reference": reference })
    );
    let panicked = testkit::logs::captured().containing(&reference);
    assert_eq!(panicked.len(), 1, "{panicked:?}");
    assert_eq!(panicked[0]["message"], "handler panicked");
    assert_eq!(panicked[0]["span"]["request_id"], id);
    assert_eq!(request_line(id)["status"], 500);
}

#[actix_web::test]
async fn an_inner_layers_error_is_answered_and_logged_inside_the_request() {
    testkit::logs::captured();
    let base = start();
    let id = "test-gate-77c1";
    let response = reqwest::Client::new()
        .get(format!("{base}/gate"))
        .header("x-request-id", id)
        .header("origin", ALLOWED)
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 500);
    assert_eq!(echoed(response.headers()), id);
    assert_eq!(response.headers()["access-control-allow-origin"], ALLOWED);
    let body: Value = response.json().await.expect("the envelope");
    let reference = body["reference"].as_str().expect("a reference").to_owned();
    assert_eq!(
        body,
        json!({ "error": "internal_error", "message": "gate", "reference": reference })
    );
    let logged = testkit::logs::captured().containing(&reference);
    assert_eq!(logged.len(), 1, "one reference, logged once: {logged:?}");
    assert_eq!(logged[0]["cause"], "the gate's store is gone");
    assert_eq!(logged[0]["span"]["request_id"], id);
    assert_eq!(request_line(id)["status"], 500);
}

#[actix_web::test]
async fn a_refused_preflight_and_a_health_check_carry_an_id_too() {
    testkit::logs::captured();
    let base = start();
    let client = reqwest::Client::new();
    let preflight = client
        .request(reqwest::Method::OPTIONS, format!("{base}/items/1"))
        .header("x-request-id", "test-preflight-1")
        .header("origin", "https://evil.example")
        .header("access-control-request-method", "GET")
        .send()
        .await
        .expect("answered");
    assert_eq!(preflight.status(), 400);
    assert_eq!(echoed(preflight.headers()), "test-preflight-1");
    assert_eq!(request_line("test-preflight-1")["method"], "OPTIONS");
    let health = client
        .get(format!("{base}/health"))
        .header("x-request-id", "test-health-1")
        .send()
        .await
        .expect("answered");
    assert_eq!(health.status(), 200);
    assert_eq!(echoed(health.headers()), "test-health-1");
    assert_eq!(health.text().await.expect("body"), r#"{"status":"UP"}"#);
    assert!(
        testkit::logs::captured()
            .containing("test-health-1")
            .is_empty(),
        "a health check is logged at debug only"
    );
}
