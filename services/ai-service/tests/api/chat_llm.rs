//! A chat turn with a language model configured: the stand-in provider gets the findings of a
//! real analysis beside the question, answers whole or streamed; a provider that fails, stalls
//! or stops halfway degrades the answer to the local one and says so.

use crate::helpers::{TestApp, leaky_python, status_and_json, status_and_text, token};
use crate::llm_stub::{LlmStub, Reply};
use crate::stack::spawn_backend;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The events of a `text/event-stream` body, as (name, JSON data).
pub fn events(body: &str) -> Vec<(String, Value)> {
    body.split_terminator("\n\n")
        .map(|event| {
            let (name, data) = event.split_once('\n').expect("an event and its data");
            let name = name.strip_prefix("event: ").expect("a named event");
            let data = data.strip_prefix("data: ").expect("one data line");
            (
                name.to_owned(),
                serde_json::from_str(data).expect("JSON data"),
            )
        })
        .collect()
}

async fn app_with(stub: &LlmStub, overrides: &[(&str, &str)]) -> TestApp {
    let mut settings = vec![
        ("LLM_BASE_URL", stub.base_url.as_str()),
        ("LLM_MODEL", "test-model"),
    ];
    settings.extend_from_slice(overrides);
    TestApp::spawn(&settings).await
}

async fn streamed(app: &TestApp, message: &str) -> (u16, String) {
    let body = json!({ "message": message, "stream": true });
    status_and_text(app.chat(&token("user-ann"), &body).await).await
}

#[actix_web::test]
async fn the_provider_answers_with_the_findings_in_its_prompt() {
    let backend = spawn_backend(&[]);
    let stub = LlmStub::start(Reply::Completion(
        "Line 2 logs the password; log the user only.",
    ));
    let app = app_with(&stub, &[("BACKEND_URL", backend.base.as_str())]).await;
    let ann = backend.token("user-ann").await;

    let (status, body) =
        status_and_json(app.chat(&ann, &json!({ "message": leaky_python() })).await).await;

    assert_eq!(status, 200);
    assert_eq!(
        body["answer"],
        "Line 2 logs the password; log the user only."
    );
    assert_eq!(
        (&body["provider"], &body["model"]),
        (&json!("openai-compatible"), &json!("stub-model"))
    );
    assert_eq!(
        (&body["analysis"]["status"], &body["unavailable"]),
        (&json!("done"), &json!([]))
    );
    let sent = &stub.received()[0];
    assert_eq!(
        (&sent["model"], &sent["max_tokens"]),
        (&json!("test-model"), &json!(800))
    );
    let messages = sent["messages"].as_array().expect("messages");
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().expect("role"))
        .collect();
    assert_eq!(roles, ["system", "system", "user"]);
    let findings = messages[1]["content"].as_str().expect("text");
    assert!(
        findings.starts_with("Analyzer findings for the code blocks"),
        "{findings}"
    );
    assert!(findings.contains("\nblock-1.py:2:"), "{findings}");
    assert_eq!(messages[2]["content"], json!(leaky_python()));
}

#[actix_web::test]
async fn a_streamed_answer_is_relayed_piece_by_piece() {
    let stub = LlmStub::start(Reply::Events(vec![
        "Log ",
        "the error, ",
        "not the secret.",
    ]));
    let app = app_with(&stub, &[]).await;
    let expected = concat!(
        "event: meta\ndata: {\"provider\":\"openai-compatible\",\"model\":\"test-model\",",
        "\"analysis\":{\"status\":\"no_code\"},\"unavailable\":[]}\n\n",
        "event: delta\ndata: {\"delta\":\"Log \"}\n\n",
        "event: delta\ndata: {\"delta\":\"the error, \"}\n\n",
        "event: delta\ndata: {\"delta\":\"not the secret.\"}\n\n",
        "event: done\ndata: {\"unavailable\":[]}\n\n",
    );
    assert_eq!(
        streamed(&app, "How do I log a failed login?").await,
        (200, expected.to_owned())
    );
    assert_eq!(stub.received()[0]["stream"], true);
}

