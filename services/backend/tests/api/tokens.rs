//! Every token that is not a live access token of a live session is the same 401 on a
//! protected route, and CORS wraps that 401 for an allowed origin only.

use crate::helpers::{TestApp, header};
use crate::tenancy_support::{account, call, claims, keys};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use platform::jwt::{Subject, TokenKind};
use reqwest::Method;
use serde_json::json;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const UNAUTHORIZED: &str = r#"{"status":"UNAUTHORIZED","message":"authentication required"}"#;

fn subject() -> Subject {
    Subject {
        workspace_id: Some("9b0e6c38-5b1f-4c43-9a3e-2f1f0d6f1a11".to_owned()),
        role: Some("OWNER".to_owned()),
        email: Some("ada@example.com".to_owned()),
        ..Subject::user("a-user")
    }
}

/// A valid access token with its payload swapped for one naming another user.
fn tampered(token: &str) -> String {
    let parts: Vec<&str> = token.split('.').collect();
    let payload = URL_SAFE_NO_PAD.decode(parts[1]).expect("base64 claims");
    let mut claims: serde_json::Value = serde_json::from_slice(&payload).expect("JSON claims");
    claims["sub"] = json!("someone-else");
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    format!("{}.{payload}.{}", parts[0], parts[2])
}

/// An unsigned token (`alg: none`) with otherwise perfect access claims.
fn unsigned() -> String {
    let exp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
        + 600;
    let header = URL_SAFE_NO_PAD.encode(json!({ "alg": "none", "typ": "JWT" }).to_string());
    let claims = json!({ "sub": "a-user", "exp": exp, "iat": exp - 600, "kind": "access",
        "workspaceId": "9b0e6c38-5b1f-4c43-9a3e-2f1f0d6f1a11", "role": "OWNER" });
    format!("{header}.{}.", URL_SAFE_NO_PAD.encode(claims.to_string()))
}

fn mint_subject(keys: &platform::jwt::JwtKeys, subject: &Subject) -> String {
    keys.issue(TokenKind::Access, subject, TokenKind::Access.default_ttl())
        .expect("a token")
}

#[actix_web::test]
async fn anything_but_a_live_access_token_is_the_same_401() {
    let app = TestApp::spawn(&[]).await;
    let keys = keys();
    let subject = subject();
    let mint = |kind: TokenKind| {
        keys.issue(kind, &subject, kind.default_ttl())
            .expect("a token")
    };
    let ada_session = claims(&account(&app, "ada@example.com").await.token)
        .sid
        .expect("a session");
    let of_session = |session: &str| {
        let subject = Subject {
            session: Some(session.to_owned()),
            ..subject.clone()
        };
        mint_subject(&keys, &subject)
    };
    let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
    let expired = keys
        .issue_at(
            TokenKind::Access,
            &subject,
            an_hour_ago,
            TokenKind::Access.default_ttl(),
        )
        .expect("a token");
    let cases = [
        ("garbage", Some("not.a.jwt".to_owned())),
        ("tampered", Some(tampered(&mint(TokenKind::Access)))),
        ("alg none", Some(unsigned())),
        ("expired", Some(expired)),
        ("refresh", Some(mint(TokenKind::Refresh))),
        ("mfa", Some(mint(TokenKind::Mfa))),
        (
            "email verification",
            Some(mint(TokenKind::EmailVerification)),
        ),
        ("no token", None),
        ("signed, but of no session", Some(mint(TokenKind::Access))),
        ("another user's session", Some(of_session(&ada_session))),
        (
            "a session that never was",
            Some(of_session("0123456789abcdef")),
        ),
    ];
    for (case, token) in cases {
        let answer = call(
            &app,
            Method::GET,
            "/api/v1/projects",
            token.as_deref(),
            None,
        )
        .await;
        assert_eq!(answer, (401, UNAUTHORIZED.to_owned()), "{case}");
    }
    let basic = app
        .client
        .get(app.url("/api/v1/projects"))
        .header(
            "authorization",
            format!("Basic {}", mint(TokenKind::Access)),
        )
        .send()
        .await
        .expect("an answer");
    assert_eq!(basic.status(), 401, "only the Bearer scheme");
}

#[actix_web::test]
async fn a_live_access_token_passes_authentication() {
    let app = TestApp::spawn(&[]).await;
    let ada = account(&app, "ada@example.com").await;
    let answer = call(
        &app,
        Method::GET,
        "/api/v1/workspaces",
        Some(&ada.token),
        None,
    )
    .await;
    assert_eq!(answer, (200, r#"{"workspaces":[]}"#.to_owned()));
}

#[actix_web::test]
async fn the_401_carries_cors_for_an_allowed_origin_and_nothing_for_another() {
    let app = TestApp::spawn(&[]).await;
    let get = |origin: &'static str| {
        app.client
            .get(app.url("/api/v1/projects"))
            .header("origin", origin)
            .send()
    };
    let allowed = get("http://localhost:3000").await.expect("an answer");
    assert_eq!(allowed.status(), 401);
    assert_eq!(
        header(&allowed, "access-control-allow-origin").as_deref(),
        Some("http://localhost:3000")
    );
    assert_eq!(allowed.text().await.expect("a body"), UNAUTHORIZED);
    let other = get("https://evil.example").await.expect("an answer");
    assert_eq!(other.status(), 401);
    let leaked: Vec<_> = other
        .headers()
        .keys()
        .filter(|name| name.as_str().starts_with("access-control-"))
        .collect();
    assert!(leaked.is_empty(), "{leaked:?}");
    assert_eq!(other.text().await.expect("a body"), UNAUTHORIZED);
}
