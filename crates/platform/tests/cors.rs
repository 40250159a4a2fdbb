//! CORS over HTTP with the layer outermost: an allowed origin gets its headers on a 200, a 401
//! from inner middleware, a 429 and a 500; a disallowed origin never gets any.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::{Next, from_fn};
use actix_web::{App, Error, HttpResponse, HttpServer, error, web};
use platform::MapEnv;
use platform::cors::{CorsConfig, ENV_CORS_ALLOWED_ORIGINS};
use reqwest::header::HeaderMap;
use std::net::TcpListener;

const ALLOWED: &str = "https://app.example.com";
const DISALLOWED: &str = "https://evil.example.net";

async fn require_authorization(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    if request.headers().contains_key("authorization") {
        next.call(request).await
    } else {
        Err(error::ErrorUnauthorized("unauthorized"))
    }
}

async fn limited() -> HttpResponse {
    HttpResponse::TooManyRequests()
        .insert_header(("retry-after", "12"))
        .body("slow down")
}

async fn broken() -> Result<HttpResponse, Error> {
    Err(error::ErrorInternalServerError("broken"))
}

/// Starts the app on a free port with `origins` allowed; returns its base URL.
fn start(origins: &str) -> String {
    let env = MapEnv::from_iter([(ENV_CORS_ALLOWED_ORIGINS, origins)]);
    let config = CorsConfig::from_env(&env).expect("valid origins");
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let base = format!("http://{}", listener.local_addr().expect("bound"));
    let server = HttpServer::new(move || {
        let app = App::new()
            .route(
                "/ok",
                web::get().to(|| async { HttpResponse::Ok().body("ok") }),
            )
            .route("/limited", web::get().to(limited))
            .route("/broken", web::get().to(broken))
            .wrap(from_fn(require_authorization));
        // Outermost: every answer above, errors included, passes through it.
        platform::cors::mount(app, Some(&config))
    })
    .workers(1)
    .listen(listener)
    .expect("listens")
    .run();
    actix_web::rt::spawn(server);
    base
}

/// (path, with Authorization, expected status)
const CASES: [(&str, bool, u16); 4] = [
    ("/ok", true, 200),
    ("/ok", false, 401),
    ("/limited", true, 429),
    ("/broken", true, 500),
];

async fn get(base: &str, path: &str, origin: &str, authorized: bool) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .get(format!("{base}{path}"))
        .header("origin", origin);
    if authorized {
        request = request.header("authorization", "Bearer t");
    }
    request.send().await.expect("answered")
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|value| value.to_str().expect("text"))
}

fn sorted_list(headers: &HeaderMap, name: &str) -> Vec<String> {
    let mut items: Vec<String> = header(headers, name)
        .unwrap_or_default()
        .split(',')
        .map(|item| item.trim().to_ascii_lowercase())
        .collect();
    items.sort();
    items
}

fn cors_headers(headers: &HeaderMap) -> Vec<String> {
    headers
        .keys()
        .map(|name| name.as_str().to_owned())
        .filter(|name| name.starts_with("access-control-"))
        .collect()
}

#[actix_web::test]
async fn an_allowed_origin_gets_cors_headers_on_every_status() {
    let base = start(&format!("http://localhost:3000,{ALLOWED}"));
    for (path, authorized, status) in CASES {
        let response = get(&base, path, ALLOWED, authorized).await;
        assert_eq!(response.status().as_u16(), status, "{path}");
        let headers = response.headers();
        assert_eq!(
            header(headers, "access-control-allow-origin"),
            Some(ALLOWED),
            "{path}"
        );
        assert_eq!(
            header(headers, "access-control-allow-credentials"),
            Some("true"),
            "{path}"
        );
        assert_eq!(
            sorted_list(headers, "access-control-expose-headers"),
            [
                "ratelimit",
                "ratelimit-policy",
                "retry-after",
                "x-request-id"
            ],
            "{path}"
        );
    }
}

#[actix_web::test]
async fn a_disallowed_origin_gets_no_cors_header_at_all() {
    let base = start(ALLOWED);
    for (path, authorized, status) in CASES {
        let response = get(&base, path, DISALLOWED, authorized).await;
        assert_eq!(response.status().as_u16(), status, "{path}");
        assert_eq!(
            cors_headers(response.headers()),
            Vec::<String>::new(),
            "{path}"
        );
    }
    let without_origin = reqwest::get(format!("{base}/ok")).await.expect("answered");
    assert_eq!(without_origin.status(), 401);
    assert_eq!(cors_headers(without_origin.headers()), Vec::<String>::new());
}

async fn preflight(base: &str, origin: &str, headers: &str) -> reqwest::Response {
    reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, format!("{base}/ok"))
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", headers)
        .send()
        .await
        .expect("answered")
}

#[actix_web::test]
async fn a_preflight_is_answered_for_allowed_origins_only() {
    let base = start(ALLOWED);
    let allowed = preflight(&base, ALLOWED, "authorization,content-type,x-ci-key").await;
    assert_eq!(allowed.status(), 200);
    let headers = allowed.headers();
    assert_eq!(
        header(headers, "access-control-allow-origin"),
        Some(ALLOWED)
    );
    assert_eq!(
        header(headers, "access-control-allow-credentials"),
        Some("true")
    );
    assert_eq!(header(headers, "access-control-max-age"), Some("3600"));
    assert_eq!(
        sorted_list(headers, "access-control-allow-methods"),
        ["delete", "get", "options", "patch", "post", "put"]
    );
    assert_eq!(
        sorted_list(headers, "access-control-allow-headers"),
        [
            "accept",
            "authorization",
            "content-type",
            "x-ci-key",
            "x-requested-with"
        ]
    );

    // actix-cors answers a preflight it refuses with 400 and no access-control-* header.
    let disallowed = preflight(&base, DISALLOWED, "authorization").await;
    assert_eq!(disallowed.status(), 400);
    assert_eq!(cors_headers(disallowed.headers()), Vec::<String>::new());
    let unknown_header = preflight(&base, ALLOWED, "x-evil").await;
    assert_eq!(unknown_header.status(), 400);
    assert_eq!(cors_headers(unknown_header.headers()), Vec::<String>::new());
}

#[test]
fn the_default_list_is_the_local_front_ends_and_a_wildcard_is_refused() {
    let defaults = CorsConfig::from_env(&MapEnv::default()).expect("defaults parse");
    assert_eq!(
        defaults.origins(),
        [
            "http://localhost:3000",
            "http://127.0.0.1:3000",
            "http://localhost:5173"
        ]
    );
    for (value, expected) in [
        (
            "*",
            "explicit origins such as https://app.example.com: `*` is refused because credentialed requests are allowed",
        ),
        (
            "https://app.example.com/app",
            "comma-separated origins written scheme://host[:port] (http or https, lower case, no path, no trailing slash)",
        ),
    ] {
        let env = MapEnv::from_iter([(ENV_CORS_ALLOWED_ORIGINS, value)]);
        let error = CorsConfig::from_env(&env).expect_err("refused");
        assert_eq!(
            error.to_string(),
            format!("CORS_ALLOWED_ORIGINS is invalid: expected {expected}")
        );
    }
}
