//! Magic links where a client meets them: `POST /auth/magic-link` answers the same for any
//! address and mails a link only to a verified account; the link signs in once; the route is
//! metered per recipient like every mail-sending route, with the same body as a per-IP refusal.

use crate::auth_support::{status_and_body, verified_account};
use crate::helpers::{SECRET, TestApp, fail_body, header};
use platform::MapEnv;
use platform::jwt::{JwtKeys, TokenKind};
use serde_json::{Value, json};

const LINK_SENT: &str =
    r#"{"status":202,"message":"If this address has an account, a sign-in link is on its way"}"#;
const INVALID_LINK: &str = r#"{"status":400,"message":"Invalid or expired link"}"#;

async fn ask(app: &TestApp, email: &str, source: Option<&str>) -> reqwest::Response {
    app.post(
        "/api/v1/auth/magic-link",
        &json!({ "email": email }),
        source,
    )
    .await
}

/// The token of the last magic link mailed to `email` (the link is `/magic-link/<token>`).
async fn last_link_token(app: &TestApp, email: &str) -> String {
    let mail = app
        .outbox()
        .await
        .into_iter()
        .rev()
        .find(|mail| mail["to"] == email && mail["kind"] == "magic_link")
        .expect("a magic link in the outbox");
    assert_eq!(
        mail.as_object().map(|fields| fields.len()),
        Some(3),
        "{mail}"
    );
    let link = mail["link"].as_str().expect("a link");
    link.strip_prefix("/magic-link/")
        .expect("the link's path")
        .to_owned()
}

async fn verify(app: &TestApp, token: &str) -> reqwest::Response {
    app.post(
        "/api/v1/auth/verify-magic",
        &json!({ "token": token }),
        None,
    )
    .await
}

#[actix_web::test]
async fn a_mailed_link_signs_in_exactly_once() {
    let app = TestApp::spawn(&[]).await;
    verified_account(&app, "ada@example.com", "correct horse battery").await;
    let asked = ask(&app, " ADA@example.com ", None).await;
    assert_eq!(status_and_body(asked).await, (202, LINK_SENT.to_owned()));
    let token = last_link_token(&app, "ada@example.com").await;

    let signed_in = verify(&app, &token).await;
    assert_eq!(signed_in.status(), 200);
    let tokens: Value = signed_in.json().await.expect("tokens");
    let keys =
        JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)])).expect("keys");
    let access = tokens["accessToken"].as_str().expect("an access token");
    let claims = keys
        .verify(TokenKind::Access, access)
        .expect("a valid access token");
    assert_eq!(claims.email.as_deref(), Some("ada@example.com"));
    assert!(tokens["refreshToken"].is_string());

    let replayed = verify(&app, &token).await;
    assert_eq!(
        status_and_body(replayed).await,
        (400, INVALID_LINK.to_owned())
    );
}

#[actix_web::test]
async fn the_answer_is_the_same_whether_or_not_an_account_exists() {
    let app = TestApp::spawn(&[]).await;
    verified_account(&app, "ada@example.com", "correct horse battery").await;
    let unverified =
        json!({ "email": "bob@example.com", "password": "a-long-password", "name": "B" });
    app.post("/api/v1/auth/signup", &unverified, None).await;
    let before = app.outbox().await.len();
    for email in ["nobody@example.com", "bob@example.com", "not an address"] {
        let answer = ask(&app, email, None).await;
        assert_eq!(
            status_and_body(answer).await,
            (202, LINK_SENT.to_owned()),
            "{email}"
        );
    }
    assert_eq!(
        app.outbox().await.len(),
        before,
        "no link for an unknown or unverified address"
    );
    let answer = ask(&app, "ada@example.com", None).await;
    assert_eq!(status_and_body(answer).await, (202, LINK_SENT.to_owned()));
    assert_eq!(app.outbox().await.len(), before + 1);
}

#[actix_web::test]
async fn an_account_with_mfa_gets_the_mfa_step_not_a_session() {
    let app = TestApp::spawn(&[]).await;
    let tokens = verified_account(&app, "ada@example.com", "correct horse battery").await;
    let access = tokens["accessToken"].as_str().expect("an access token");
    let switched = app
        .client
        .put(app.url("/api/v1/user/mfa"))
        .bearer_auth(access)
        .json(&json!({ "enabled": true }))
        .send()
        .await
        .expect("the backend answers");
    assert_eq!(switched.status(), 200);
    ask(&app, "ada@example.com", None).await;
    let answer = verify(&app, &last_link_token(&app, "ada@example.com").await).await;
    assert_eq!(answer.status(), 200);
    let step: Value = answer.json().await.expect("the MFA step");
    assert_eq!(step["mfaRequired"], true, "{step}");
    assert!(step.get("accessToken").is_none(), "{step}");
}

#[actix_web::test]
async fn one_inbox_gets_at_most_its_ceiling_from_many_sources() {
    let app = TestApp::spawn(&[
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
        ("RATE_LIMIT_EMAIL_RECIPIENT", "3/1h"),
    ])
    .await;
    for source in 1..=3 {
        let answer = ask(
            &app,
            "Victim@Example.com",
            Some(&format!("198.51.100.{source}")),
        )
        .await;
        assert_eq!(answer.status(), 202, "source {source}");
        assert!(header(&answer, "ratelimit").is_some_and(|fields| fields.contains("auth_email")));
    }
    let refused = ask(&app, "victim@example.com", Some("198.51.100.99")).await;
    assert_eq!(header(&refused, "retry-after").as_deref(), Some("1200"));
    assert_eq!(status_and_body(refused).await, (429, fail_body(1200)));
    let other_inbox = ask(&app, "someone@example.com", Some("198.51.100.99")).await;
    assert_eq!(
        other_inbox.status(),
        202,
        "another inbox from the same source"
    );
}
