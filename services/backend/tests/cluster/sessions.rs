//! Sessions are cluster state: a refresh token rotated on one replica is spent on the other,
//! and a session ended on one replica (a reused refresh token, a password reset) is refused by
//! the other, access and refresh tokens alike, in the exact envelopes.

use crate::support::{Node, Redis, answer, last_mail};
use serde_json::{Value, json};

const EMAIL: &str = "hedy@example.com";
const PASSWORD: &str = "correct horse battery";
const TOKEN_REFUSED: &str = r#"{"status":401,"message":"Invalid or expired token"}"#;
const AUTH_REQUIRED: &str = r#"{"status":"UNAUTHORIZED","message":"authentication required"}"#;

/// (access, refresh) of a `{"accessToken","refreshToken"}` answer.
async fn tokens(response: reqwest::Response) -> (String, String) {
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("tokens");
    let token = |name: &str| body[name].as_str().expect("a token").to_owned();
    (token("accessToken"), token("refreshToken"))
}

async fn refresh(node: &Node, token: &str) -> reqwest::Response {
    node.post("/api/v1/auth/refresh", &json!({ "refreshToken": token }))
        .await
}

async fn protected(node: &Node, access: &str) -> (u16, Option<String>, String) {
    let response = node
        .client
        .get(format!("{}/api/v1/workspaces", node.base))
        .bearer_auth(access)
        .send()
        .await
        .expect("the backend answers");
    answer(response).await
}

fn refused(body: &str) -> (u16, Option<String>, String) {
    (401, None, body.to_owned())
}

#[actix_web::test]
async fn a_session_ended_on_one_replica_is_refused_on_the_other() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let data = tempfile::tempdir().expect("a temporary data directory");
    let (one, other) = (
        Node::start(&redis, data.path(), &[]).await,
        Node::start(&redis, data.path(), &[]).await,
    );
    let signup = json!({ "email": EMAIL, "password": PASSWORD, "name": "Hedy" });
    assert_eq!(one.post("/api/v1/auth/signup", &signup).await.status(), 201);
    let code =
        json!({ "email": EMAIL, "code": last_mail(data.path(), EMAIL, "otp").await["code"] });
    let (first_access, first_refresh) =
        tokens(one.post("/api/v1/auth/verify-otp", &code).await).await;
    assert_eq!(protected(&other, &first_access).await.0, 200);

    let (second_access, second_refresh) = tokens(refresh(&other, &first_refresh).await).await;
    let reused = answer(refresh(&one, &first_refresh).await).await;
    assert_eq!(reused, refused(TOKEN_REFUSED), "spent on the other replica");
    assert_eq!(
        answer(refresh(&other, &second_refresh).await).await,
        refused(TOKEN_REFUSED),
        "the session ended on one replica is over on the other"
    );
    assert_eq!(
        protected(&other, &second_access).await,
        refused(AUTH_REQUIRED)
    );

    let (access, refresh_token) = tokens(one.login(EMAIL, PASSWORD).await).await;
    assert_eq!(protected(&other, &access).await.0, 200);
    let forgot = json!({ "email": EMAIL });
    let asked = other.post("/api/v1/auth/forgot-password", &forgot).await;
    assert_eq!(asked.status(), 202);
    let link = last_mail(data.path(), EMAIL, "password_reset").await["link"]
        .as_str()
        .expect("a link")
        .to_owned();
    let new_password = json!({ "password": "a brand new secret" });
    let reset = other
        .post(&format!("/api/v1/auth{link}"), &new_password)
        .await;
    assert_eq!(reset.status(), 200);
    assert_eq!(protected(&one, &access).await, refused(AUTH_REQUIRED));
    assert_eq!(
        answer(refresh(&one, &refresh_token).await).await,
        refused(TOKEN_REFUSED)
    );
    let (fresh, _) = tokens(one.login(EMAIL, "a brand new secret").await).await;
    assert_eq!(protected(&other, &fresh).await.0, 200);
    one.stop().await;
    other.stop().await;
}
