//! `/llm/explain`: the deterministic local explanation, a real OpenAI-compatible exchange with
//! a stub provider on loopback (the paid API is the one place a stand-in is right), and an
//! unreachable provider answered in the envelope.

use crate::helpers::{TestApp, status_and_text};
use actix_web::{App, HttpResponse, HttpServer, web};
use serde_json::json;
use std::net::TcpListener;

fn finding() -> serde_json::Value {
    json!({ "finding": { "ruleId": "print-debugging", "message": "println! left in code", "path": "src/main.rs", "line": 3 } })
}

#[actix_web::test]
async fn with_no_provider_the_explanation_is_local_and_stable() {
    let app = TestApp::spawn(&[]).await;
    let first: serde_json::Value = app
        .post("/llm/explain", &finding())
        .await
        .json()
        .await
        .unwrap();
    let second: serde_json::Value = app
        .post("/llm/explain", &finding())
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(first, second);
    assert_eq!(first["provider"], "local");
    assert!(
        first["explanation"]
            .as_str()
            .unwrap()
            .contains("println! left in code"),
        "{first}"
    );
}

async fn chat_completions(body: web::Json<serde_json::Value>) -> HttpResponse {
    let asked = body["messages"][1]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    HttpResponse::Ok().json(json!({
        "model": "stub-model",
        "choices": [{ "index": 0, "message": { "role": "assistant", "content": format!("explained: {asked}") } }],
        "usage": { "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15 }
    }))
}

#[actix_web::test]
async fn with_a_provider_the_finding_goes_to_it() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let stub = HttpServer::new(|| {
        App::new().route("/v1/chat/completions", web::post().to(chat_completions))
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    actix_web::rt::spawn(stub);
    let app = TestApp::spawn(&[("LLM_BASE_URL", url.as_str()), ("LLM_MODEL", "stub-model")]).await;
    let (status, text) = status_and_text(app.post("/llm/explain", &finding()).await).await;
    assert_eq!(status, 200, "{text}");
    let body: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        body["explanation"],
        "explained: Finding print-debugging at src/main.rs:3: println! left in code"
    );
    assert_eq!(
        (body["provider"].as_str(), body["model"].as_str()),
        (Some("openai-compatible"), Some("stub-model"))
    );
}

#[actix_web::test]
async fn an_unreachable_provider_is_a_502_in_the_envelope() {
    let free = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{free}/v1");
    let app = TestApp::spawn(&[("LLM_BASE_URL", url.as_str())]).await;
    let (status, text) = status_and_text(app.post("/llm/explain", &finding()).await).await;
    assert_eq!(
        (status, text.as_str()),
        (
            502,
            r#"{"error":"llm_unavailable","message":"the language model did not answer"}"#
        )
    );
}
