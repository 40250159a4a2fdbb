//! What every estate service answers: health, metrics, unknown routes in the envelope, and the
//! binary's `--help` and `--healthcheck`.

use crate::helpers::{TestApp, status_and_text};
use std::process::Command;

#[actix_web::test]
async fn health_metrics_and_unknown_routes() {
    let app = TestApp::spawn(&[]).await;
    let health = app
        .client
        .get(app.url("/health"))
        .send()
        .await
        .expect("health");
    assert_eq!(
        status_and_text(health).await,
        (200, r#"{"status":"UP"}"#.to_owned())
    );
    let metrics = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .expect("metrics");
    assert_eq!(metrics.status(), 200);
    let text = metrics.text().await.expect("text");
    assert!(text.contains("# TYPE limiter_decisions counter"), "{text}");
    assert!(
        text.contains("# TYPE ai_chat_window_decisions counter"),
        "{text}"
    );
    let missing = app
        .client
        .get(app.url("/api/nope"))
        .send()
        .await
        .expect("404");
    assert_eq!(
        status_and_text(missing).await,
        (
            404,
            r#"{"error":"not_found","message":"no route for GET /api/nope"}"#.to_owned()
        )
    );
    let wrong = app
        .client
        .get(app.url("/api/chat"))
        .send()
        .await
        .expect("405");
    assert_eq!(
        status_and_text(wrong).await,
        (
            405,
            r#"{"error":"method_not_allowed","message":"GET is not allowed on /api/chat"}"#
                .to_owned()
        )
    );
}

#[actix_web::test]
async fn the_binary_helps_and_probes_its_own_health() {
    let binary = env!("CARGO_BIN_EXE_ai-service");
    let help = Command::new(binary)
        .arg("--help")
        .output()
        .expect("it runs");
    assert!(help.status.success());
    let usage = String::from_utf8(help.stdout).expect("text");
    assert!(
        usage.starts_with("ai-service: chat over the user's own findings"),
        "{usage}"
    );
    assert!(usage.contains("default 127.0.0.1:9300"), "{usage}");

    let app = TestApp::spawn(&[]).await;
    let port = app.base.rsplit(':').next().expect("a port").to_owned();
    // Off this thread: the server's own future runs on the test's runtime.
    let probe = tokio::task::spawn_blocking(move || {
        Command::new(binary)
            .arg("--healthcheck")
            .env("PORT", &port)
            .output()
    })
    .await
    .expect("the probe ran")
    .expect("it runs");
    assert!(probe.status.success(), "{probe:?}");
}
