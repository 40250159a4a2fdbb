//! A flood of fresh keys never resets a spent budget: the bounded limiter forgets full
//! buckets first and then the least debt of the whole store, so thousands of one-request
//! addresses push each other out, never the client that spent its hour.

use crate::helpers::{TestApp, fail_body, header};

const HOT: &str = "198.51.100.1";

async fn lookup(app: &TestApp, client: &str) -> reqwest::Response {
    app.client
        .get(app.url("/api/v1/auth/workspace?name=acme"))
        .header("x-forwarded-for", client)
        .send()
        .await
        .expect("the backend answers")
}

/// The answer as a client reads it: status, Retry-After, body.
async fn answer(response: reqwest::Response) -> (u16, Option<String>, String) {
    let status = response.status().as_u16();
    let retry_after = header(&response, "retry-after");
    (status, retry_after, response.text().await.expect("a body"))
}

fn refused() -> (u16, Option<String>, String) {
    (429, Some("720".to_owned()), fail_body(720))
}

#[actix_web::test]
async fn a_spent_budget_survives_a_flood_of_one_request_addresses() {
    let app = TestApp::spawn(&[
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
        ("RATE_LIMIT_CREDENTIAL", "5/1h"),
        ("RATE_LIMIT_MAX_TRACKED_KEYS", "1000"),
    ])
    .await;
    for _ in 0..5 {
        assert_eq!(lookup(&app, HOT).await.status(), 404);
    }
    assert_eq!(answer(lookup(&app, HOT).await).await, refused());
    let served = answer(lookup(&app, "10.255.255.255").await).await;
    assert_eq!((served.0, served.1.as_deref()), (404, None));
    for n in 0..6_000u32 {
        let address = format!("10.{}.{}.{}", n >> 16, (n >> 8) & 0xff, n & 0xff);
        let response = answer(lookup(&app, &address).await).await;
        assert_eq!(response, served, "{address}: its first request is served");
        if n % 1_000 == 999 {
            let hot = answer(lookup(&app, HOT).await).await;
            assert_eq!(
                hot,
                refused(),
                "the spent client, {n} addresses into the flood"
            );
        }
    }
    assert_eq!(answer(lookup(&app, HOT).await).await, refused());
    // 6 002 addresses through a bound of 1 000 on a clock that did not move: every bucket
    // forgotten was still in debt, and each is counted once.
    let metrics = app
        .client
        .get(app.url("/actuator/prometheus"))
        .send()
        .await
        .expect("the backend answers")
        .text()
        .await
        .expect("a body");
    let evicted =
        r#"limiter_decisions_total{service="backend",group="credential",outcome="evicted"} 5002"#;
    assert!(metrics.lines().any(|line| line == evicted), "{metrics}");
}
