//! Our own failure where a client meets it: a record the store holds but cannot read is a
//! 500 with only its kind and an `err-` reference (CORS headers still on for an allowed
//! origin), and the log holds that reference with the whole cause. A store that cannot answer
//! at all is the 503 of `auth::a_store_that_cannot_answer_fails_closed_without_detail`.

use crate::helpers::{TestApp, header};
use backend::store::Space;
use serde_json::{Value, json};
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Everything logged in this test binary, from the first call on.
fn captured_logs() -> Arc<Mutex<Vec<u8>>> {
    static CAPTURED: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    CAPTURED
        .get_or_init(|| {
            let buffer = Arc::new(Mutex::new(Vec::new()));
            let sink = buffer.clone();
            tracing_subscriber::fmt()
                .with_ansi(false)
                .with_writer(move || Capture(sink.clone()))
                .try_init()
                .expect("no other subscriber in this binary");
            buffer
        })
        .clone()
}

struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut buffer = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[actix_web::test]
async fn an_unreadable_record_is_a_500_with_a_reference_the_log_explains() {
    let logs = captured_logs();
    let app = TestApp::spawn(&[]).await;
    app.store
        .put(Space::Users, "email:eve@example.com", b"{not json", None)
        .await
        .expect("a broken record");
    let response = app
        .client
        .post(app.url("/api/v1/auth/login"))
        .header("origin", "http://localhost:3000")
        .json(&json!({ "email": "eve@example.com", "password": "whatever-password" }))
        .send()
        .await
        .expect("the backend answers");
    assert_eq!(response.status(), 500);
    assert_eq!(
        header(&response, "access-control-allow-origin").as_deref(),
        Some("http://localhost:3000")
    );
    let body: Value = response.json().await.expect("the 500 envelope");
    let reference = body["reference"].as_str().expect("a reference").to_owned();
    assert!(
        reference.starts_with("err-") && reference.len() == 12,
        "{reference}"
    );
    assert_eq!(
        body,
        json!({ "status": "INTERNAL_SERVER_ERROR", "message": "stored record unreadable", "reference": reference })
    );
    let text =
        String::from_utf8_lossy(&logs.lock().unwrap_or_else(PoisonError::into_inner)).into_owned();
    let line = text
        .lines()
        .find(|line| line.contains(&reference))
        .unwrap_or_else(|| panic!("the reference is logged: {text}"));
    assert!(
        line.contains("json record"),
        "the cause is logged with it: {line}"
    );
    assert!(
        !line.contains("eve@example.com"),
        "no key in the log: {line}"
    );
}
