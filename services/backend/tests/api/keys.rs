//! Keys are per person: the addresses of one IPv6 subscriber, the tokens of one user, the
//! spellings of one CI key and of one inbox each share one budget; a flood of made-up bearers
//! is one client's budget.

use crate::helpers::{SECRET, TestApp, fail_body, header};
use platform::{JwtKeys, MapEnv, Subject, TokenKind};
use serde_json::json;
use std::time::Duration;

fn keys() -> JwtKeys {
    JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)])).expect("keys")
}

/// An access token of `user`, scoped to `workspace`, issued `age` ago.
fn token(user: &str, workspace: &str, age: Duration) -> String {
    let subject = Subject {
        workspace_id: Some(workspace.to_owned()),
        ..Subject::user(user)
    };
    let issued = std::time::SystemTime::now() - age;
    keys()
        .issue_at(
            TokenKind::Access,
            &subject,
            issued,
            Duration::from_secs(7200),
        )
        .expect("a token")
}

async fn post_with(
    app: &TestApp,
    path: &str,
    headers: &[(&str, &str)],
    body: &serde_json::Value,
) -> reqwest::Response {
    let mut request = app.client.post(app.url(path)).json(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("the backend answers")
}

async fn assert_refused(response: reqwest::Response, secs: u64, what: &str) {
    assert_eq!(
        header(&response, "retry-after").as_deref(),
        Some(secs.to_string().as_str()),
        "{what}"
    );
    assert_eq!(
        (
            response.status().as_u16(),
            response.text().await.expect("a body")
        ),
        (429, fail_body(secs)),
        "{what}"
    );
}

#[actix_web::test]
async fn one_ipv6_subscriber_is_one_budget_whatever_address_it_picks() {
    let app = TestApp::spawn(&[
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
        ("RATE_LIMIT_CREDENTIAL", "5/1h"),
    ])
    .await;
    // A new account address each time, so the login attempt ceiling never speaks.
    let login =
        |n: u32| json!({ "email": format!("user{n}@example.com"), "password": "wrong-password" });
    for host in 1..=5 {
        let address = format!("2001:db8:1:2::{host:x}");
        let response = app
            .post("/api/v1/auth/login", &login(host), Some(&address))
            .await;
        assert_eq!(response.status(), 401, "{address}");
    }
    for address in [
        "2001:db8:1:2::14",
        "2001:db8:1:2:ffff:ffff:ffff:ffff",
        "2001:DB8:1:2::99",
    ] {
        let response = app
            .post("/api/v1/auth/login", &login(6), Some(address))
            .await;
        assert_refused(response, 720, address).await;
    }
    let neighbour = app
        .post("/api/v1/auth/login", &login(7), Some("2001:db8:1:3::1"))
        .await;
    assert_eq!(neighbour.status(), 401, "another /64 is another subscriber");
    for n in 10..15 {
        app.post("/api/v1/auth/login", &login(n), Some("198.51.100.7"))
            .await;
    }
    let mapped = app
        .post(
            "/api/v1/auth/login",
            &login(15),
            Some("::ffff:198.51.100.7"),
        )
        .await;
    assert_refused(mapped, 720, "an IPv4-mapped address is the IPv4 client").await;
}

#[actix_web::test]
async fn the_ipv6_prefix_is_a_setting() {
    let app = TestApp::spawn(&[
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
        ("RATE_LIMIT_CREDENTIAL", "1/1h"),
        ("RATE_LIMIT_IPV6_PREFIX", "48"),
    ])
    .await;
    let login = json!({ "email": "x@example.com", "password": "wrong-password" });
    let first = app
        .post("/api/v1/auth/login", &login, Some("2001:db8:1:2::1"))
        .await;
    assert_eq!(first.status(), 401);
    let same_48 = app
        .post("/api/v1/auth/login", &login, Some("2001:db8:1:ffff::1"))
        .await;
    assert_refused(same_48, 3600, "one /48").await;
}

#[actix_web::test]
async fn every_token_of_one_user_spends_one_expensive_budget() {
    let app = TestApp::spawn(&[("RATE_LIMIT_EXPENSIVE", "3/1h")]).await;
    let body = json!({});
    let tokens = [
        token("user-ann", "ws-one", Duration::ZERO),
        token("user-ann", "ws-two", Duration::from_secs(5)),
        token("user-ann", "ws-one", Duration::from_secs(60)),
    ];
    for token in &tokens {
        let bearer = format!("Bearer {token}");
        let response = post_with(
            &app,
            "/api/v1/analyzer",
            &[("authorization", &bearer)],
            &body,
        )
        .await;
        assert_ne!(response.status(), 429);
    }
    let fresh = format!(
        "Bearer {}",
        token("user-ann", "ws-three", Duration::from_secs(1))
    );
    let refused = post_with(
        &app,
        "/api/v1/analyzer",
        &[("authorization", &fresh)],
        &body,
    )
    .await;
    assert_refused(refused, 1200, "a fourth token of the same user").await;
    let bob = format!("Bearer {}", token("user-bob", "ws-one", Duration::ZERO));
    let other = post_with(&app, "/api/v1/analyzer", &[("authorization", &bob)], &body).await;
    assert_ne!(other.status(), 429, "another user has their own budget");
}

#[actix_web::test]
async fn made_up_bearers_share_their_clients_budget() {
    let app = TestApp::spawn(&[("RATE_LIMIT_EXPENSIVE", "3/1h")]).await;
    for attempt in 0..3 {
        let bearer = format!("Bearer made-up-{attempt}");
        let response = post_with(
            &app,
            "/api/v1/analyzer",
            &[("authorization", &bearer)],
            &json!({}),
        )
        .await;
        assert_eq!(response.status(), 401, "attempt {attempt}");
    }
    let unsigned = post_with(
        &app,
        "/api/v1/analyzer",
        &[("authorization", "Bearer made-up-x")],
        &json!({}),
    )
    .await;
    assert_refused(unsigned, 1200, "a fourth made-up bearer").await;
    let none = post_with(&app, "/api/v1/analyzer", &[], &json!({})).await;
    assert_refused(none, 1200, "no bearer at all").await;
}

#[actix_web::test]
async fn the_ci_budget_is_keyed_on_the_key_the_gatekeeper_reads() {
    let app = TestApp::spawn(&[("RATE_LIMIT_CI", "2/1h")]).await;
    let body = json!({ "files": [] });
    let spellings = [("x-ci-key", "ci-key-one"), ("x-ci-key", "  ci-key-one  ")];
    for (name, value) in spellings {
        let response = post_with(&app, "/api/v1/gatekeeper/check", &[(name, value)], &body).await;
        assert_eq!(response.status(), 401, "{value:?}");
    }
    let bearer = post_with(
        &app,
        "/api/v1/gatekeeper/check",
        &[("authorization", "Bearer  ci-key-one ")],
        &body,
    )
    .await;
    assert_refused(bearer, 1800, "the same key as a bearer").await;
}

#[actix_web::test]
async fn every_spelling_of_one_inbox_shares_its_ceiling() {
    let app = TestApp::spawn(&[
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
        ("RATE_LIMIT_EMAIL_RECIPIENT", "3/1h"),
    ])
    .await;
    let spellings = [
        "victim@gmail.com",
        "Victim+reset@gmail.com",
        "v.i.c.t.i.m@GMAIL.com",
    ];
    for (source, email) in spellings.iter().enumerate() {
        let address = format!("198.51.100.{}", source + 1);
        let body = json!({ "email": email });
        let response = app
            .post("/api/v1/auth/forgot-password", &body, Some(&address))
            .await;
        assert_eq!(response.status(), 202, "{email}");
    }
    let body = json!({ "email": "victim+other@gmail.com" });
    let refused = app
        .post("/api/v1/auth/forgot-password", &body, Some("198.51.100.99"))
        .await;
    assert_refused(refused, 1200, "a fourth spelling of the inbox").await;
}

#[actix_web::test]
async fn a_body_too_large_to_read_for_its_recipient_is_not_served() {
    let app = TestApp::spawn(&[("RATE_LIMIT_EMAIL_RECIPIENT", "1/1h")]).await;
    let victim = json!({ "email": "victim@example.com" });
    let first = app
        .post("/api/v1/auth/forgot-password", &victim, None)
        .await;
    assert_eq!(first.status(), 202);
    // Valid JSON larger than the limit the recipient is read within: its tail alone is a
    // whole document naming the same inbox.
    let padded = format!("{}{victim}", " ".repeat(300 * 1024));
    let response = app
        .client
        .post(app.url("/api/v1/auth/forgot-password"))
        .header("content-type", "application/json")
        .body(padded)
        .send()
        .await
        .expect("the backend answers");
    let status = response.status().as_u16();
    let body = response.text().await.expect("a body");
    assert!(
        status == 400 && body.starts_with(r#"{"status":400,"message":"#),
        "{status} {body}"
    );
}
