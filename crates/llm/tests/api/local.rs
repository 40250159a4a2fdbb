//! The local provider through the public API: chosen when nothing is configured, offline,
//! deterministic, and honest about being a stand-in.

use std::sync::Arc;

use llm::{ChatMessage, ChatRequest, LlmClient, LlmConfig, Provider};
use platform_core::MapEnv;
use serde_json::json;

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![
            ChatMessage::system("You are terse."),
            ChatMessage::user("Summarise this log. It has two errors.\nERROR a\nERROR b"),
        ],
        max_tokens: Some(10),
        temperature: Some(0.0),
    }
}

#[actix_web::test]
async fn answers_deterministically_and_says_no_model_is_configured() {
    let llm = LlmClient::local();
    let first = llm.chat(&request()).await.expect("local always answers");
    let second = llm
        .clone()
        .chat(&request())
        .await
        .expect("local always answers");

    assert_eq!(llm.provider(), Provider::Local);
    assert_eq!(first, second);
    assert_eq!(
        serde_json::to_value(&first).expect("serialises"),
        json!({
            "content": "No language model is configured; here is a summary of what you sent: \
                        2 messages; the last user message has 11 words on 3 lines \
                        (54 characters) and begins \u{201c}Summarise this log.\u{201d}.",
            "model": "local",
            "provider": "local",
            "usage": null
        })
    );
}

#[actix_web::test]
async fn an_empty_environment_builds_a_local_client() {
    let config = LlmConfig::from_env(&MapEnv::default()).expect("defaults");
    let llm = LlmClient::new(config, Arc::new(limiter::FakeClock::new())).expect("local");
    assert_eq!(llm.provider(), Provider::Local);
    let reply = llm.chat(&request()).await.expect("local always answers");
    assert_eq!(
        reply,
        LlmClient::local().chat(&request()).await.expect("same")
    );
}
