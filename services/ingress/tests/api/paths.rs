//! `path:` rules see the normalized path: dot segments (and their encoded forms), encoded
//! unreserved characters, matrix parameters and doubled slashes do not walk a request past
//! a rule; encoded separators, double encoding, control characters and bytes that are not
//! UTF-8 are the edge's 400; the origin receives the normalized path, so what a rule saw is
//! what the origin routes. Swept with every spelling `testkit::spellings` knows, against an
//! origin that routes as the services do and one that answers everything: only full-width
//! letters (`/ｂlocked`, another path: no Unicode folding) and spellings that normalize to
//! another path reach an origin.

use crate::origins::Origin;
use crate::process::Ingress;
use crate::strict::assert_edge_400;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use percent_encoding::percent_decode_str;
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use testkit::raw::{Exchange, RawRequest, send};
use testkit::sweep::Verdicts;

/// An origin that routes as the estate's services do (actix, on the decoded path): the
/// blocked handler counts what reaches it; `/open/inner` and unknown paths say so.
struct Routed {
    port: u16,
    blocked_hits: Arc<AtomicUsize>,
}

impl Routed {
    fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let blocked_hits = Arc::new(AtomicUsize::new(0));
        let hits = blocked_hits.clone();
        let server = HttpServer::new(move || {
            let hits = hits.clone();
            App::new()
                .route(
                    "/blocked/inner",
                    web::to(move || {
                        hits.fetch_add(1, Ordering::Relaxed);
                        async { HttpResponse::Ok().body("the blocked handler") }
                    }),
                )
                .route("/open/inner", web::to(open))
                .default_service(web::to(no_route))
        })
        .workers(1)
        .disable_signals()
        .listen(listener)
        .expect("listens")
        .run();
        actix_web::rt::spawn(server);
        Self { port, blocked_hits }
    }
}

async fn open(request: HttpRequest) -> HttpResponse {
    HttpResponse::Ok().body(format!("open: {}", request.uri()))
}

async fn no_route(request: HttpRequest) -> HttpResponse {
    HttpResponse::NotFound().body(format!(
        r#"{{"message":"no route for {}"}}"#,
        request.uri().path()
    ))
}

/// The rule under test blocks a prefix with 403; everything else goes to `origin`.
fn file(origin: &str) -> String {
    format!(
        "ingress:\n  - path: ^/blocked(/|$)\n    service: http_status:403\n  - service: {origin}\n"
    )
}

fn blocked(exchange: &Exchange) -> bool {
    exchange.status == 403 && exchange.body.is_empty()
}

#[actix_web::test]
async fn other_spellings_of_a_blocked_path_meet_its_rule() {
    let origin = Routed::start();
    let ingress = Ingress::start(&file(&format!("http://127.0.0.1:{}", origin.port)));
    let address = ingress.proxy.to_string();
    for spelling in [
        "/blocked",
        "/x/../blocked",
        "/%2e/blocked",
        "/x/%2e%2e/blocked/inner",
        "/x/.%2E/blocked",
        "/blocked;x",
        "/blocked;x/inner",
        "/blocked%3Bx/inner",
        "/;x/blocked/inner",
        "/a/..;/blocked/inner",
        "//blocked/inner",
        "/%62locked/inner",
        "/blocked/x/../inner",
    ] {
        let exchange = send(&address, &RawRequest::new("GET", spelling)).await;
        assert!(blocked(&exchange), "{spelling}: {exchange:?}");
    }
    for refused in [
        "/blocked%2finner",
        "/blocked%2Finner",
        "/blocked%5cinner",
        "/blocked\\inner",
        "/%2562locked/inner",
        "/blocked%00",
        "/blocked/inner%0a",
        "/blocked%ff",
        "/%C1%A2locked",
        "/bl%",
        "/bl%6",
        "/bl%zzocked",
    ] {
        let exchange = send(&address, &RawRequest::new("GET", refused)).await;
        assert_edge_400(&exchange, refused);
    }
    assert_eq!(origin.blocked_hits.load(Ordering::Relaxed), 0);
    let metrics = ingress.metrics().await;
    assert!(
        metrics.contains(r#"ingress_client_errors_total{reason="path"} 12"#),
        "{metrics}"
    );
}

#[actix_web::test]
async fn the_origin_receives_the_normalized_path_and_the_query_as_sent() {
    let origin = Routed::start();
    let ingress = Ingress::start(&file(&format!("http://127.0.0.1:{}", origin.port)));
    let address = ingress.proxy.to_string();
    for spelling in [
        "/open/inner",
        "/x/../open/%69nner",
        "/open/./inner",
        "/%6Fpen/inner",
        // A leading `//` would read as an authority to an origin parsing a URL reference.
        "//open/inner",
        "///open/./inner",
    ] {
        let exchange = send(
            &address,
            &RawRequest::new("GET", &format!("{spelling}?q=%2e/..")),
        )
        .await;
        assert_eq!(
            (exchange.status, exchange.body.as_str()),
            (200, "open: /open/inner?q=%2e/.."),
            "{spelling}"
        );
    }
    let kept = send(&address, &RawRequest::new("GET", "/open;v=1/inner")).await;
    assert_eq!(
        kept.status, 404,
        "matrix parameters reach the origin as sent"
    );
    assert_eq!(kept.body, r#"{"message":"no route for /open;v=1/inner"}"#);
}

#[actix_web::test]
async fn no_spelling_of_a_blocked_path_reaches_its_handler() {
    let origin = Routed::start();
    let ingress = Ingress::start(&file(&format!("http://127.0.0.1:{}", origin.port)));
    let refused = |exchange: &Exchange| {
        blocked(exchange) || (exchange.status == 400 && exchange.body == "error code: 400")
    };
    let unrouted = |exchange: &Exchange| {
        exchange.status == 404 && exchange.body.contains(r#""message":"no route for "#)
    };
    let verdicts = Verdicts {
        refused: &refused,
        unrouted: &unrouted,
    };
    let request = RawRequest::new("GET", "/blocked/inner");
    let served = verdicts
        .spellings(&ingress.proxy.to_string(), &request)
        .await;
    assert!(served.is_empty(), "served:\n{}", served.join("\n"));
    assert_eq!(origin.blocked_hits.load(Ordering::Relaxed), 0);
    let swept = testkit::spellings::spellings("/blocked/inner").len();
    assert!(swept > 100, "only {swept} spellings were swept");
}

#[actix_web::test]
async fn no_spelling_reaches_an_origin_that_answers_everything_as_the_blocked_path() {
    let origin = Origin::start("echo");
    let ingress = Ingress::start(&format!(
        "ingress:\n  - path: (?i)^/blocked(/|$)\n    service: http_status:403\n  - service: {}\n",
        origin.url()
    ));
    let address = ingress.proxy.to_string();
    let mut reached = Vec::new();
    for spelling in testkit::spellings::spellings("/blocked/inner") {
        let exchange = send(&address, &RawRequest::new("GET", &spelling)).await;
        if blocked(&exchange) || exchange.status == 400 {
            // The rule, the edge's 400, or hyper's bare 400 for a target it cannot parse.
            continue;
        }
        assert_eq!(exchange.status, 200, "{spelling}: {exchange:?}");
        let seen: Value = serde_json::from_str(&exchange.body).expect("the echo");
        let path = seen["path"].as_str().unwrap_or_default();
        let decoded = percent_decode_str(path).decode_utf8_lossy().to_lowercase();
        if decoded.contains("blocked") {
            reached.push(format!("{spelling} reached the origin as {path}"));
        }
    }
    assert!(reached.is_empty(), "{}", reached.join("\n"));
}
