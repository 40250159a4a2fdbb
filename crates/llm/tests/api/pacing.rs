//! The outbound pacer: every call waits for its slot, inside the whole-call timeout.

use std::sync::Arc;
use std::time::{Duration, Instant};

use limiter::FakeClock;
use llm::{ChatMessage, ChatRequest, LlmClient, LlmConfig, LlmError};

use crate::stub::{Canned, Stub};
use crate::{client, remote_config};

fn hello() -> ChatRequest {
    ChatRequest::new(vec![ChatMessage::user("hello")])
}

#[actix_web::test]
async fn calls_are_spaced_by_the_pace() {
    let stub = Stub::start(vec![Canned::completion("ok")]);
    let llm = client(LlmConfig {
        pace: "10/1s".parse().expect("a valid pace"),
        ..remote_config(&stub.base_url)
    });

    let started = Instant::now();
    for _ in 0..3 {
        llm.chat(&hello()).await.expect("a reply");
    }

    // Slots at 0, 100 and 200 ms: the third call cannot start before 200 ms.
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!(stub.calls(), 3);
}

#[actix_web::test]
async fn clones_share_one_pacer_and_a_slot_beyond_the_timeout_is_refused_at_once() {
    let stub = Stub::start(vec![Canned::completion("ok")]);
    let frozen = FakeClock::new();
    let config = LlmConfig {
        pace: "1/1m".parse().expect("a valid pace"),
        timeout: Duration::from_millis(300),
        ..remote_config(&stub.base_url)
    };
    let llm = LlmClient::new(config, Arc::new(frozen)).expect("a valid config");

    llm.chat(&hello()).await.expect("the first slot is free");
    let error = llm
        .clone()
        .chat(&hello())
        .await
        .expect_err("next slot in 60 s");

    assert_eq!(
        error,
        LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(60))
        }
    );
    assert_eq!(stub.calls(), 1, "the paced call never reached the provider");
    let again = llm
        .chat(&hello())
        .await
        .expect_err("still 60 s away: nothing was booked");
    assert_eq!(
        again,
        LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(60))
        }
    );
}
