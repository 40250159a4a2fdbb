//! Unit tests of the chat-completions JSON: request shape, reply parsing, status meanings.

use super::*;
use crate::Role;

#[test]
fn the_request_leaves_out_unset_limits() {
    let request = ChatRequest::new(vec![ChatMessage::user("hi")]);
    let body = serde_json::to_value(CompletionRequest::new("m", &request)).expect("serialises");
    assert_eq!(
        body,
        serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    );
}

#[test]
fn the_request_carries_set_limits_and_every_role() {
    let request = ChatRequest {
        messages: vec![
            ChatMessage::system("be brief"),
            ChatMessage::user("q"),
            ChatMessage::assistant("a"),
        ],
        max_tokens: Some(64),
        temperature: Some(0.5),
    };
    let body = serde_json::to_value(CompletionRequest::new("m", &request)).expect("serialises");
    assert_eq!(body["max_tokens"], 64);
    assert_eq!(body["temperature"], 0.5);
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|message| message["role"].as_str().expect("role"))
        .collect();
    assert_eq!(roles, ["system", "user", "assistant"]);
    assert_eq!(request.messages[2].role, Role::Assistant);
}

#[test]
fn a_completion_without_model_or_usage_still_parses() {
    let reply =
        parse_completion(br#"{"choices":[{"message":{"content":"ok"}}]}"#, "ours").expect("parses");
    assert_eq!(reply.content, "ok");
    assert_eq!(reply.model, "ours");
    assert_eq!(reply.usage, None);
}

#[test]
fn a_completion_with_null_content_is_a_bad_response() {
    let error = parse_completion(br#"{"choices":[{"message":{"content":null}}]}"#, "m")
        .expect_err("no text");
    assert_eq!(
        error,
        LlmError::BadResponse("no choice with text content".to_owned())
    );
}

#[test]
fn an_unparseable_body_is_quoted_short_and_escaped() {
    let body = format!("<html>\n{}</html>", "x".repeat(500));
    let LlmError::BadResponse(reason) =
        parse_completion(body.as_bytes(), "m").expect_err("not JSON")
    else {
        panic!("expected BadResponse");
    };
    assert!(reason.starts_with("not a chat completion (invalid JSON at line 1, column 1)"));
    assert!(reason.contains(r#""<html>\nxxx"#), "{reason}");
    assert!(reason.ends_with('…'), "{reason}");
    assert!(reason.len() < 200, "{reason}");
}

#[test]
fn statuses_map_to_kinds() {
    assert_eq!(
        refusal(429, Some(" 7 ")),
        LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(7))
        }
    );
    let http_date = Some("Wed, 21 Oct 2015 07:28:00 GMT");
    assert_eq!(
        refusal(429, http_date),
        LlmError::RateLimited { retry_after: None }
    );
    assert_eq!(
        refusal(502, None),
        LlmError::Unavailable { status: Some(502) }
    );
    assert_eq!(refusal(404, None), LlmError::Rejected { status: 404 });
    assert_eq!(refusal(301, None), LlmError::Rejected { status: 301 });
}

#[test]
fn only_identifier_like_error_codes_are_kept() {
    let coded = br#"{"error":{"message":"secret prompt","type":"invalid_request_error","code":"model_not_found"}}"#;
    assert_eq!(error_code(coded).as_deref(), Some("model_not_found"));
    let prose = br#"{"error":{"code":"your prompt said: hi","type":"invalid_request_error"}}"#;
    assert_eq!(error_code(prose).as_deref(), Some("invalid_request_error"));
    assert_eq!(error_code(b"not json"), None);
}

#[test]
fn a_streamed_request_says_so_and_only_then() {
    let request = ChatRequest::new(vec![ChatMessage::user("hi")]);
    let plain = serde_json::to_value(CompletionRequest::new("m", &request)).expect("serialises");
    assert!(plain.get("stream").is_none());
    let streamed = CompletionRequest::new("m", &request).streamed();
    let streamed = serde_json::to_value(streamed).expect("serialises");
    assert_eq!(streamed["stream"], true);
}

#[test]
fn chunks_give_their_delta_text_done_or_a_reason() {
    let piece = r#"{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}"#;
    assert_eq!(parse_chunk(piece), Ok(Chunk::Text("Hel".to_owned())));
    let role_only = r#"{"choices":[{"index":0,"delta":{"role":"assistant"}}]}"#;
    assert_eq!(parse_chunk(role_only), Ok(Chunk::Text(String::new())));
    let usage_only = r#"{"choices":[],"usage":{"total_tokens":8}}"#;
    assert_eq!(parse_chunk(usage_only), Ok(Chunk::Text(String::new())));
    assert_eq!(parse_chunk("[DONE]"), Ok(Chunk::Done));
    assert_eq!(
        parse_chunk(r#"{"error":{"message":"overloaded"}}"#),
        Err(LlmError::Unavailable { status: None })
    );
    let Err(LlmError::BadResponse(reason)) = parse_chunk("<html>") else {
        panic!("HTML is not a chunk");
    };
    assert!(
        reason.starts_with("not a completion chunk (invalid JSON)"),
        "{reason}"
    );
}
