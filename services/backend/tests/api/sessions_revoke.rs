//! A password reset, a password change and an MFA change end every earlier session of the
//! user, the caller's own included (it signs in again): old access tokens get the 401 of their
//! route, old refresh tokens the auth 401, and a new sign-in works. Other users keep theirs.

use crate::auth_support::{INVALID_LOGIN, login, status_and_body};
use crate::helpers::TestApp;
use crate::sessions_support::{
    PASSWORD, Pair, assert_ended, authed, pair, protected, refresh, reset_password, signed_in,
    signed_up,
};
use backend::auth::tokens::{SingleUseTokens, TokenPurpose};
use futures_util::future::join;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

const NEW_PASSWORD: &str = "a brand new secret";

/// Two sessions of `email` (signed up, then signed in again) and one of another user.
async fn sessions(app: &TestApp, email: &str) -> (Pair, Pair, Pair) {
    let first = signed_up(app, email).await;
    let second = signed_in(app, email, PASSWORD).await;
    let bystander = signed_up(app, "bystander@example.com").await;
    (first, second, bystander)
}

async fn assert_live(app: &TestApp, session: &Pair, what: &str) {
    assert_eq!(protected(app, &session.access).await.0, 200, "{what}");
}

#[actix_web::test]
async fn a_password_reset_ends_every_earlier_session() {
    let app = TestApp::spawn(&[]).await;
    let (first, second, bystander) = sessions(&app, "wes@example.com").await;
    assert_eq!(
        reset_password(&app, "wes@example.com", NEW_PASSWORD).await,
        (
            200,
            r#"{"status":200,"message":"Password updated"}"#.to_owned()
        )
    );
    assert_ended(&app, &first, "the first session").await;
    assert_ended(&app, &second, "the second session").await;
    assert_live(&app, &bystander, "another user's session").await;
    assert_eq!(
        status_and_body(login(&app, "wes@example.com", PASSWORD).await).await,
        (401, INVALID_LOGIN.to_owned())
    );
    let fresh = signed_in(&app, "wes@example.com", NEW_PASSWORD).await;
    assert_live(&app, &fresh, "a new sign-in").await;
    assert_eq!(refresh(&app, &fresh.refresh).await.0, 200);
}

#[actix_web::test]
async fn a_password_change_ends_every_earlier_session_the_callers_too() {
    let app = TestApp::spawn(&[]).await;
    let (caller, other, bystander) = sessions(&app, "xan@example.com").await;
    let change = json!({ "currentPassword": PASSWORD, "newPassword": NEW_PASSWORD });
    let path = "/api/v1/user/password/change";
    assert_eq!(
        authed(&app, Method::POST, path, &caller.access, &change).await,
        (200, r#"{"message":"Password updated"}"#.to_owned())
    );
    assert_ended(&app, &caller, "the caller's session").await;
    assert_ended(&app, &other, "the other session").await;
    assert_live(&app, &bystander, "another user's session").await;
    let fresh = signed_in(&app, "xan@example.com", NEW_PASSWORD).await;
    assert_live(&app, &fresh, "a new sign-in").await;
}

async fn set_mfa(app: &TestApp, access: &str, enabled: bool) -> (u16, String) {
    let body = json!({ "enabled": enabled });
    authed(app, Method::PUT, "/api/v1/user/mfa", access, &body).await
}

/// Signs in through the MFA step with the mailed code.
async fn signed_in_with_code(app: &TestApp, email: &str) -> Pair {
    let step: Value = login(app, email, PASSWORD)
        .await
        .json()
        .await
        .expect("JSON");
    let mfa_token = step["mfaToken"].as_str().expect("the MFA step");
    let code = crate::auth_support::last_code(app, email).await;
    let verified = app
        .post(
            "/api/v1/auth/mfa/verify",
            &json!({ "mfaToken": mfa_token, "code": code }),
            None,
        )
        .await;
    assert_eq!(verified.status(), 200);
    pair(&verified.text().await.expect("a body"))
}

#[actix_web::test]
async fn turning_mfa_on_or_off_ends_every_earlier_session() {
    let app = TestApp::spawn(&[]).await;
    let (caller, other, bystander) = sessions(&app, "yul@example.com").await;
    assert_eq!(
        set_mfa(&app, &caller.access, true).await,
        (200, r#"{"mfaEnabled":true}"#.to_owned())
    );
    assert_ended(&app, &caller, "on: the caller's session").await;
    assert_ended(&app, &other, "on: the other session").await;
    assert_live(&app, &bystander, "on: another user's session").await;

    let with_code = signed_in_with_code(&app, "yul@example.com").await;
    let second = signed_in_with_code(&app, "yul@example.com").await;
    assert_eq!(
        set_mfa(&app, &with_code.access, true).await,
        (200, r#"{"mfaEnabled":true}"#.to_owned()),
        "no change"
    );
    assert_live(
        &app,
        &with_code,
        "a switch that changes nothing ends nothing",
    )
    .await;
    assert_eq!(
        set_mfa(&app, &with_code.access, false).await,
        (200, r#"{"mfaEnabled":false}"#.to_owned())
    );
    assert_ended(&app, &with_code, "off: the caller's session").await;
    assert_ended(&app, &second, "off: the other session").await;
    let fresh = signed_in(&app, "yul@example.com", PASSWORD).await;
    assert_live(&app, &fresh, "a new sign-in, without the code").await;
}

/// A sign-in that checks the old password while a reset replaces it never yields a session
/// that outlives the reset: whichever finishes first, the old password's session is refused.
#[actix_web::test]
async fn a_sign_in_racing_a_reset_never_outlives_it() {
    let app = TestApp::spawn(&[("AUTH_RATE_LIMIT_CREDENTIAL", "100/15m")]).await;
    signed_up(&app, "zed@example.com").await;
    let links = SingleUseTokens::new(app.store.clone());
    let mut old = PASSWORD.to_owned();
    for round in 0..6 {
        let new = format!("{NEW_PASSWORD} {round}");
        let token = links
            .issue(
                TokenPurpose::PasswordReset,
                "zed@example.com",
                Duration::from_secs(600),
            )
            .await
            .expect("a reset link");
        let (path, body) = (
            format!("/api/v1/auth/reset-password/{token}"),
            json!({ "password": new }),
        );
        let reset = app.post(&path, &body, None);
        let (signed, reset) = join(login(&app, "zed@example.com", &old), reset).await;
        assert_eq!(reset.status(), 200, "round {round}");
        if signed.status() == 200 {
            let session = pair(&signed.text().await.expect("a body"));
            assert_ended(&app, &session, &format!("round {round}")).await;
        }
        old = new;
    }
}
