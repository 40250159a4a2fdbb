//! Streamed answers over HTTP: what the client asks for, the pieces it hands over, and how a
//! provider that stops talking, fails or never streams is handled.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use limiter::FakeClock;
use llm::{ChatMessage, ChatRequest, ChatStream, LlmClient, LlmConfig, LlmError, Provider};

use crate::stub::{Canned, Stub};
use crate::{client, remote_config};

fn hello() -> ChatRequest {
    ChatRequest::new(vec![ChatMessage::user("hello")])
}

async fn drain(stream: ChatStream) -> Vec<Result<String, LlmError>> {
    stream.collect().await
}

#[actix_web::test]
async fn pieces_arrive_in_order_and_the_request_asks_for_a_stream() {
    let stub = Stub::start(vec![Canned::events(&["Check ", "the ", "linker."])]);
    let llm = client(remote_config(&stub.base_url));

    let stream = llm.chat_stream(&hello()).await.expect("a stream");

    assert_eq!(
        (stream.provider(), stream.model()),
        (Provider::OpenAiCompatible, "test-model")
    );
    let pieces = drain(stream).await;
    assert_eq!(
        pieces,
        [
            Ok("Check ".to_owned()),
            Ok("the ".to_owned()),
            Ok("linker.".to_owned())
        ]
    );
    let sent = &stub.received()[0].body;
    assert_eq!(
        (&sent["stream"], &sent["model"]),
        (&true.into(), &"test-model".into())
    );
}

#[actix_web::test]
async fn a_provider_that_ignores_stream_gives_one_piece() {
    let stub = Stub::start(vec![Canned::completion("all at once")]);
    let llm = client(remote_config(&stub.base_url));
    let stream = llm.chat_stream(&hello()).await.expect("a stream");
    assert_eq!(drain(stream).await, [Ok("all at once".to_owned())]);
}

#[actix_web::test]
async fn a_provider_gone_quiet_ends_the_stream_with_a_timeout() {
    let stub = Stub::start(vec![Canned::events(&["partial"]).stalled()]);
    // One write with the first pieces, then nothing: the idle timeout ends the stream.
    let llm = client(LlmConfig {
        timeout: Duration::from_millis(300),
        ..remote_config(&stub.base_url)
    });
    let started = Instant::now();
    let stream = llm.chat_stream(&hello()).await.expect("a stream");
    let pieces = drain(stream).await;
    assert_eq!(
        pieces,
        [Ok("partial".to_owned()), Err(LlmError::Timeout)],
        "the piece before the silence is kept"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[actix_web::test]
async fn the_start_is_retried_and_a_refusal_is_an_error_before_any_piece() {
    let stub = Stub::start(vec![Canned::status(503), Canned::events(&["ok"])]);
    let llm = client(remote_config(&stub.base_url));
    let stream = llm
        .chat_stream(&hello())
        .await
        .expect("a stream after a retry");
    assert_eq!(drain(stream).await, [Ok("ok".to_owned())]);
    assert_eq!(stub.calls(), 2);

    let rejected = Stub::start(vec![Canned::status(401)]);
    let error = client(remote_config(&rejected.base_url))
        .chat_stream(&hello())
        .await
        .expect_err("rejected");
    assert_eq!(error, LlmError::Rejected { status: 401 });
}

#[actix_web::test]
async fn the_local_pieces_join_to_the_local_reply() {
    let llm = LlmClient::local();
    let request = ChatRequest::new(vec![ChatMessage::user("Why does it fail?  Line two.")]);
    let reply = llm
        .chat(&request)
        .await
        .expect("the local provider answers");
    let stream = llm.chat_stream(&request).await.expect("a stream");
    assert_eq!(
        (stream.provider(), stream.model()),
        (Provider::Local, "local")
    );
    let pieces: Vec<String> = drain(stream)
        .await
        .into_iter()
        .map(|piece| piece.expect("local pieces never fail"))
        .collect();
    assert!(pieces.len() > 5, "{pieces:?}");
    assert_eq!(pieces.concat(), reply.content);
}

#[actix_web::test]
async fn streams_share_the_pacer_on_a_fake_clock() {
    let stub = Stub::start(vec![Canned::events(&["ok"])]);
    let clock = FakeClock::new();
    let config = LlmConfig {
        pace: "2/1m".parse().expect("a valid pace"),
        timeout: Duration::from_millis(300),
        ..remote_config(&stub.base_url)
    };
    let llm = LlmClient::new(config, Arc::new(clock.clone())).expect("a valid config");

    llm.chat_stream(&hello())
        .await
        .expect("the first slot is free");
    let refused = llm.chat(&hello()).await.expect_err("next slot in 30 s");
    assert_eq!(
        refused,
        LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(30))
        }
    );
    clock.advance(Duration::from_secs(30));
    llm.chat_stream(&hello())
        .await
        .expect("the slot came round");
    assert_eq!(
        stub.calls(),
        2,
        "the refused call never reached the provider"
    );
}