#[actix_web::test]
async fn a_provider_that_stops_halfway_ends_the_stream_with_an_error_event() {
    let stub = LlmStub::start(Reply::FailMidStream(vec!["Partial "]));
    let app = app_with(&stub, &[]).await;
    let (status, body) = streamed(&app, "hello").await;
    assert_eq!(status, 200);
    let names: Vec<String> = events(&body).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["meta", "delta", "error", "done"]);
    let tail = concat!(
        "event: error\ndata: {\"error\":\"llm_unavailable\",\"message\":\"the language model ",
        "stopped answering; the answer is incomplete\"}\n\n",
        "event: done\ndata: {\"unavailable\":[\"llm\"]}\n\n"
    );
    assert!(body.ends_with(tail), "{body}");
}

const DOWN: &str =
    "The language model did not answer; this answer was assembled from the analysis alone.";

#[actix_web::test]
async fn a_provider_that_is_down_or_slow_degrades_to_the_local_answer() {
    let down = LlmStub::start(Reply::Status(503));
    let slow = LlmStub::start(Reply::Slow(Duration::from_secs(10)));
    for (stub, timeout) in [(&down, "5000"), (&slow, "300")] {
        let app = app_with(stub, &[("LLM_TIMEOUT_MS", timeout)]).await;
        let started = Instant::now();
        let (status, body) = status_and_json(
            app.chat(&token("user-ann"), &json!({ "message": "hi" }))
                .await,
        )
        .await;
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(status, 200);
        assert_eq!(
            (&body["provider"], &body["model"], &body["unavailable"]),
            (&json!("local"), &json!("local"), &json!(["llm"]))
        );
        let answer = body["answer"].as_str().expect("text");
        assert!(answer.starts_with(&format!("{DOWN}\n\n")), "{answer}");
    }
    assert_eq!(down.received().len(), 3, "a 5xx is retried twice");
}

#[actix_web::test]
async fn a_stream_that_cannot_start_is_the_local_answer_streamed() {
    let stub = LlmStub::start(Reply::Status(401));
    let app = app_with(&stub, &[]).await;
    let (status, body) = streamed(&app, "hello").await;
    assert_eq!(status, 200);
    let events = events(&body);
    assert_eq!(
        events[0],
        (
            "meta".to_owned(),
            json!({"provider": "local", "model": "local", "analysis": {"status": "no_code"}, "unavailable": ["llm"]})
        )
    );
    let joined: String = events[1..events.len() - 1]
        .iter()
        .map(|(_, data)| data["delta"].as_str().expect("a piece").to_owned())
        .collect();
    assert!(joined.starts_with(DOWN), "{joined}");
    assert_eq!(
        events.last().expect("done").1,
        json!({ "unavailable": ["llm"] })
    );
}

#[actix_web::test]
async fn a_provider_that_does_not_stop_talking_is_cut_at_the_answer_bound() {
    let whole = LlmStub::start(Reply::Endless { streamed: false });
    let app = app_with(&whole, &[]).await;
    let (status, body) = status_and_json(
        app.chat(&token("user-ann"), &json!({ "message": "hi" }))
            .await,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["unavailable"], json!(["llm"]));
    let answer = body["answer"].as_str().expect("text");
    assert!(answer.starts_with(&format!("{DOWN}\n\n")), "{answer}");
    assert_eq!(
        whole.received().len(),
        1,
        "an answer too large is not asked again"
    );

    let streamed_stub = LlmStub::start(Reply::Endless { streamed: true });
    let app = app_with(&streamed_stub, &[]).await;
    let (status, body) = streamed(&app, "hello").await;
    assert_eq!(status, 200);
    let names: Vec<String> = events(&body).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["meta", "delta", "error", "done"]);
    assert!(body.len() < 4096, "{} bytes relayed", body.len());
}
