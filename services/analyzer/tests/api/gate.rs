//! The token gate, health, and every way a request can be malformed: 4xx in the envelope.

use crate::helpers::{TOKEN, TestApp, status_and_text};

const UNAUTHORIZED: &str =
    r#"{"error":"unauthorized","message":"valid X-Analyzer-Token header required"}"#;

#[actix_web::test]
async fn health_is_open_and_everything_else_needs_the_token() {
    let app = TestApp::spawn(&[]).await;
    let health = app.client.get(app.url("/health")).send().await.unwrap();
    assert_eq!(
        status_and_text(health).await,
        (200, r#"{"status":"UP"}"#.to_owned())
    );
    for path in ["/analysis-types", "/rules", "/metrics", "/nowhere"] {
        let anonymous = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(
            anonymous.headers().get("ratelimit"),
            None,
            "refused before the limiter: {path}"
        );
        assert_eq!(
            status_and_text(anonymous).await,
            (401, UNAUTHORIZED.to_owned()),
            "{path}"
        );
        let wrong = app
            .client
            .get(app.url(path))
            .header("x-analyzer-token", "nope")
            .send()
            .await
            .unwrap();
        assert_eq!(
            status_and_text(wrong).await,
            (401, UNAUTHORIZED.to_owned()),
            "{path}"
        );
    }
    let post = app
        .client
        .post(app.url("/analyze"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(status_and_text(post).await, (401, UNAUTHORIZED.to_owned()));
}

/// Prometheus can only send the token as a bearer credential, so `/metrics` (and only it)
/// takes that form too; any other scheme, a wrong token or another path is still 401.
#[actix_web::test]
async fn metrics_take_the_token_as_a_bearer_credential_and_nothing_else_does() {
    let app = TestApp::spawn(&[]).await;
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let scrape = app
            .client
            .get(app.url("/metrics"))
            .header("authorization", format!("{scheme} {TOKEN}"))
            .send()
            .await
            .unwrap();
        assert_eq!(scrape.status(), 200, "{scheme}");
        assert!(
            scrape
                .text()
                .await
                .unwrap()
                .contains("limiter_decisions_total")
        );
    }
    let refused = [
        ("/metrics", format!("Bearer {TOKEN}x")),
        ("/metrics", format!("Basic {TOKEN}")),
        ("/metrics", format!("Bearer  {TOKEN}")),
        ("/metrics", TOKEN.to_owned()),
        ("/metrics", "Bearer".to_owned()),
        ("/analysis-types", format!("Bearer {TOKEN}")),
        ("/rules", format!("Bearer {TOKEN}")),
    ];
    for (path, credential) in refused {
        let answer = app
            .client
            .get(app.url(path))
            .header("authorization", &credential)
            .send()
            .await
            .unwrap();
        assert_eq!(
            status_and_text(answer).await,
            (401, UNAUTHORIZED.to_owned()),
            "{path} with {credential}"
        );
    }
}

#[actix_web::test]
async fn a_clients_unparseable_body_is_400_never_500() {
    let app = TestApp::spawn(&[]).await;
    for (path, body) in [
        ("/rules/validate", "899"),
        ("/analyze", r#"{"files":"#),
        ("/analyze", "not json"),
    ] {
        let (status, text) = status_and_text(app.post_raw(path, body).await).await;
        assert_eq!(status, 400, "{path} {body}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["error"], "invalid_request_body", "{text}");
        assert!(
            value["message"]
                .as_str()
                .unwrap()
                .starts_with("request body is not valid: "),
            "{text}"
        );
    }
    let wrong_type = app
        .post_raw(
            "/analyze",
            r#"{"files":[{"path":"a.rs","content":"x"}],"analysisTypes":"all"}"#,
        )
        .await;
    assert_eq!(wrong_type.status(), 400);
}

#[actix_web::test]
async fn wrong_content_type_oversized_body_bad_language_and_unknown_routes() {
    let app = TestApp::spawn(&[("ANALYZER_MAX_BODY_BYTES", "1024")]).await;
    let text = app
        .authed(reqwest::Method::POST, "/analyze")
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    let (status, body) = status_and_text(text).await;
    assert_eq!(status, 415);
    assert_eq!(
        body,
        r#"{"error":"unsupported_media_type","message":"request body must be JSON (Content-Type: application/json)"}"#
    );
    let big = serde_json::json!({ "files": [{ "path": "a.rs", "content": "x".repeat(4096) }] });
    let (status, body) = status_and_text(app.post("/analyze", &big).await).await;
    assert_eq!(
        (status, body.as_str()),
        (
            413,
            r#"{"error":"payload_too_large","message":"request body is larger than 1024 bytes"}"#
        )
    );
    let cobol =
        serde_json::json!({ "files": [{ "path": "a.cbl", "content": "x", "language": "cobol" }] });
    let (status, body) = status_and_text(app.post("/analyze", &cobol).await).await;
    assert_eq!(status, 400);
    assert_eq!(
        body,
        r#"{"error":"unknown_language","message":"files[0].language 'cobol' is not supported; use one of rust, java, python, javascript, typescript, go"}"#
    );
    let unknown = serde_json::json!({ "files": [{ "path": "notes.txt", "content": "x" }] });
    let (status, body) = status_and_text(app.post("/analyze", &unknown).await).await;
    assert_eq!(status, 400);
    assert!(
        body.contains("cannot tell the language of 'notes.txt'"),
        "{body}"
    );
    let (status, body) = status_and_text(app.get("/nowhere").await).await;
    assert_eq!(
        (status, body.as_str()),
        (
            404,
            r#"{"error":"not_found","message":"no route for GET /nowhere"}"#
        )
    );
    let (status, body) = status_and_text(app.get("/analyze").await).await;
    assert_eq!(status, 405);
    assert_eq!(
        body,
        r#"{"error":"method_not_allowed","message":"GET is not allowed on /analyze"}"#
    );
}
