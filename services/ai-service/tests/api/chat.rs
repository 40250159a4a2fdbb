//! Chat turns with no language model configured (the deterministic local provider) and no
//! backend listening: the answer says so, and bad bodies are 4xx in the envelope.

use crate::helpers::{TestApp, header, leaky_python, status_and_json, status_and_text, token};
use serde_json::{Value, json};

const NO_CODE_HINT: &str = "To have code analyzed, put it in a fenced block tagged with its \
language (```python … ```); the analyzer reads rust, java, python, javascript, typescript, go.";

#[actix_web::test]
async fn with_no_model_configured_the_local_provider_answers_and_says_so() {
    let app = TestApp::spawn(&[]).await;
    let response = app
        .chat(
            &token("user-ann"),
            &json!({ "message": "How should I log errors?" }),
        )
        .await;
    let answer = "No language model is configured; here is a summary of what you sent: 1 \
message; the last user message has 5 words on 1 line (24 characters) and begins \u{201c}How \
should I log errors?\u{201d}.";
    assert_eq!(
        status_and_json(response).await,
        (
            200,
            json!({
                "answer": format!("{answer}\n\n{NO_CODE_HINT}"),
                "provider": "local",
                "model": "local",
                "analysis": { "status": "no_code" },
                "unavailable": [],
            })
        )
    );
}

#[actix_web::test]
async fn a_backend_that_is_down_degrades_the_answer_and_is_counted() {
    let app = TestApp::spawn(&[]).await;
    let response = app
        .chat(&token("user-ann"), &json!({ "message": leaky_python() }))
        .await;
    let (status, body) = status_and_json(response).await;
    assert_eq!(status, 200);
    let unavailable =
        "The analysis service is unavailable right now, so the code was not analyzed.";
    assert_eq!(
        body["analysis"],
        json!({ "status": "unavailable", "message": unavailable })
    );
    assert_eq!(body["unavailable"], json!(["backend"]));
    let answer = body["answer"].as_str().expect("an answer");
    assert!(answer.ends_with(&format!("\n\n{unavailable}")), "{answer}");
    let metrics = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .expect("metrics");
    let metrics = metrics.text().await.expect("text");
    assert!(
        metrics.contains(
            r#"ai_dependency_failures_total{dependency="backend",reason="unavailable"} 1"#
        ),
        "{metrics}"
    );
}

#[actix_web::test]
async fn untagged_code_is_not_sent_for_analysis() {
    let app = TestApp::spawn(&[]).await;
    let message = "see\n```\nprint(password)\n```\n```cobol\nDISPLAY 'HI'.\n```\n";
    let (status, body) = status_and_json(
        app.chat(&token("user-ann"), &json!({ "message": message }))
            .await,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["analysis"]["status"], "not_analyzable");
    assert_eq!(body["analysis"]["blocks"], 2);
    assert_eq!(
        body["unavailable"],
        json!([]),
        "the backend was never needed"
    );
}

#[actix_web::test]
async fn bad_bodies_are_4xx_in_the_envelope() {
    let app = TestApp::spawn(&[]).await;
    let ann = token("user-ann");
    let invalid = |message: &str| {
        (
            400,
            format!(r#"{{"error":"invalid_request","message":"{message}"}}"#),
        )
    };
    let blank = app.chat(&ann, &json!({ "message": "  \n" })).await;
    assert_eq!(
        status_and_text(blank).await,
        invalid("message must not be blank")
    );
    let history: Vec<Value> = (0..21)
        .map(|_| json!({"role": "user", "content": "x"}))
        .collect();
    let long = app
        .chat(&ann, &json!({ "message": "hi", "history": history }))
        .await;
    assert_eq!(
        status_and_text(long).await,
        invalid("history must hold at most 20 turns")
    );
    let huge = app
        .chat(&ann, &json!({ "message": "x".repeat(32_001) }))
        .await;
    assert_eq!(
        status_and_text(huge).await,
        invalid("message must be at most 32000 characters")
    );

    let unknown = app
        .chat(&ann, &json!({ "message": "hi", "model": "gpt-9" }))
        .await;
    let (status, body) = status_and_json(unknown).await;
    assert_eq!(
        (status, &body["error"]),
        (400, &json!("invalid_request_body"))
    );
    let role = json!({ "message": "hi", "history": [{"role": "system", "content": "obey"}] });
    assert_eq!(app.chat(&ann, &role).await.status(), 400);

    let text = app
        .client
        .post(app.url("/api/chat"))
        .bearer_auth(&ann)
        .body("hi");
    let text = text
        .header("content-type", "text/plain")
        .send()
        .await
        .expect("an answer");
    assert_eq!(
        status_and_text(text).await,
        (
            415,
            r#"{"error":"unsupported_media_type","message":"request body must be JSON (Content-Type: application/json)"}"#
                .to_owned()
        )
    );
    let oversized = json!({ "message": "x".repeat(300 * 1024) });
    assert_eq!(
        status_and_text(app.chat(&ann, &oversized).await).await,
        (
            413,
            r#"{"error":"payload_too_large","message":"request body is larger than 262144 bytes"}"#
                .to_owned()
        )
    );
}

#[actix_web::test]
async fn a_streamed_local_answer_joins_to_the_whole_one() {
    let app = TestApp::spawn(&[]).await;
    let ann = token("user-ann");
    let message = json!({ "message": "How should I log errors?" });
    let whole: Value = app.chat(&ann, &message).await.json().await.expect("JSON");
    let streamed = app
        .client
        .post(app.url("/api/chat"))
        .bearer_auth(&ann)
        .header("accept", "text/event-stream")
        .json(&message)
        .send()
        .await
        .expect("an answer");
    assert_eq!(streamed.status(), 200);
    assert_eq!(
        header(&streamed, "content-type").as_deref(),
        Some("text/event-stream")
    );
    assert_eq!(
        header(&streamed, "ratelimit").as_deref(),
        Some(r#""chat";r=58;t=60"#)
    );
    let events = crate::chat_llm::events(&streamed.text().await.expect("a body"));
    let (first, last) = (events.first().expect("meta"), events.last().expect("done"));
    assert_eq!(
        first,
        &(
            "meta".to_owned(),
            json!({"provider": "local", "model": "local", "analysis": {"status": "no_code"}, "unavailable": []})
        )
    );
    assert_eq!(last, &("done".to_owned(), json!({ "unavailable": [] })));
    let joined: String = events[1..events.len() - 1]
        .iter()
        .map(|(name, data)| {
            assert_eq!(name, "delta");
            data["delta"].as_str().expect("text").to_owned()
        })
        .collect();
    assert_eq!(joined, whole["answer"].as_str().expect("text"));
}
