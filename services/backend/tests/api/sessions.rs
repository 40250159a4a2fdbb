//! Refresh tokens rotate: each answers a new pair and is spent; a spent one that comes back
//! ends its whole session (both tokens of every generation), and of concurrent refreshes with
//! one token at most one succeeds. A store that cannot answer refuses every token with the 503.

use crate::helpers::{TestApp, header};
use crate::sessions_support::{
    AUTH_REQUIRED, AUTH_REQUIRED_AUTH, PASSWORD, TOKEN_REFUSED, assert_ended, authed, pair,
    protected, refresh, signed_in, signed_up,
};
use futures_util::future::join_all;
use reqwest::Method;
use serde_json::json;

const UNAVAILABLE: &str =
    r#"{"status":"SERVICE_UNAVAILABLE","message":"service temporarily unavailable"}"#;

#[actix_web::test]
async fn a_refresh_answers_a_new_pair_and_spends_the_token() {
    let app = TestApp::spawn(&[]).await;
    let first = signed_up(&app, "rae@example.com").await;
    let (status, body) = refresh(&app, &first.refresh).await;
    assert_eq!(status, 200, "{body}");
    let second = pair(&body);
    assert_ne!(second.refresh, first.refresh, "a new refresh token");
    assert_eq!(protected(&app, &second.access).await.0, 200);
    let (status, body) = refresh(&app, &second.refresh).await;
    assert_eq!(status, 200, "the new one refreshes: {body}");
    assert_eq!(protected(&app, &pair(&body).access).await.0, 200);
}

#[actix_web::test]
async fn a_spent_refresh_token_that_comes_back_ends_its_whole_session() {
    let app = TestApp::spawn(&[]).await;
    let first = signed_up(&app, "sam@example.com").await;
    let elsewhere = signed_in(&app, "sam@example.com", PASSWORD).await;
    let (status, body) = refresh(&app, &first.refresh).await;
    assert_eq!(status, 200, "{body}");
    let second = pair(&body);

    assert_eq!(
        refresh(&app, &first.refresh).await,
        (401, TOKEN_REFUSED.to_owned()),
        "the spent token"
    );
    assert_ended(&app, &second, "the newer generation").await;
    assert_eq!(
        protected(&app, &first.access).await,
        (401, AUTH_REQUIRED.to_owned()),
        "the first generation's access token"
    );
    assert_eq!(
        protected(&app, &elsewhere.access).await.0,
        200,
        "another sign-in is another session"
    );
    assert_eq!(refresh(&app, &elsewhere.refresh).await.0, 200);
}

#[actix_web::test]
async fn concurrent_refreshes_with_one_token_succeed_at_most_once() {
    let app = TestApp::spawn(&[]).await;
    let session = signed_up(&app, "tia@example.com").await;
    let answers = join_all((0..8).map(|_| refresh(&app, &session.refresh))).await;
    let served: Vec<_> = answers
        .iter()
        .filter(|(status, _)| *status == 200)
        .collect();
    assert!(served.len() <= 1, "{answers:?}");
    for (status, body) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_eq!(
            (*status, body.as_str()),
            (401, TOKEN_REFUSED),
            "{answers:?}"
        );
    }
    for (_, body) in served {
        assert_ended(&app, &pair(body), "the token reused concurrently").await;
    }
    assert_ended(&app, &session, "the session whose token was reused").await;
}

#[actix_web::test]
async fn a_session_scoped_to_a_workspace_ends_with_its_sign_in() {
    let app = TestApp::spawn(&[]).await;
    let session = signed_up(&app, "uma@example.com").await;
    let created = authed(
        &app,
        Method::POST,
        "/api/v1/workspaces",
        &session.access,
        &json!({ "name": "Umbra" }),
    )
    .await;
    assert_eq!(created.0, 201, "{created:?}");
    let id = serde_json::from_str::<serde_json::Value>(&created.1).expect("JSON")["id"].clone();
    let switched = authed(
        &app,
        Method::POST,
        "/api/v1/auth/workspace",
        &session.access,
        &json!({ "workspaceId": id }),
    )
    .await;
    assert_eq!(switched.0, 200, "{switched:?}");
    let scoped =
        serde_json::from_str::<serde_json::Value>(&switched.1).expect("JSON")["accessToken"]
            .as_str()
            .expect("a scoped token")
            .to_owned();
    let projects = |token: String| {
        let app = &app;
        async move {
            let answer = app
                .client
                .get(app.url("/api/v1/projects"))
                .bearer_auth(token)
                .send()
                .await
                .expect("answers");
            let status = answer.status().as_u16();
            (status, answer.text().await.expect("a body"))
        }
    };
    assert_eq!(projects(scoped.clone()).await.0, 200);

    refresh(&app, &session.refresh).await;
    refresh(&app, &session.refresh).await;
    assert_eq!(
        projects(scoped.clone()).await,
        (401, AUTH_REQUIRED.to_owned())
    );
    let again = authed(
        &app,
        Method::POST,
        "/api/v1/auth/workspace",
        &scoped,
        &json!({ "workspaceId": id }),
    )
    .await;
    assert_eq!(
        again,
        (401, AUTH_REQUIRED_AUTH.to_owned()),
        "in the auth envelope"
    );
}

#[actix_web::test]
async fn a_store_that_cannot_answer_refuses_every_token_with_the_503() {
    let app = TestApp::spawn(&[]).await;
    let session = signed_up(&app, "val@example.com").await;
    app.faults.fail(true);
    let access = app
        .client
        .get(app.url("/api/v1/workspaces"))
        .bearer_auth(&session.access)
        .send()
        .await
        .expect("answers");
    assert_eq!(header(&access, "retry-after").as_deref(), Some("5"));
    assert_eq!(access.status(), 503);
    assert_eq!(access.text().await.expect("a body"), UNAVAILABLE);
    assert_eq!(
        refresh(&app, &session.refresh).await,
        (503, UNAVAILABLE.to_owned())
    );
    app.faults.fail(false);
    assert_eq!(protected(&app, &session.access).await.0, 200, "not revoked");
    assert_eq!(refresh(&app, &session.refresh).await.0, 200, "not spent");
}
