//! MFA and the signed-in user's password routes, where a client meets them.

use crate::auth_support::{login, status_and_body, verified_account};
use crate::helpers::{TestApp, header};
use serde_json::{Value, json};

async fn put_mfa(app: &TestApp, access: &str, enabled: bool) -> reqwest::Response {
    let url = app.url("/api/v1/user/mfa");
    app.client
        .put(url)
        .bearer_auth(access)
        .json(&json!({ "enabled": enabled }))
        .send()
        .await
        .expect("answers")
}

async fn post_authed(app: &TestApp, path: &str, access: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url(path))
        .bearer_auth(access)
        .json(body)
        .send()
        .await
        .expect("answers")
}

async fn last_mail(app: &TestApp, kind: &str) -> Value {
    app.outbox()
        .await
        .into_iter()
        .rev()
        .find(|mail| mail["kind"] == kind)
        .expect("a mail of that kind")
}

#[actix_web::test]
async fn an_mfa_login_needs_the_mailed_code() {
    let app = TestApp::spawn(&[]).await;
    let tokens = verified_account(&app, "mia@example.com", "correct horse battery").await;
    let access = tokens["accessToken"].as_str().expect("access").to_owned();
    let switched = put_mfa(&app, &access, true).await;
    assert_eq!(
        status_and_body(switched).await,
        (200, r#"{"mfaEnabled":true}"#.to_owned())
    );

    let first_step: Value = login(&app, "mia@example.com", "correct horse battery")
        .await
        .json()
        .await
        .expect("JSON");
    assert_eq!(first_step["mfaRequired"], true);
    assert!(
        first_step.get("accessToken").is_none(),
        "no session before the code"
    );
    let mfa_token = first_step["mfaToken"].as_str().expect("an MFA token");
    let code = last_mail(&app, "otp").await["code"]
        .as_str()
        .expect("a code")
        .to_owned();

    let as_access = app
        .post(
            "/api/v1/auth/mfa/verify",
            &json!({ "mfaToken": access, "code": code }),
            None,
        )
        .await;
    let refused = r#"{"status":401,"message":"Invalid or expired token"}"#;
    assert_eq!(
        status_and_body(as_access).await,
        (401, refused.to_owned()),
        "an access token is not an MFA token"
    );

    let verified = app
        .post(
            "/api/v1/auth/mfa/verify",
            &json!({ "mfaToken": mfa_token, "code": code }),
            None,
        )
        .await;
    assert_eq!(verified.status(), 200);
    let session: Value = verified.json().await.expect("tokens");
    assert!(session["accessToken"].is_string() && session["refreshToken"].is_string());
}

#[actix_web::test]
async fn five_wrong_mfa_codes_destroy_the_code() {
    let app = TestApp::spawn(&[]).await;
    let tokens = verified_account(&app, "max@example.com", "correct horse battery").await;
    put_mfa(&app, tokens["accessToken"].as_str().expect("access"), true).await;
    let first_step: Value = login(&app, "max@example.com", "correct horse battery")
        .await
        .json()
        .await
        .expect("JSON");
    let mfa_token = first_step["mfaToken"]
        .as_str()
        .expect("an MFA token")
        .to_owned();
    let code = last_mail(&app, "otp").await["code"]
        .as_str()
        .expect("a code")
        .to_owned();
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 0..4 {
        let answer = app
            .post(
                "/api/v1/auth/mfa/verify",
                &json!({ "mfaToken": mfa_token, "code": wrong }),
                None,
            )
            .await;
        assert_eq!(answer.status(), 400);
    }
    let exhausted = app
        .post(
            "/api/v1/auth/mfa/verify",
            &json!({ "mfaToken": mfa_token, "code": wrong }),
            None,
        )
        .await;
    assert_eq!(header(&exhausted, "retry-after"), None);
    let body = r#"{"status":429,"message":"Too many incorrect codes. Request a new code."}"#;
    assert_eq!(status_and_body(exhausted).await, (429, body.to_owned()));
    let resent = app
        .post(
            "/api/v1/auth/mfa/send-otp",
            &json!({ "mfaToken": mfa_token }),
            None,
        )
        .await;
    assert_eq!(resent.status(), 202);
    let fresh = last_mail(&app, "otp").await["code"]
        .as_str()
        .expect("a code")
        .to_owned();
    let verified = app
        .post(
            "/api/v1/auth/mfa/verify",
            &json!({ "mfaToken": mfa_token, "code": fresh }),
            None,
        )
        .await;
    assert_eq!(verified.status(), 200);
}

#[actix_web::test]
async fn a_password_change_checks_the_current_one_under_the_ceiling() {
    let app = TestApp::spawn(&[]).await;
    let tokens = verified_account(&app, "pat@example.com", "correct horse battery").await;
    let access = tokens["accessToken"].as_str().expect("access").to_owned();
    let change =
        |current: &str, new: &str| json!({ "currentPassword": current, "newPassword": new });
    let wrong = post_authed(
        &app,
        "/api/v1/user/password/change",
        &access,
        &change("nope-nope", "another long one"),
    )
    .await;
    let body = r#"{"status":"UNAUTHORIZED","message":"Invalid password"}"#;
    assert_eq!(status_and_body(wrong).await, (401, body.to_owned()));
    let changed = post_authed(
        &app,
        "/api/v1/user/password/change",
        &access,
        &change("correct horse battery", "another long one"),
    )
    .await;
    assert_eq!(
        status_and_body(changed).await,
        (200, r#"{"message":"Password updated"}"#.to_owned())
    );
    let signed_in = login(&app, "pat@example.com", "another long one").await;
    assert_eq!(signed_in.status(), 200);
    let tokens: Value = signed_in.json().await.expect("tokens");
    // The change ended the caller's session too: the rest goes on in the new one.
    let access = tokens["accessToken"].as_str().expect("access").to_owned();
    assert_eq!(
        login(&app, "pat@example.com", "correct horse battery")
            .await
            .status(),
        401
    );
    for _ in 0..5 {
        post_authed(
            &app,
            "/api/v1/user/password/change",
            &access,
            &change("wrong-guess", "x-long-enough"),
        )
        .await;
    }
    let locked = post_authed(
        &app,
        "/api/v1/user/password/change",
        &access,
        &change("another long one", "y-long-enough"),
    )
    .await;
    assert_eq!(
        locked.status(),
        429,
        "five wrong guesses lock the address here too"
    );
    assert!(header(&locked, "retry-after").is_some());
}

#[actix_web::test]
async fn a_signed_in_user_can_have_a_reset_link_mailed() {
    let app = TestApp::spawn(&[]).await;
    let tokens = verified_account(&app, "ray@example.com", "correct horse battery").await;
    let access = tokens["accessToken"].as_str().expect("access");
    let requested = post_authed(&app, "/api/v1/user/password-reset", access, &json!({})).await;
    assert_eq!(
        status_and_body(requested).await,
        (
            202,
            r#"{"message":"A reset link is on its way"}"#.to_owned()
        )
    );
    let mail = last_mail(&app, "password_reset").await;
    assert_eq!(mail["to"], "ray@example.com");
    assert!(
        mail["link"]
            .as_str()
            .expect("a link")
            .starts_with("/reset-password/")
    );
    let anonymous = app
        .post("/api/v1/user/password-reset", &json!({}), None)
        .await;
    assert_eq!(anonymous.status(), 401);
}
