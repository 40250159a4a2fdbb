//! The client address over HTTP: from 127.0.0.1 a forged `X-Forwarded-For` changes nothing
//! until 127.0.0.1 is a trusted proxy; then the rightmost untrusted hop is the client.

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use platform::client_ip::ENV_TRUSTED_PROXIES;
use platform::{MapEnv, TrustedProxies};
use std::net::TcpListener;

async fn echo(request: HttpRequest, proxies: web::Data<TrustedProxies>) -> HttpResponse {
    let client = platform::client_ip::of_request(&proxies, &request);
    HttpResponse::Ok().body(client.map_or_else(|| "unknown".to_owned(), |ip| ip.to_string()))
}

/// Starts the echo app with `TRUSTED_PROXIES` set to `trusted`; returns its URL.
fn start(trusted: &str) -> String {
    let env = MapEnv::from_iter([(ENV_TRUSTED_PROXIES, trusted)]);
    let proxies = web::Data::new(TrustedProxies::from_env(&env).expect("valid proxies"));
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let url = format!("http://{}/ip", listener.local_addr().expect("bound"));
    let server = HttpServer::new(move || {
        App::new()
            .app_data(proxies.clone())
            .route("/ip", web::get().to(echo))
    })
    .workers(1)
    .listen(listener)
    .expect("listens")
    .run();
    actix_web::rt::spawn(server);
    url
}

async fn client_ip(url: &str, forwarded_for: &[&str]) -> String {
    let request = forwarded_for
        .iter()
        .fold(reqwest::Client::new().get(url), |request, line| {
            request.header("x-forwarded-for", *line)
        });
    let response = request.send().await.expect("answered");
    assert_eq!(response.status(), 200);
    response.text().await.expect("a body")
}

#[actix_web::test]
async fn a_forged_header_from_an_untrusted_peer_changes_nothing() {
    let url = start("");
    assert_eq!(client_ip(&url, &[]).await, "127.0.0.1");
    assert_eq!(client_ip(&url, &["203.0.113.9"]).await, "127.0.0.1");
    assert_eq!(
        client_ip(&url, &["203.0.113.9, 10.0.0.1"]).await,
        "127.0.0.1"
    );
}

#[actix_web::test]
async fn behind_a_trusted_proxy_the_rightmost_untrusted_hop_is_the_client() {
    let url = start("127.0.0.1/32");
    assert_eq!(client_ip(&url, &[]).await, "127.0.0.1");
    assert_eq!(client_ip(&url, &["203.0.113.9"]).await, "203.0.113.9");
    assert_eq!(
        client_ip(&url, &["1.2.3.4, 203.0.113.9"]).await,
        "203.0.113.9"
    );
    assert_eq!(
        client_ip(&url, &["1.2.3.4", "203.0.113.9, 127.0.0.1"]).await,
        "203.0.113.9"
    );
    assert_eq!(client_ip(&url, &["garbage"]).await, "127.0.0.1");
}
