//! Who may call: `Origin` against the allow-list (403), the bearer (401 unless absent or a
//! valid access token), in the envelope of the path refused.

use crate::helpers::{TestApp, access_token, bearer, token};
use platform::jwt::TokenKind;
use std::time::{Duration, SystemTime};

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
const FORBIDDEN_RPC: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32012,"message":"Forbidden: this Origin is not allowed"}}"#;
const FORBIDDEN: &str =
    r#"{"error":"origin_not_allowed","message":"Forbidden: this Origin is not allowed"}"#;
const UNAUTHORIZED_RPC: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32011,"message":"Unauthorized: Authorization must be Bearer <a valid access token>, or absent"}}"#;
const UNAUTHORIZED: &str = r#"{"error":"unauthorized","message":"Unauthorized: Authorization must be Bearer <a valid access token>, or absent"}"#;

#[actix_web::test]
async fn a_disallowed_origin_is_403_with_no_cors_headers() {
    let app = TestApp::spawn(&[]).await;
    for origin in ["https://evil.example", "null", "http://localhost:3001"] {
        let answer = app.post_mcp(PING, &[("origin", origin)]).await;
        assert_eq!(
            (answer.status, answer.body.as_str()),
            (403, FORBIDDEN_RPC),
            "{origin}"
        );
        let cors: Vec<_> = answer
            .headers
            .keys()
            .filter(|name| name.as_str().starts_with("access-control-"))
            .collect();
        assert!(cors.is_empty(), "{origin}: {cors:?}");
    }
    let package = app
        .get("/skills/package", &[("origin", "https://evil.example")])
        .await;
    assert_eq!((package.status, package.body.as_str()), (403, FORBIDDEN));
}

#[actix_web::test]
async fn allowed_origins_and_clients_without_one_are_served() {
    let app = TestApp::spawn(&[("CORS_ALLOWED_ORIGINS", "https://agent.example.com")]).await;
    let allowed = app
        .post_mcp(PING, &[("origin", "https://agent.example.com")])
        .await;
    assert_eq!(allowed.status, 200, "{}", allowed.body);
    assert_eq!(
        allowed.header("access-control-allow-origin"),
        Some("https://agent.example.com")
    );
    let default_origin = app
        .post_mcp(PING, &[("origin", "http://localhost:3000")])
        .await;
    assert_eq!(default_origin.status, 403, "the default list was replaced");
    let no_origin = app.post_mcp(PING, &[]).await;
    assert_eq!(no_origin.status, 200);
}

#[actix_web::test]
async fn a_bearer_that_is_not_a_valid_access_token_is_401() {
    let app = TestApp::spawn(&[]).await;
    let two_hours_ago = SystemTime::now() - Duration::from_secs(2 * 3600);
    let other_keys = platform::JwtKeys::from_env(&platform::MapEnv::from_iter([(
        "SECURITY_JWT_SECRET_KEY",
        "9f2c4e1a7b3d8f60c5e2a91d4b7f3c08e6a15d9b2f4c7e30a8d1b6f5c2e9a473",
    )]))
    .expect("keys");
    let foreign = other_keys
        .issue(
            TokenKind::Access,
            &platform::Subject::user("u"),
            Duration::from_secs(60),
        )
        .expect("signed");
    let refused = [
        "Bearer not-a-token".to_owned(),
        format!(
            "Bearer {}",
            token(TokenKind::Access, "u", None, two_hours_ago)
        ),
        format!(
            "Bearer {}",
            token(TokenKind::Refresh, "u", None, SystemTime::now())
        ),
        format!("Bearer {foreign}"),
        "Basic dXNlcjpwYXNz".to_owned(),
        "Bearer ".to_owned(),
    ];
    for authorization in &refused {
        let answer = app
            .post_mcp(PING, &[("authorization", authorization)])
            .await;
        assert_eq!(
            (answer.status, answer.body.as_str()),
            (401, UNAUTHORIZED_RPC),
            "{authorization}"
        );
        assert_eq!(
            answer.header("www-authenticate"),
            Some(r#"Bearer realm="estate-mcp", error="invalid_token""#)
        );
    }
    let package = app
        .get("/install.sh", &[("authorization", "Bearer x")])
        .await;
    assert_eq!((package.status, package.body.as_str()), (401, UNAUTHORIZED));
    let health = app.get("/health", &[("authorization", "Bearer x")]).await;
    assert_eq!(health.status, 200, "health never looks at credentials");
}

#[actix_web::test]
async fn a_valid_access_token_is_served() {
    let app = TestApp::spawn(&[]).await;
    let (name, value) = bearer(&access_token("user-1", None));
    let answer = app.post_mcp(PING, &[(name, &value)]).await;
    assert_eq!(
        (answer.status, answer.body.as_str()),
        (200, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
    );
}

#[actix_web::test]
async fn a_browser_preflight_may_send_the_protocol_headers() {
    let app = TestApp::spawn(&[("CORS_ALLOWED_ORIGINS", "https://agent.example.com")]).await;
    let preflight = crate::helpers::answer(
        reqwest::Client::new()
            .request(reqwest::Method::OPTIONS, app.url("/mcp"))
            .header("origin", "https://agent.example.com")
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "content-type,mcp-protocol-version,mcp-method,mcp-name",
            ),
    )
    .await;
    assert_eq!(preflight.status, 200, "{}", preflight.body);
    let allowed = preflight
        .header("access-control-allow-headers")
        .expect("allow-headers on an accepted preflight");
    assert!(allowed.contains("mcp-protocol-version"), "{allowed}");
}
