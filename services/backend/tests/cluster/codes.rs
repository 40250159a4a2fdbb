//! A one-time code is cluster state: sent by a replica after the signup, it verifies on
//! another replica, once. The replicas share one data directory, which with `REDIS_URL` holds
//! only the outbox file the test reads the code from.

use crate::support::{Node, Redis, SECRET, answer, last_mail};
use platform::MapEnv;
use platform::jwt::{JwtKeys, TokenKind};
use serde_json::{Value, json};
use std::path::Path;

const EMAIL: &str = "grace@example.com";
const INVALID_CODE: &str = r#"{"status":400,"message":"Invalid or expired code"}"#;

/// The last code mailed to `email`.
async fn last_code(data_dir: &Path, email: &str) -> String {
    let mail = last_mail(data_dir, email, "otp").await;
    mail["code"].as_str().expect("a code").to_owned()
}

#[actix_web::test]
async fn a_code_sent_by_one_replica_verifies_on_the_other_once() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let data = tempfile::tempdir().expect("a temporary data directory");
    let (sender, verifier) = (
        Node::start(&redis, data.path(), &[]).await,
        Node::start(&redis, data.path(), &[]).await,
    );
    let signup = json!({ "email": EMAIL, "password": "correct horse battery", "name": "Grace" });
    assert_eq!(
        sender.post("/api/v1/auth/signup", &signup).await.status(),
        201
    );
    let code = json!({ "email": EMAIL, "code": last_code(data.path(), EMAIL).await });

    let verified = verifier.post("/api/v1/auth/verify-otp", &code).await;
    assert_eq!(verified.status(), 200);
    let tokens: Value = verified.json().await.expect("tokens");
    let keys =
        JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)])).expect("keys");
    let access = tokens["accessToken"].as_str().expect("an access token");
    let claims = keys
        .verify(TokenKind::Access, access)
        .expect("a valid token");
    assert_eq!(claims.email.as_deref(), Some(EMAIL));

    let replayed = answer(sender.post("/api/v1/auth/verify-otp", &code).await).await;
    assert_eq!(replayed, (400, None, INVALID_CODE.to_owned()), "single use");
    let login = sender.login(EMAIL, "correct horse battery").await;
    assert_eq!(
        login.status(),
        200,
        "the account is verified on every replica"
    );
    sender.stop().await;
    verifier.stop().await;
}
