//! Signup where a client meets it: an account is never stored without its code (signing up
//! again for an unverified address always sends a fresh one), and when an unverified address
//! is signed up again with another password, the password that survives is the one given with
//! the signup whose code was used, never an earlier signup's.

use crate::auth_support::{last_code, login, status_and_body};
use crate::helpers::TestApp;
use crate::oracles_support::{BUDGETS, code_for, nth_code};
use serde_json::json;

const CODE_SENT: &str =
    r#"{"status":201,"message":"If this address can receive a code, one is on its way"}"#;

async fn signup(app: &TestApp, email: &str, password: &str) -> (u16, String) {
    let body = json!({ "email": email, "password": password, "name": "Vic" });
    status_and_body(app.post("/api/v1/auth/signup", &body, None).await).await
}

async fn verify(app: &TestApp, email: &str, code: &str) -> u16 {
    let body = json!({ "email": email, "code": code });
    let answer = app.post("/api/v1/auth/verify-otp", &body, None).await;
    answer.status().as_u16()
}

#[actix_web::test]
async fn a_signup_whose_mail_could_not_be_written_still_gets_its_code() {
    let app = TestApp::spawn(BUDGETS).await;
    // A directory where the outbox file should be: every append fails until it is gone.
    let outbox = app.data_dir.join("outbox.jsonl");
    std::fs::create_dir(&outbox).expect("a directory in the outbox's place");
    let first = signup(&app, "vic@example.com", "correct horse battery").await;
    assert_eq!(
        first,
        (201, CODE_SENT.to_owned()),
        "the answer waits for no mail"
    );
    std::fs::remove_dir(&outbox).expect("the outbox is writable again");
    let again = signup(&app, "vic@example.com", "correct horse battery").await;
    assert_eq!(again, (201, CODE_SENT.to_owned()));
    // The first signup's job is retried too once the outbox is back: the last code is live.
    let code = last_code(&app, "vic@example.com").await;
    assert_eq!(verify(&app, "vic@example.com", &code).await, 200);
    let signed_in = login(&app, "vic@example.com", "correct horse battery").await;
    assert_eq!(signed_in.status(), 200);
}

#[actix_web::test]
async fn an_earlier_signups_password_does_not_survive_a_later_signup() {
    let app = TestApp::spawn(BUDGETS).await;
    // Someone registers the address first, with a password of their own.
    let squatter = signup(&app, "vic@example.com", "squatters password").await;
    assert_eq!(squatter, (201, CODE_SENT.to_owned()));
    nth_code(&app, "vic@example.com", 1).await;
    let owner = signup(&app, "vic@example.com", "the owners password").await;
    assert_eq!(owner, (201, CODE_SENT.to_owned()));
    let code = nth_code(&app, "vic@example.com", 2).await;
    assert_eq!(verify(&app, "vic@example.com", &code).await, 200);
    let (status, _) =
        status_and_body(login(&app, "vic@example.com", "the owners password").await).await;
    assert_eq!(
        status, 200,
        "the password given with the code that was used"
    );
    let refused = login(&app, "vic@example.com", "squatters password").await;
    assert_eq!(
        refused.status(),
        401,
        "the earlier signup's password is gone"
    );
}

#[actix_web::test]
async fn a_resent_code_keeps_the_latest_signups_password() {
    let app = TestApp::spawn(BUDGETS).await;
    signup(&app, "vic@example.com", "squatters password").await;
    nth_code(&app, "vic@example.com", 1).await;
    signup(&app, "vic@example.com", "the owners password").await;
    nth_code(&app, "vic@example.com", 2).await;
    let resent = app
        .post(
            "/api/v1/auth/resend-otp",
            &json!({ "email": "vic@example.com" }),
            None,
        )
        .await;
    assert_eq!(resent.status(), 202);
    let code = nth_code(&app, "vic@example.com", 3).await;
    assert_eq!(verify(&app, "vic@example.com", &code).await, 200);
    assert_eq!(
        login(&app, "vic@example.com", "the owners password")
            .await
            .status(),
        200
    );
    assert_eq!(
        login(&app, "vic@example.com", "squatters password")
            .await
            .status(),
        401
    );
}

#[actix_web::test]
async fn signing_up_a_verified_address_changes_nothing_and_sends_nothing() {
    let app = TestApp::spawn(BUDGETS).await;
    signup(&app, "vic@example.com", "the owners password").await;
    let code = code_for(&app, "vic@example.com").await;
    assert_eq!(verify(&app, "vic@example.com", &code).await, 200);
    let again = signup(&app, "Vic@Example.com", "squatters password").await;
    assert_eq!(again, (201, CODE_SENT.to_owned()));
    let outbox = app.outbox().await;
    assert_eq!(outbox.len(), 1, "no second mail: {outbox:?}");
    assert_eq!(
        login(&app, "vic@example.com", "the owners password")
            .await
            .status(),
        200
    );
    assert_eq!(
        login(&app, "vic@example.com", "squatters password")
            .await
            .status(),
        401
    );
}
