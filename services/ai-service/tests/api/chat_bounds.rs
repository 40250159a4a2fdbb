//! A chat turn's analysis is bounded: it shows at most 50 findings, says how many were found,
//! and a backend answer past the read bound costs the analysis, never the answer or memory.

use crate::helpers::{TestApp, status_and_json, token};
use crate::llm_stub::{LlmStub, Reply};
use crate::stack::spawn_backend;
use serde_json::json;
use testkit::Flood;

/// A message whose one Python block nearly fills the 32 000-character bound with findings.
fn bait(lines: usize) -> String {
    format!(
        "Too much?\n```python\n{}```\n",
        "print(password)\n".repeat(lines)
    )
}

#[actix_web::test]
async fn a_turn_shows_the_first_fifty_findings_and_counts_the_rest() {
    let backend = spawn_backend(&[]);
    let app = TestApp::spawn(&[("BACKEND_URL", backend.base.as_str())]).await;
    let lines = 1990;
    let response = app
        .chat(
            &backend.token("user-ann").await,
            &json!({ "message": bait(lines) }),
        )
        .await;
    let (status, body) = status_and_json(response).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.to_string().len() < 64 * 1024,
        "{} bytes",
        body.to_string().len()
    );
    let analysis = &body["analysis"];
    // The analyzer kept 1000 of them; the turn shows 50 and keeps the analyzer's count.
    assert_eq!(
        (
            &analysis["status"],
            &analysis["truncated"],
            &analysis["reason"],
            &analysis["found"]
        ),
        (
            &json!("done"),
            &json!(true),
            &json!("max_findings"),
            &json!(lines)
        )
    );
    assert_eq!(analysis["findings"].as_array().map(Vec::len), Some(50));
    let answer = body["answer"].as_str().expect("an answer");
    let listed = format!(
        "The analyzer found {} problem(s) in 1 code block(s); the first 50 are listed:",
        lines
    );
    assert!(answer.contains(&listed), "{answer}");
    assert_eq!(answer.matches("\n- block-1.py:").count(), 50, "{answer}");
}

#[actix_web::test]
async fn the_language_model_is_sent_the_fifty_and_told_how_many_there_were() {
    let backend = spawn_backend(&[]);
    let stub = LlmStub::start(Reply::Completion("Remove the prints."));
    let settings = [
        ("LLM_BASE_URL", stub.base_url.as_str()),
        ("LLM_MODEL", "test-model"),
        ("BACKEND_URL", backend.base.as_str()),
    ];
    let app = TestApp::spawn(&settings).await;
    let response = app
        .chat(
            &backend.token("user-ann").await,
            &json!({ "message": bait(1990) }),
        )
        .await;
    assert_eq!(response.status(), 200);
    let sent = &stub.received()[0];
    let context = sent["messages"][1]["content"]
        .as_str()
        .expect("the findings");
    assert_eq!(context.matches("\nblock-1.py:").count(), 50, "{context}");
    assert!(
        context.ends_with("\nThe analyzer found 1990 problem(s) in all; only these 50 are listed."),
        "{context}"
    );
}

#[actix_web::test]
async fn a_backend_answer_past_the_read_bound_is_no_analysis_and_no_buffer() {
    let offered = 256 * 1024 * 1024;
    let flood = Flood::spawn(offered);
    let app = TestApp::spawn(&[("BACKEND_URL", flood.base.as_str())]).await;
    let message = "Look:\n```python\nprint(password)\n```\n";
    let response = app
        .chat(&token("user-ann"), &json!({ "message": message }))
        .await;
    let (status, body) = status_and_json(response).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (&body["analysis"], &body["unavailable"]),
        (
            &json!({ "status": "unavailable", "message":
                "The analysis service is unavailable right now, so the code was not analyzed." }),
            &json!(["backend"])
        )
    );
    let sent = flood.written();
    assert!(
        sent < 32 * 1024 * 1024,
        "{sent} of {offered} bytes were read"
    );
}
