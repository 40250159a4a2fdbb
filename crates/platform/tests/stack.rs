//! The one service stack over HTTP, its order seen from outside: a tiny app built through
//! [`Stack`] with a guard that refuses a request without `Authorization`, a limiter of one
//! request, a panicking route and one allowed origin, served on port 0.

use actix_web::body::EitherBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::InternalError;
use actix_web::middleware::Next;
use actix_web::{Error, HttpRequest, HttpResponse, web};
use limiter::{Limiter, RuleTable};
use limiter_actix::RateLimit;
use platform::cors::{CorsConfig, ENV_CORS_ALLOWED_ORIGINS};
use platform::server::Bound;
use platform::stack::Limited;
use platform::{ErrorReference, MapEnv, Rejection, Stack};
use serde_json::json;
use std::net::TcpListener;
use std::time::Duration;

const ALLOWED: &str = "https://app.example.com";
const REQUEST_ID: &str = "stack-test-1";
const UNAUTHORIZED: &str = r#"{"error":"unauthorized"}"#;

/// The guard: no `Authorization`, no entry.
async fn require_authorization(
    request: ServiceRequest,
    next: Next<Limited>,
) -> Result<ServiceResponse<EitherBody<Limited>>, Error> {
    if request.headers().contains_key("authorization") {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    let response = HttpResponse::Unauthorized()
        .content_type("application/json")
        .body(UNAUTHORIZED);
    Ok(request.into_response(response).map_into_right_body())
}

fn internal_error(reference: &ErrorReference) -> HttpResponse {
    HttpResponse::InternalServerError().json(json!({ "reference": reference.as_str() }))
}

fn rejected(rejection: Rejection, _: &HttpRequest) -> Error {
    let response = HttpResponse::build(rejection.status).json(json!({ "error": rejection.code }));
    InternalError::from_response(rejection.message, response).into()
}

async fn boom() -> HttpResponse {
    panic!("the handler broke")
}

async fn echo(body: web::Json<serde_json::Value>) -> HttpResponse {
    HttpResponse::Ok().json(body.into_inner())
}

fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/metered", web::get().to(|| async { "ok" }))
        .route("/boom", web::get().to(boom))
        .route("/echo", web::post().to(echo));
}

/// One request per hour to `GET /metered`, per client address.
fn rate_limit() -> RateLimit {
    let limiter = Limiter::builder("stack-test")
        .group("calls", "1/1h".parse().expect("a valid budget"))
        .build()
        .expect("the limiter builds");
    let table = RuleTable::new().rule(&["GET"], "/metered", &["calls"]);
    RateLimit::new(limiter, table).expect("the table names declared groups")
}

/// Serves the stack (its limiter switched on or off) on a free port; returns its base URL.
fn start(limiter_enabled: bool) -> String {
    let env = MapEnv::from_iter([(ENV_CORS_ALLOWED_ORIGINS, ALLOWED)]);
    let cors = CorsConfig::from_env(&env).expect("a valid origin");
    let stack = Stack::new((), routes, internal_error, rate_limit())
        .limiter_enabled(limiter_enabled)
        .cors(cors)
        .rejections(rejected)
        .json_limit(32)
        .guard(require_authorization);
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let base = format!("http://{}", listener.local_addr().expect("bound"));
    let bound =
        Bound::new("stack-test", listener, Duration::ZERO, move || stack.app()).expect("serves");
    actix_web::rt::spawn(bound.into_server());
    base
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> Option<&'a str> {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().expect("text"))
}

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

#[actix_web::test]
async fn a_panic_answers_the_envelope_with_the_request_id_and_cors_headers() {
    let base = start(true);
    let response = client()
        .get(format!("{base}/boom"))
        .header("origin", ALLOWED)
        .header("authorization", "Bearer t")
        .header("x-request-id", REQUEST_ID)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 500);
    assert_eq!(header(&response, "x-request-id"), Some(REQUEST_ID));
    assert_eq!(
        header(&response, "access-control-allow-origin"),
        Some(ALLOWED)
    );
    assert_eq!(
        header(&response, "access-control-allow-credentials"),
        Some("true")
    );
    let body = response.text().await.unwrap();
    let value: serde_json::Value = serde_json::from_str(&body).unwrap();
    let reference = value["reference"].as_str().unwrap();
    assert!(reference.starts_with("err-"), "{body}");
    assert_eq!(body, format!(r#"{{"reference":"{reference}"}}"#));
}

#[actix_web::test]
async fn a_guard_refusal_spends_no_budget() {
    let base = start(true);
    let url = format!("{base}/metered");
    for _ in 0..3 {
        let refused = client().get(&url).send().await.unwrap();
        assert_eq!(refused.status(), 401);
        assert_eq!(header(&refused, "ratelimit"), None);
        assert_eq!(refused.text().await.unwrap(), UNAUTHORIZED);
    }
    let first = client()
        .get(&url)
        .header("authorization", "Bearer t")
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), 200);
    assert!(header(&first, "ratelimit").is_some());
    assert_eq!(first.text().await.unwrap(), "ok");
    let second = client()
        .get(&url)
        .header("authorization", "Bearer t")
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 429);
    assert!(header(&second, "retry-after").is_some());
    assert_eq!(second.text().await.unwrap(), "");
}

#[actix_web::test]
async fn a_preflight_is_answered_by_cors_before_the_guard() {
    let base = start(true);
    let response = client()
        .request(reqwest::Method::OPTIONS, format!("{base}/metered"))
        .header("origin", ALLOWED)
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "authorization")
        .header("x-request-id", REQUEST_ID)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "x-request-id"), Some(REQUEST_ID));
    assert_eq!(
        header(&response, "access-control-allow-origin"),
        Some(ALLOWED)
    );
    assert_eq!(response.text().await.unwrap(), "");
}

#[actix_web::test]
async fn extractor_failures_are_the_service_envelope() {
    let base = start(true);
    let post = |body: &'static str| {
        client()
            .post(format!("{base}/echo"))
            .header("authorization", "Bearer t")
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let bad = post("{").await.unwrap();
    assert_eq!(bad.status(), 400);
    assert_eq!(
        bad.text().await.unwrap(),
        r#"{"error":"invalid_request_body"}"#
    );
    let large = post(r#"{"text":"longer than the limit of the body"}"#)
        .await
        .unwrap();
    assert_eq!(large.status(), 413);
    assert_eq!(
        large.text().await.unwrap(),
        r#"{"error":"payload_too_large"}"#
    );
}

#[actix_web::test]
async fn a_switched_off_limiter_meters_nothing() {
    let base = start(false);
    for _ in 0..3 {
        let response = client()
            .get(format!("{base}/metered"))
            .header("authorization", "Bearer t")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(header(&response, "ratelimit"), None);
        assert_eq!(response.text().await.unwrap(), "ok");
    }
}
