//! One id from the edge into a real service's log: the real backend (in this process, its
//! log captured as the JSON lines `LOG_FORMAT=json` writes) behind the real ingress binary.
//! The id the ingress mints is on the answer, in the ingress's access line, in the backend's
//! request line, and — for a 500 — on the backend's log entry holding the `err-` reference.

use crate::metering::build_backend;
use crate::process::Ingress;
use crate::request_id::access_line;
use backend::store::Space;
use serde_json::{Value, json};
use testkit::request_id::{echoed, is_minted};

/// The backend's lines for `id` (all of them run in its request span).
fn backend_lines(id: &str) -> Vec<Value> {
    testkit::logs::captured()
        .containing(id)
        .into_iter()
        .filter(|line| line["span"]["request_id"] == id)
        .collect()
}

#[actix_web::test]
async fn one_id_from_the_edge_to_the_backends_request_line_and_its_500() {
    testkit::logs::captured();
    let data = tempfile::tempdir().expect("a data directory");
    let app = build_backend(data.path(), &[]);
    let store = app.state().store.clone();
    let port = app.port();
    actix_web::rt::spawn(app.into_server());
    let ingress = Ingress::start(&format!(
        "ingress:\n  - hostname: api.localhost\n    service: http://127.0.0.1:{port}\n  - service: http_status:404\n"
    ));
    store
        .put(Space::Users, "email:eve@example.com", b"{not json", None)
        .await
        .expect("a broken record");
    let login = |email: &'static str| {
        crate::client()
            .post(ingress.url("/api/v1/auth/login"))
            .header("host", "api.localhost")
            .header("x-request-id", "client-chosen-id")
            .json(&json!({ "email": email, "password": "whatever-password" }))
            .send()
    };

    let refused = login("nobody@example.com").await.expect("answered");
    let status = refused.status().as_u16();
    let id = echoed(refused.headers());
    assert!(is_minted(&id), "{id}");
    assert_eq!(access_line(&ingress, &id)["status"], status);
    let lines = backend_lines(&id);
    let answered: Vec<&Value> = lines
        .iter()
        .filter(|line| line["message"] == "answered")
        .collect();
    assert_eq!(answered.len(), 1, "one request line: {lines:?}");
    assert_eq!(answered[0]["route"], "/api/v1/auth/login");
    assert_eq!(answered[0]["method"], "POST");
    assert_eq!(answered[0]["status"], status);

    let failed = login("eve@example.com").await.expect("answered");
    assert_eq!(failed.status().as_u16(), 500);
    let id = echoed(failed.headers());
    assert!(is_minted(&id), "{id}");
    let body: Value = failed.json().await.expect("the 500 envelope");
    let reference = body["reference"].as_str().expect("a reference").to_owned();
    assert_eq!(
        body,
        json!({ "status": "INTERNAL_SERVER_ERROR", "message": "stored record unreadable", "reference": reference }),
        "the envelope holds no id"
    );
    assert_eq!(access_line(&ingress, &id)["status"], 500);
    let logged = testkit::logs::captured().containing(&reference);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["message"], "internal error");
    assert_eq!(logged[0]["span"]["request_id"], id.as_str());
    assert!(
        backend_lines(&id)
            .iter()
            .any(|line| line["message"] == "answered" && line["status"] == 500)
    );
    assert!(
        testkit::logs::captured()
            .containing("client-chosen-id")
            .is_empty()
    );
}
