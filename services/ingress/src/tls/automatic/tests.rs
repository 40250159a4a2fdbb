//! The head hyper writes for a request it cannot parse, recognised where it can be and only
//! there.

use super::*;
use tokio::io::AsyncWriteExt;

const DATE: &str = "date: Tue, 01 Dec 2026 19:56:05 GMT\r\n\r\n";
const HSTS_LINE: &str = "strict-transport-security: max-age=31536000; includeSubDomains\r\n";

fn automatic(status: &str) -> String {
    format!("HTTP/1.1 {status}\r\nconnection: close\r\ncontent-length: 0\r\n{DATE}")
}

async fn through(bytes: &[u8], hsts: bool, switched: bool) -> String {
    let answering = Arc::new(Answering::default());
    if switched {
        answering.switch();
    }
    written_with(bytes, hsts, answering).await
}

async fn written_with(bytes: &[u8], hsts: bool, answering: Arc<Answering>) -> String {
    let mut stream = Automatic::new(Vec::new(), hsts, answering);
    stream.write_all(bytes).await.expect("written");
    stream.flush().await.expect("flushed");
    String::from_utf8(stream.inner).expect("text")
}

#[tokio::test]
async fn each_automatic_head_gets_hsts_after_its_status_line() {
    for status in [
        "400 Bad Request",
        "431 Request Header Fields Too Large",
        "414 URI Too Long",
    ] {
        let written = through(automatic(status).as_bytes(), true, false).await;
        assert_eq!(
            written,
            format!(
                "HTTP/1.1 {status}\r\n{HSTS_LINE}connection: close\r\ncontent-length: 0\r\n{DATE}"
            )
        );
    }
}

#[tokio::test]
async fn a_pipelined_answer_before_it_is_left_alone() {
    let answered = format!("HTTP/1.1 404 Not Found\r\n{HSTS_LINE}content-length: 0\r\n{DATE}");
    let bytes = format!("{answered}{}", automatic("400 Bad Request"));
    let written = through(bytes.as_bytes(), true, false).await;
    assert_eq!(
        written,
        format!(
            "{answered}HTTP/1.1 400 Bad Request\r\n{HSTS_LINE}connection: close\r\ncontent-length: 0\r\n{DATE}"
        )
    );
}

#[tokio::test]
async fn other_bytes_a_tunnel_and_hsts_off_are_never_touched() {
    let head = automatic("400 Bad Request");
    let cases = [
        (format!("{head}more"), true, false),
        (
            head.replace("connection: close", "connection: other"),
            true,
            false,
        ),
        (head.clone(), true, true),
        (head.clone(), false, false),
    ];
    for (bytes, hsts, switched) in cases {
        assert_eq!(through(bytes.as_bytes(), hsts, switched).await, bytes);
    }
}

#[tokio::test]
async fn a_body_that_ends_with_such_a_head_is_left_alone() {
    let head = automatic("400 Bad Request");
    for body in [head.clone(), format!("{}{head}", "x".repeat(300))] {
        let answering = Arc::new(Answering::default());
        answering.record(body.as_bytes());
        let answer = format!(
            "HTTP/1.1 200 OK\r\n{HSTS_LINE}content-length: {}\r\n\r\n{body}",
            body.len()
        );
        let written = written_with(answer.as_bytes(), true, answering.clone()).await;
        assert_eq!(written, answer);
        let rest = &body.as_bytes()[body.len() - head.len()..];
        assert_eq!(written_with(rest, true, answering).await, head);
    }
}

#[tokio::test]
async fn the_automatic_head_after_a_body_still_gets_hsts() {
    let answering = Arc::new(Answering::default());
    answering.record(b"{\"status\":\"UP\"}");
    let bytes = format!("{{\"status\":\"UP\"}}{}", automatic("400 Bad Request"));
    let written = written_with(bytes.as_bytes(), true, answering).await;
    assert!(written.ends_with(&format!("HTTP/1.1 400 Bad Request\r\n{HSTS_LINE}connection: close\r\ncontent-length: 0\r\n{DATE}")), "{written}");
}
