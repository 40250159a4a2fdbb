//! The middleware where a client sees it: a real actix server on port 0, spoken to over HTTP.

use actix_web::{App, HttpResponse, HttpServer, web};
use limiter::{KeyDigest, Limiter, RuleTable};
use limiter_actix::RateLimit;
use std::net::TcpListener;
use testkit::Served;

const FAIL_BODY: &str =
    r#"{"status":"FAIL","message":"Too many requests. Please try again in 1200 second(s)."}"#;

/// The served app (`testkit::Served`: its base URL and client), with the requests the tests
/// send.
struct TestApp(Served);

impl TestApp {
    async fn spawn() -> Self {
        let limiter = Limiter::builder("http-test")
            .group("credential", "3/1h".parse().expect("a valid budget"))
            .group("email", "20/1h".parse().expect("a valid budget"))
            .hidden_group("email_recipient", "2/1h".parse().expect("a valid budget"))
            .build()
            .expect("the limiter builds");
        let rules = RuleTable::new()
            .rule(&["GET"], "/metered", &["credential"])
            .rule(&["POST"], "/signup", &["email", "email_recipient"]);
        let rate_limit = RateLimit::new(limiter, rules)
            .expect("rules name declared groups")
            .key(|request, group| match group.name() {
                "email_recipient" => request
                    .headers()
                    .get("x-recipient")
                    .map(|value| KeyDigest::of(value.as_bytes())),
                _ => request.peer_addr().map(|peer| KeyDigest::of(peer.ip().to_string())),
            })
            .refusal(|refused| {
                let secs = limiter::retry_after_secs(refused.retry_after);
                HttpResponse::TooManyRequests().content_type("application/json").body(format!(
                    r#"{{"status":"FAIL","message":"Too many requests. Please try again in {secs} second(s)."}}"#
                ))
            });
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        let port = listener.local_addr().expect("a bound address").port();
        let server = HttpServer::new(move || {
            App::new()
                .wrap(rate_limit.clone())
                .route("/metered", web::get().to(HttpResponse::Ok))
                .route("/open", web::get().to(HttpResponse::Ok))
                .route("/signup", web::post().to(HttpResponse::Created))
        })
        .workers(1)
        .listen(listener)
        .expect("the server listens")
        .run();
        Self(Served::run(port, server))
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        self.0
            .client
            .get(self.0.url(path))
            .send()
            .await
            .expect("the test server answers")
    }

    async fn signup(&self, recipient: &str) -> reqwest::Response {
        self.0
            .client
            .post(self.0.url("/signup"))
            .header("x-recipient", recipient)
            .send()
            .await
            .expect("the test server answers")
    }
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> Option<&'a str> {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().expect("an ASCII header"))
}

#[actix_web::test]
async fn metered_responses_carry_the_fields_and_the_refusal_its_wait() {
    let app = TestApp::spawn().await;
    for (remaining, reset) in [(2, 1200), (1, 2400), (0, 3600)] {
        let response = app.get("/metered").await;
        assert_eq!(response.status(), 200);
        assert_eq!(
            header(&response, "ratelimit-policy"),
            Some(r#""credential";q=3;w=3600"#)
        );
        let expected = format!(r#""credential";r={remaining};t={reset}"#);
        assert_eq!(header(&response, "ratelimit"), Some(expected.as_str()));
        assert_eq!(header(&response, "retry-after"), None);
    }
    let refused = app.get("/metered").await;
    assert_eq!(refused.status(), 429);
    assert_eq!(header(&refused, "retry-after"), Some("1200"));
    assert_eq!(
        header(&refused, "ratelimit"),
        Some(r#""credential";r=0;t=1200"#)
    );
    assert_eq!(
        header(&refused, "ratelimit-policy"),
        Some(r#""credential";q=3;w=3600"#)
    );
    assert_eq!(refused.text().await.unwrap(), FAIL_BODY);
    app.0.stop().await;
}

#[actix_web::test]
async fn an_unmatched_path_is_never_metered() {
    let app = TestApp::spawn().await;
    for _ in 0..10 {
        let response = app.get("/open").await;
        assert_eq!(response.status(), 200);
        for name in ["ratelimit", "ratelimit-policy", "retry-after"] {
            assert_eq!(header(&response, name), None, "{name}");
        }
    }
    app.0.stop().await;
}

#[actix_web::test]
async fn a_hidden_ceiling_refuses_without_naming_itself() {
    let app = TestApp::spawn().await;
    for _ in 0..2 {
        let response = app.signup("victim@example.com").await;
        assert_eq!(response.status(), 201);
        assert_eq!(
            header(&response, "ratelimit-policy"),
            Some(r#""email";q=20;w=3600"#)
        );
    }
    let refused = app.signup("victim@example.com").await;
    assert_eq!(refused.status(), 429);
    assert_eq!(header(&refused, "retry-after"), Some("1800"));
    assert_eq!(header(&refused, "ratelimit"), Some(r#""email";r=0;t=1800"#));
    let body = refused.text().await.unwrap();
    assert_eq!(
        body,
        r#"{"status":"FAIL","message":"Too many requests. Please try again in 1800 second(s)."}"#
    );
    assert!(!body.contains("recipient"));
    let other_inbox = app.signup("someone-else@example.com").await;
    assert_eq!(other_inbox.status(), 201);
    app.0.stop().await;
}
