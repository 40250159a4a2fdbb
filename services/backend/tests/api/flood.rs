//! A flood of fresh keys never resets a spent budget: the bounded limiter forgets full
//! buckets first and then the least debt, so thousands of one-request addresses push each
//! other out, never the client that spent its hour.

use crate::helpers::{TestApp, fail_body, header};

async fn lookup(app: &TestApp, client: &str) -> reqwest::Response {
    app.client
        .get(app.url("/api/v1/auth/workspace?name=acme"))
        .header("x-forwarded-for", client)
        .send()
        .await
        .expect("the backend answers")
}

#[actix_web::test]
async fn a_spent_budget_survives_a_flood_of_one_request_addresses() {
    let app = TestApp::spawn(&[
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
        ("RATE_LIMIT_CREDENTIAL", "5/1h"),
        ("RATE_LIMIT_MAX_TRACKED_KEYS", "1000"),
    ])
    .await;
    let hot = "198.51.100.1";
    for _ in 0..5 {
        assert_ne!(lookup(&app, hot).await.status(), 429);
    }
    assert_eq!(lookup(&app, hot).await.status(), 429);
    for n in 0..6_000u32 {
        let address = format!("10.{}.{}.{}", n >> 16, (n >> 8) & 0xff, n & 0xff);
        let response = lookup(&app, &address).await;
        assert_ne!(response.status(), 429, "{address}: its first request");
    }
    let after = lookup(&app, hot).await;
    assert_eq!(header(&after, "retry-after").as_deref(), Some("720"));
    assert_eq!(
        (after.status().as_u16(), after.text().await.expect("a body")),
        (429, fail_body(720))
    );
}
