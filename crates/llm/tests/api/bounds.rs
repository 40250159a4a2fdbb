//! A provider that does not stop talking: every way an answer arrives (a completion, an
//! error's body, one event that never ends, events that never end, a completion sent to a
//! streamed call) is read up to the answer bound and no further, and is not asked again.

use futures_util::StreamExt;
use llm::{ChatMessage, ChatRequest, LlmError};

use crate::stub::{Canned, ENDLESS_CAP, Stub};
use crate::{client, remote_config};

/// The bound the client keeps on an answer.
const BOUND: usize = 1024 * 1024;

/// What a client may have made the stub produce before it stopped reading: the bound plus
/// what sockets and the stub's own stream buffer hold. A client that read on would take the
/// whole cap.
const READ_AT_MOST: usize = 16 * 1024 * 1024;

fn hello() -> ChatRequest {
    ChatRequest::new(vec![ChatMessage::user("hello")])
}

fn too_large() -> LlmError {
    LlmError::BadResponse(format!("the answer is larger than {BOUND} bytes"))
}

fn assert_stopped_reading(stub: &Stub) {
    let sent = stub.endless_bytes_sent();
    assert!(
        sent < READ_AT_MOST,
        "the stub produced {sent} bytes of {ENDLESS_CAP}"
    );
    assert_eq!(stub.calls(), 1, "an answer too large is not asked again");
}

#[actix_web::test]
async fn an_endless_completion_is_an_unusable_answer_read_to_its_bound() {
    let start = r#"{"choices":[{"message":{"role":"assistant","content":""#;
    let stub = Stub::start(vec![Canned::status(200).body(start).endless("a")]);
    let llm = client(remote_config(&stub.base_url));

    let error = llm.chat(&hello()).await.expect_err("too large");

    assert_eq!(error, too_large());
    assert_stopped_reading(&stub);
}

#[actix_web::test]
async fn an_endless_refusal_still_says_its_status() {
    let stub = Stub::start(vec![Canned::status(400).body("{").endless(" ")]);
    let llm = client(remote_config(&stub.base_url));

    let error = llm.chat(&hello()).await.expect_err("refused");

    assert_eq!(error, LlmError::Rejected { status: 400 });
    assert_stopped_reading(&stub);
}

#[actix_web::test]
async fn one_event_that_never_ends_ends_the_stream() {
    let stub = Stub::start(vec![
        Canned::events(&["Check "]).stalled().endless("data: a"),
    ]);
    let llm = client(remote_config(&stub.base_url));

    let stream = llm.chat_stream(&hello()).await.expect("a stream");
    let pieces: Vec<_> = stream.collect().await;

    let too_long = LlmError::BadResponse(format!(
        "a line of the event stream is longer than {} bytes",
        llm::stream::MAX_EVENT_LINE_BYTES
    ));
    assert_eq!(pieces, [Ok("Check ".to_owned()), Err(too_long)]);
    assert_stopped_reading(&stub);
}

#[actix_web::test]
async fn events_that_never_end_stop_at_the_bound() {
    let event = r#"data: {"choices":[{"index":0,"delta":{"content":"word "}}]}

"#;
    let stub = Stub::start(vec![Canned::events(&[]).stalled().endless(event)]);
    let llm = client(remote_config(&stub.base_url));

    let stream = llm.chat_stream(&hello()).await.expect("a stream");
    let pieces: Vec<_> = stream.collect().await;

    let (last, text) = pieces.split_last().expect("pieces");
    assert_eq!(last, &Err(too_large()));
    let text: String = text
        .iter()
        .map(|piece| piece.clone().expect("a piece"))
        .collect();
    assert!(text.len() < BOUND, "{} bytes of text", text.len());
    assert!(text.starts_with("word word "), "{}", &text[..20]);
    assert_stopped_reading(&stub);
}

#[actix_web::test]
async fn an_endless_completion_sent_to_a_streamed_call_ends_it() {
    let start = r#"{"choices":[{"message":{"role":"assistant","content":""#;
    let stub = Stub::start(vec![Canned::status(200).body(start).endless("a")]);
    let llm = client(remote_config(&stub.base_url));

    let stream = llm.chat_stream(&hello()).await.expect("a stream");
    let pieces: Vec<_> = stream.collect().await;

    assert_eq!(pieces, [Err(too_large())]);
    assert_stopped_reading(&stub);
}
