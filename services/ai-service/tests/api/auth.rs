//! The chat needs a valid ACCESS token: no token, another scheme, a bad signature, an expired
//! token and every other kind of token get the one 401, before any budget is spent.

use crate::helpers::{TestApp, expired_token, header, status_and_text, token, token_of_kind};
use platform::jwt::TokenKind;
use serde_json::json;

const UNAUTHORIZED: &str =
    r#"{"error":"unauthorized","message":"a valid access token is required"}"#;

#[actix_web::test]
async fn every_bad_token_is_the_same_401() {
    let app = TestApp::spawn(&[("AI_RATE_LIMIT_CHAT", "1/1m")]).await;
    let body = json!({ "message": "hello" });
    let mut forged = token("user-ann");
    forged.pop();
    forged.push('x');
    let tokens = [
        forged,
        expired_token("user-ann"),
        token_of_kind(TokenKind::Refresh, "user-ann"),
        token_of_kind(TokenKind::Mfa, "user-ann"),
        token_of_kind(TokenKind::EmailVerification, "user-ann"),
        "not-a-jwt".to_owned(),
    ];
    for bad in &tokens {
        let answer = status_and_text(app.chat(bad, &body).await).await;
        assert_eq!(answer, (401, UNAUTHORIZED.to_owned()), "{bad}");
    }
    let anonymous = app.client.post(app.url("/api/chat")).json(&body);
    let anonymous = anonymous.send().await.expect("an answer");
    assert_eq!(
        status_and_text(anonymous).await,
        (401, UNAUTHORIZED.to_owned())
    );
    let basic = app
        .client
        .post(app.url("/api/chat"))
        .basic_auth("ann", Some("pw"));
    let basic = basic.json(&body).send().await.expect("an answer");
    assert_eq!(status_and_text(basic).await.0, 401);
    // None of them spent Ann's single chat.
    assert_eq!(app.chat(&token("user-ann"), &body).await.status(), 200);
}

#[actix_web::test]
async fn a_401_carries_cors_headers_for_an_allowed_origin_only() {
    let app = TestApp::spawn(&[("CORS_ALLOWED_ORIGINS", "https://app.example.com")]).await;
    let ask = |origin: &'static str| {
        app.client
            .post(app.url("/api/chat"))
            .header("origin", origin)
            .json(&json!({ "message": "hi" }))
            .send()
    };
    let allowed = ask("https://app.example.com").await.expect("an answer");
    assert_eq!(allowed.status(), 401);
    assert_eq!(
        header(&allowed, "access-control-allow-origin").as_deref(),
        Some("https://app.example.com")
    );
    let other = ask("https://evil.example.com").await.expect("an answer");
    assert_eq!(other.status(), 401);
    assert!(
        other
            .headers()
            .keys()
            .all(|name| !name.as_str().starts_with("access-control-")),
        "{:?}",
        other.headers()
    );
}
