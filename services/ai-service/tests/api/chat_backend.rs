//! A chat turn reaches a REAL backend (and the real analyzer behind it) with the user's own
//! bearer: each user spends their own EXPENSIVE budget, and a slow backend costs a bounded
//! wait, never the answer.

use crate::helpers::{TestApp, leaky_python, status_and_json, token};
use crate::stack::spawn_backend;
use actix_web::{App, HttpResponse, HttpServer, web};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

async fn analysis_of(app: &TestApp, bearer: &str) -> (Value, Value) {
    let response = app
        .chat(bearer, &json!({ "message": leaky_python() }))
        .await;
    let (status, body) = status_and_json(response).await;
    assert_eq!(status, 200, "{body}");
    (body["analysis"].clone(), body["unavailable"].clone())
}

#[actix_web::test]
async fn two_users_have_separate_expensive_budgets_at_the_backend() {
    let backend = spawn_backend(&[("RATE_LIMIT_EXPENSIVE", "2/1h")]);
    let app = TestApp::spawn(&[("BACKEND_URL", backend.base.as_str())]).await;
    let (ann, bob) = (
        backend.token("user-ann").await,
        backend.token("user-bob").await,
    );

    let (first, unavailable) = analysis_of(&app, &ann).await;
    assert_eq!(unavailable, json!([]));
    assert_eq!(
        (&first["status"], &first["blocks"], &first["analyzedBlocks"]),
        (&json!("done"), &json!(1), &json!(1))
    );
    let findings = first["findings"].as_array().expect("findings");
    assert!(
        findings
            .iter()
            .any(|f| f["path"] == "block-1.py" && f["line"] == 2 && f["severity"] == "error"),
        "the password logged on line 2 is found: {first}"
    );
    assert_eq!(
        analysis_of(&app, &ann).await.0,
        first,
        "same code, same findings"
    );

    let spent = "Your analysis budget is spent; code can be analyzed again in 1800 second(s).";
    assert_eq!(
        analysis_of(&app, &ann).await,
        (
            json!({ "status": "rate_limited", "retryAfter": 1800, "message": spent }),
            json!([])
        ),
        "Ann's third call is refused by the backend's EXPENSIVE budget, keyed on her bearer"
    );
    assert_eq!(
        analysis_of(&app, &bob).await.0,
        first,
        "Bob's budget is his own, though both calls came from one ai-service address"
    );
}

/// The ai-service cannot see the backend's sessions: a token whose session ended still chats
/// until it expires, but the backend refuses the analysis, which this service reports as the
/// backend being unavailable (it has no words for a refused bearer).
#[actix_web::test]
async fn a_token_whose_session_ended_chats_but_gets_no_analysis() {
    let backend = spawn_backend(&[]);
    let app = TestApp::spawn(&[("BACKEND_URL", backend.base.as_str())]).await;
    let ann = backend.token("user-ann").await;
    assert_eq!(analysis_of(&app, &ann).await.0["status"], "done");
    backend.end_sessions("user-ann").await;
    let unanalysed = json!({
        "status": "unavailable",
        "message": "The analysis service is unavailable right now, so the code was not analyzed."
    });
    assert_eq!(
        analysis_of(&app, &ann).await,
        (unanalysed, json!(["backend"]))
    );
}

#[actix_web::test]
async fn a_slow_backend_costs_a_bounded_wait() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let slow = format!(
        "http://127.0.0.1:{}",
        listener.local_addr().expect("addr").port()
    );
    let server = HttpServer::new(|| {
        App::new().default_service(web::to(|| async {
            actix_web::rt::time::sleep(Duration::from_secs(10)).await;
            HttpResponse::Ok().finish()
        }))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)
    .expect("listening")
    .run();
    actix_web::rt::spawn(server);
    let app = TestApp::spawn(&[
        ("BACKEND_URL", slow.as_str()),
        ("BACKEND_TIMEOUT_MS", "300"),
    ])
    .await;

    let started = Instant::now();
    let (analysis, unavailable) = analysis_of(&app, &token("user-ann")).await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(analysis["status"], "unavailable");
    assert_eq!(unavailable, json!(["backend"]));
    let metrics = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .expect("metrics");
    let metrics = metrics.text().await.expect("text");
    assert!(
        metrics
            .contains(r#"ai_dependency_failures_total{dependency="backend",reason="timeout"} 1"#),
        "{metrics}"
    );
}
