//! Our own failure where a client meets it: a record the store holds but cannot read is a
//! 500 with only its kind and an `err-` reference (CORS headers still on for an allowed
//! origin), and the log holds that reference with the whole cause. A store that cannot answer
//! at all is the 503 of `auth::a_store_that_cannot_answer_fails_closed_without_detail`.

use crate::helpers::{TestApp, header};
use backend::store::Space;
use serde_json::{Value, json};

#[actix_web::test]
async fn an_unreadable_record_is_a_500_with_a_reference_the_log_explains() {
    let logs = testkit::logs::captured();
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
    let logged = logs.containing(&reference);
    let line = logged
        .first()
        .map(ToString::to_string)
        .unwrap_or_else(|| panic!("the reference is logged: {:?}", logs.lines()));
    assert!(
        line.contains("json record"),
        "the cause is logged with it: {line}"
    );
    assert!(
        !line.contains("eve@example.com"),
        "no key in the log: {line}"
    );
}
