//! The three groups where a client meets them: each 429 with Retry-After and its body, keyed
//! per subject or per address, the switch, and the counters on /metrics.

use crate::helpers::{Answer, TestApp, access_token, bearer};
use std::time::Duration;

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

fn refused_rpc(seconds: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32010,"message":"Too many requests. Please try again in {seconds} second(s).","data":{{"retryAfterSeconds":{seconds}}}}}}}"#
    )
}

fn refused(seconds: u64) -> String {
    format!(
        r#"{{"error":"rate_limited","message":"Too many requests. Please try again in {seconds} second(s)."}}"#
    )
}

fn assert_refused(answer: &Answer, seconds: u64, body: &str) {
    assert_eq!((answer.status, answer.body.as_str()), (429, body));
    assert_eq!(
        answer.header("retry-after"),
        Some(seconds.to_string().as_str())
    );
}

#[actix_web::test]
async fn the_mcp_group_refuses_with_a_json_rpc_error_and_refills() {
    let app = TestApp::spawn(&[("MCP_RATE_LIMIT_MCP", "2/60s")]).await;
    let first = app.post_mcp(PING, &[]).await;
    assert_eq!(first.status, 200);
    assert_eq!(first.header("ratelimit-policy"), Some(r#""mcp";q=2;w=60"#));
    assert_eq!(first.header("ratelimit"), Some(r#""mcp";r=1;t=30"#));
    assert_eq!(app.post_mcp(PING, &[]).await.status, 200);
    let third = app.post_mcp(PING, &[]).await;
    assert_refused(&third, 30, &refused_rpc(30));
    assert_eq!(third.header("content-type"), Some("application/json"));
    app.clock.advance(Duration::from_secs(20));
    assert_refused(&app.post_mcp(PING, &[]).await, 10, &refused_rpc(10));
    app.clock.advance(Duration::from_secs(10));
    assert_eq!(app.post_mcp(PING, &[]).await.status, 200);
}

#[actix_web::test]
async fn a_subject_has_its_own_budget_apart_from_its_address() {
    let app = TestApp::spawn(&[("MCP_RATE_LIMIT_MCP", "1/60s")]).await;
    let alice = bearer(&access_token("user-alice", None));
    let bob = bearer(&access_token("user-bob", None));
    let alice_again = bearer(&access_token("user-alice", Some("ws-1")));
    assert_eq!(app.post_mcp(PING, &[]).await.status, 200);
    assert_eq!(
        app.post_mcp(PING, &[]).await.status,
        429,
        "anonymous: per address"
    );
    assert_eq!(app.post_mcp(PING, &[(alice.0, &alice.1)]).await.status, 200);
    let refused = app.post_mcp(PING, &[(alice_again.0, &alice_again.1)]).await;
    assert_eq!(
        refused.status, 429,
        "another token of the same subject shares the budget"
    );
    assert_eq!(app.post_mcp(PING, &[(bob.0, &bob.1)]).await.status, 200);
}

#[actix_web::test]
async fn behind_a_trusted_proxy_each_client_address_has_its_budget() {
    let app = TestApp::spawn(&[
        ("MCP_RATE_LIMIT_MCP", "1/60s"),
        ("TRUSTED_PROXIES", "127.0.0.1"),
    ])
    .await;
    let one = [("x-forwarded-for", "198.51.100.1")];
    let two = [("x-forwarded-for", "198.51.100.2")];
    assert_eq!(app.post_mcp(PING, &one).await.status, 200);
    assert_eq!(app.post_mcp(PING, &one).await.status, 429);
    assert_eq!(app.post_mcp(PING, &two).await.status, 200);
    let subscriber = [("x-forwarded-for", "2001:db8:5:5::1")];
    let same_64 = [("x-forwarded-for", "2001:db8:5:5:ffff::9")];
    let other_64 = [("x-forwarded-for", "2001:db8:5:6::1")];
    assert_eq!(app.post_mcp(PING, &subscriber).await.status, 200);
    assert_eq!(
        app.post_mcp(PING, &same_64).await.status,
        429,
        "one /64, one budget"
    );
    assert_eq!(app.post_mcp(PING, &other_64).await.status, 200);

    let untrusting = TestApp::spawn(&[("MCP_RATE_LIMIT_MCP", "1/60s")]).await;
    assert_eq!(untrusting.post_mcp(PING, &one).await.status, 200);
    let forged = untrusting.post_mcp(PING, &two).await;
    assert_eq!(
        forged.status, 429,
        "a forged header from an untrusted peer changes nothing"
    );
}

#[actix_web::test]
async fn the_skills_package_and_installer_groups_refuse_in_the_service_envelope() {
    let app = TestApp::spawn(&[
        ("MCP_RATE_LIMIT_SKILLS_PACKAGE", "2/60s"),
        ("MCP_RATE_LIMIT_INSTALLER", "1/60s"),
    ])
    .await;
    for _ in 0..2 {
        assert_eq!(app.get("/skills/package", &[]).await.status, 200);
    }
    assert_refused(&app.get("/skills/package", &[]).await, 30, &refused(30));
    let installer = app.get("/install.sh", &[]).await;
    assert_eq!(
        installer.header("ratelimit"),
        Some(r#""installer";r=0;t=60"#)
    );
    assert_refused(&app.get("/install.sh", &[]).await, 60, &refused(60));
    assert_eq!(
        app.post_mcp(PING, &[]).await.status,
        200,
        "groups are separate"
    );
    for _ in 0..3 {
        let health = app.get("/health", &[]).await;
        assert_eq!((health.status, health.header("ratelimit")), (200, None));
    }
}

#[actix_web::test]
async fn only_exactly_false_switches_the_limiter_off() {
    let budgets = [
        ("MCP_RATE_LIMIT_MCP", "1/60s"),
        ("MCP_RATE_LIMIT_SKILLS_PACKAGE", "1/60s"),
        ("MCP_RATE_LIMIT_INSTALLER", "1/60s"),
    ];
    let mut off_settings = budgets.to_vec();
    off_settings.push(("MCP_RATE_LIMIT_ENABLED", "false"));
    let off = TestApp::spawn(&off_settings).await;
    for _ in 0..5 {
        let answer = off.post_mcp(PING, &[]).await;
        assert_eq!((answer.status, answer.header("ratelimit")), (200, None));
        assert_eq!(off.get("/skills/package", &[]).await.status, 200);
        assert_eq!(off.get("/install.sh", &[]).await.status, 200);
    }
    let mut mistyped_settings = budgets.to_vec();
    mistyped_settings.push(("MCP_RATE_LIMIT_ENABLED", "False"));
    let mistyped = TestApp::spawn(&mistyped_settings).await;
    assert_eq!(mistyped.post_mcp(PING, &[]).await.status, 200);
    assert_eq!(mistyped.post_mcp(PING, &[]).await.status, 429);
}

#[actix_web::test]
async fn decisions_are_counted_on_metrics() {
    let app = TestApp::spawn(&[("MCP_RATE_LIMIT_MCP", "1/60s")]).await;
    app.post_mcp(PING, &[]).await;
    app.post_mcp(PING, &[]).await;
    let metrics = app.get("/metrics", &[]).await;
    assert_eq!(metrics.status, 200);
    for line in [
        r#"limiter_decisions_total{service="mcp-server",group="mcp",outcome="allowed"} 1"#,
        r#"limiter_decisions_total{service="mcp-server",group="mcp",outcome="refused"} 1"#,
    ] {
        assert!(metrics.body.contains(line), "{line}\n{}", metrics.body);
    }
}
