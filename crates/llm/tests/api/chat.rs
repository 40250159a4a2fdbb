//! The happy path over HTTP: what the client sends and how it reads the answer.

use llm::{ChatMessage, ChatReply, ChatRequest, LlmConfig, Provider, Usage};
use serde_json::json;

use crate::stub::{Canned, Stub};
use crate::{TEST_KEY, client, remote_config};

#[actix_web::test]
async fn sends_model_messages_limits_and_bearer_then_parses_the_completion() {
    let stub = Stub::start(vec![Canned::completion("Check the linker flags.")]);
    let llm = client(remote_config(&stub.base_url));
    let request = ChatRequest {
        messages: vec![
            ChatMessage::system("You are terse."),
            ChatMessage::user("Why does the build fail?"),
        ],
        max_tokens: Some(50),
        temperature: Some(0.25),
    };

    let reply = llm.chat(&request).await.expect("a reply");

    assert_eq!(llm.provider(), Provider::OpenAiCompatible);
    assert_eq!(
        reply,
        ChatReply {
            content: "Check the linker flags.".to_owned(),
            model: "stub-model".to_owned(),
            provider: Provider::OpenAiCompatible,
            usage: Some(Usage {
                prompt_tokens: 3,
                completion_tokens: 5,
                total_tokens: 8
            }),
        }
    );
    let received = stub.received();
    assert_eq!(received.len(), 1);
    assert_eq!(
        received[0].authorization.as_deref(),
        Some(format!("Bearer {TEST_KEY}").as_str())
    );
    assert_eq!(
        received[0].body,
        json!({
            "model": "test-model",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Why does the build fail?"}
            ],
            "max_tokens": 50,
            "temperature": 0.25
        })
    );
}

#[actix_web::test]
async fn without_a_key_or_limits_sends_neither_and_a_trailing_slash_is_ignored() {
    let stub = Stub::start(vec![Canned::completion("ok")]);
    let llm = client(LlmConfig {
        api_key: None,
        ..remote_config(&format!("{}/", stub.base_url))
    });

    let request = ChatRequest::new(vec![ChatMessage::user("hi")]);
    llm.chat(&request).await.expect("a reply");

    let received = stub.received();
    assert_eq!(received[0].authorization, None);
    assert_eq!(
        received[0].body,
        json!({"model": "test-model", "messages": [{"role": "user", "content": "hi"}]})
    );
}

#[actix_web::test]
async fn a_reply_serialises_in_camel_case_with_the_providers_own_name() {
    let stub = Stub::start(vec![Canned::completion("ok")]);
    let llm = client(remote_config(&stub.base_url));

    let reply = llm
        .chat(&ChatRequest::new(vec![ChatMessage::user("hi")]))
        .await
        .expect("a reply");

    assert_eq!(
        serde_json::to_value(reply).expect("serialises"),
        json!({
            "content": "ok",
            "model": "stub-model",
            "provider": "openai-compatible",
            "usage": {"promptTokens": 3, "completionTokens": 5, "totalTokens": 8}
        })
    );
}

#[actix_web::test]
async fn debug_output_never_shows_the_key() {
    let config = remote_config("http://127.0.0.1:9/v1");
    let shown = format!("{config:?} {:?}", client(config.clone()));
    assert!(!shown.contains(TEST_KEY), "{shown}");
    assert!(shown.contains("<redacted>"), "{shown}");
}
