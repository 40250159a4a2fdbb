//! Roles where a client meets them: an invitation accepted by its addressee only, floors
//! checked against the stored membership (a forged `role` claim grants nothing), the last
//! OWNER kept, CI keys whose secret is shown once, and bad bodies in the envelope.

use crate::helpers::TestApp;
use crate::tenancy_support::{
    Account, INSUFFICIENT_ROLE, account, call, claims, keys, parsed, project, switch, workspace,
};
use platform::jwt::{Subject, TokenKind};
use reqwest::Method;
use serde_json::json;

/// Ada owns "Acme" with one project; Bob is invited as VIEWER and accepts.
struct Invited {
    ada: Account,
    ada_scoped: String,
    bob: Account,
    workspace_id: String,
    project_id: String,
}

async fn invited_viewer(app: &TestApp) -> Invited {
    let ada = account(app, "ada@example.com").await;
    let bob = account(app, "bob@example.com").await;
    let workspace_id = workspace(app, &ada, "Acme").await;
    let ada_scoped = switch(app, &ada, &workspace_id).await;
    let project_id = project(app, &ada_scoped, "Rocket", "RKT").await;
    let accept = invite_bob(app, &ada_scoped).await;
    let not_found = r#"{"status":"NOT_FOUND","message":"invitation not found"}"#;
    let answer = call(app, Method::POST, &accept, Some(&ada.token), None).await;
    assert_eq!(
        answer,
        (404, not_found.to_owned()),
        "someone else's invitation"
    );
    let (status, text) = call(app, Method::POST, &accept, Some(&bob.token), None).await;
    let joined = json!({ "workspaceId": workspace_id, "role": "VIEWER" });
    assert_eq!((status, parsed(&text)), (200, joined));
    let answer = call(app, Method::POST, &accept, Some(&bob.token), None).await;
    assert_eq!(answer, (404, not_found.to_owned()), "used once");
    Invited {
        ada,
        ada_scoped,
        bob,
        workspace_id,
        project_id,
    }
}

/// Ada invites Bob as VIEWER; returns the accept path from the mailed link.
async fn invite_bob(app: &TestApp, ada_scoped: &str) -> String {
    let body = json!({ "email": "Bob@Example.com", "role": "viewer" });
    let path = "/api/v1/workspace/invitations";
    let (status, text) = call(app, Method::POST, path, Some(ada_scoped), Some(&body)).await;
    assert_eq!(status, 201, "{text}");
    let sent = parsed(&text);
    assert_eq!(
        (&sent["email"], &sent["role"]),
        (&json!("bob@example.com"), &json!("VIEWER"))
    );
    assert!(sent["expiresAtMs"].as_u64().is_some(), "{text}");
    let mail = app
        .outbox()
        .await
        .into_iter()
        .rev()
        .find(|mail| mail["kind"] == "invitation");
    let mail = mail.expect("an invitation mail");
    assert_eq!(mail["to"], "bob@example.com");
    let link = mail["link"].as_str().expect("a link").to_owned();
    let accept = format!("/api/v1{link}");
    assert!(accept.starts_with("/api/v1/workspace/invitations/") && accept.ends_with("/accept"));
    accept
}

#[actix_web::test]
async fn a_viewer_reads_and_a_forged_owner_claim_grants_nothing_more() {
    let app = TestApp::spawn(&[]).await;
    let team = invited_viewer(&app).await;
    let bob_scoped = switch(&app, &team.bob, &team.workspace_id).await;
    assert_eq!(claims(&bob_scoped).role.as_deref(), Some("VIEWER"));
    let path = format!("/api/v1/projects/{}", team.project_id);
    assert_eq!(
        call(&app, Method::GET, &path, Some(&bob_scoped), None)
            .await
            .0,
        200
    );
    let refused = (403, INSUFFICIENT_ROLE.to_owned());
    assert_eq!(
        call(&app, Method::DELETE, &path, Some(&bob_scoped), None).await,
        refused
    );

    let forged = Subject {
        workspace_id: Some(team.workspace_id.clone()),
        role: Some("OWNER".to_owned()),
        email: Some(team.bob.email.clone()),
        session: claims(&team.bob.token).sid,
        ..Subject::user(team.bob.id.clone())
    };
    let forged = keys()
        .issue(TokenKind::Access, &forged, TokenKind::Access.default_ttl())
        .expect("a token");
    assert_eq!(
        call(&app, Method::DELETE, &path, Some(&forged), None).await,
        refused
    );
    let member = format!("/api/v1/workspace/members/{}", team.bob.id);
    let promote = json!({ "role": "ADMIN" });
    let answer = call(&app, Method::PUT, &member, Some(&forged), Some(&promote)).await;
    assert_eq!(answer, refused);

    let bogus = json!({ "role": "SUPERADMIN" });
    let answer = call(
        &app,
        Method::PUT,
        &member,
        Some(&team.ada_scoped),
        Some(&bogus),
    )
    .await;
    let unknown = r#"{"status":"BAD_REQUEST","message":"unknown role"}"#;
    assert_eq!(answer, (400, unknown.to_owned()));
    let to_member = json!({ "role": "MEMBER" });
    let (status, text) = call(
        &app,
        Method::PUT,
        &member,
        Some(&team.ada_scoped),
        Some(&to_member),
    )
    .await;
    assert_eq!(
        (status, parsed(&text)),
        (200, json!({ "userId": team.bob.id, "role": "MEMBER" }))
    );
    let rename = json!({ "name": "Renamed by Bob" });
    let answer = call(&app, Method::PUT, &path, Some(&bob_scoped), Some(&rename)).await;
    assert_eq!(
        answer.0, 200,
        "the stored role counts, not the token's VIEWER claim"
    );
}

#[actix_web::test]
async fn members_are_listed_removed_and_the_last_owner_stays() {
    let app = TestApp::spawn(&[]).await;
    let team = invited_viewer(&app).await;
    let bob_scoped = switch(&app, &team.bob, &team.workspace_id).await;
    let path = "/api/v1/workspace/members";
    let (status, text) = call(&app, Method::GET, path, Some(&bob_scoped), None).await;
    assert_eq!(status, 200, "{text}");
    let mut roles: Vec<(String, String)> = parsed(&text)["members"]
        .as_array()
        .expect("members")
        .iter()
        .map(|member| {
            (
                member["email"].as_str().unwrap_or_default().to_owned(),
                member["role"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    roles.sort();
    let expected = [("ada@example.com", "OWNER"), ("bob@example.com", "VIEWER")];
    assert_eq!(
        roles,
        expected.map(|(email, role)| (email.to_owned(), role.to_owned()))
    );

    let ada = format!("{path}/{}", team.ada.id);
    let last = r#"{"status":"CONFLICT","message":"a workspace needs an owner"}"#;
    let answer = call(&app, Method::DELETE, &ada, Some(&team.ada_scoped), None).await;
    assert_eq!(answer, (409, last.to_owned()));
    let bob = format!("{path}/{}", team.bob.id);
    let answer = call(&app, Method::DELETE, &bob, Some(&team.ada_scoped), None).await;
    assert_eq!(answer, (204, String::new()));
    let project = format!("/api/v1/projects/{}", team.project_id);
    let gone = r#"{"status":"NOT_FOUND","message":"workspace not found"}"#;
    let answer = call(&app, Method::GET, &project, Some(&bob_scoped), None).await;
    assert_eq!(
        answer,
        (404, gone.to_owned()),
        "a removed member's scoped token opens nothing"
    );
}

#[actix_web::test]
async fn a_ci_key_secret_is_shown_once_and_revoked_keys_are_gone() {
    let app = TestApp::spawn(&[]).await;
    let team = invited_viewer(&app).await;
    let keys_path = format!("/api/v1/projects/{}/ci-keys", team.project_id);
    let body = json!({ "name": "pipeline" });
    let (status, text) = call(
        &app,
        Method::POST,
        &keys_path,
        Some(&team.ada_scoped),
        Some(&body),
    )
    .await;
    assert_eq!(status, 201, "{text}");
    let created = parsed(&text);
    let secret = created["secret"].as_str().expect("a secret");
    assert!(secret.starts_with("ci_"));
    assert_eq!(created["prefix"].as_str(), secret.get(..8));
    assert_eq!(created["name"], "pipeline");
    let (status, text) = call(&app, Method::GET, &keys_path, Some(&team.ada_scoped), None).await;
    assert_eq!(status, 200, "{text}");
    assert!(
        !text.contains(secret) && !text.contains("\"secret\""),
        "{text}"
    );
    assert_eq!(parsed(&text)["ciKeys"][0]["id"], created["id"]);
    let bob_scoped = switch(&app, &team.bob, &team.workspace_id).await;
    let answer = call(
        &app,
        Method::POST,
        &keys_path,
        Some(&bob_scoped),
        Some(&body),
    )
    .await;
    assert_eq!(answer, (403, INSUFFICIENT_ROLE.to_owned()));

    let key = format!("/api/v1/ci-keys/{}", created["id"].as_str().expect("an id"));
    let answer = call(&app, Method::DELETE, &key, Some(&team.ada_scoped), None).await;
    assert_eq!(answer, (204, String::new()));
    let missing = r#"{"status":"NOT_FOUND","message":"ci key not found"}"#;
    let answer = call(&app, Method::DELETE, &key, Some(&team.ada_scoped), None).await;
    assert_eq!(answer, (404, missing.to_owned()));
}

#[actix_web::test]
async fn bad_bodies_answer_in_the_envelope() {
    let app = TestApp::spawn(&[]).await;
    let ada = account(&app, "ada@example.com").await;
    let workspace_id = workspace(&app, &ada, "Acme").await;
    let scoped = switch(&app, &ada, &workspace_id).await;
    let url = app.url("/api/v1/projects");
    let scoped = &scoped;
    let send = |request: reqwest::RequestBuilder| async move {
        let response = request.bearer_auth(scoped).send().await.expect("an answer");
        (
            response.status().as_u16(),
            response.text().await.expect("a body"),
        )
    };
    let plain = app.client.post(&url).body("name=x");
    let wrong_type = r#"{"status":"UNSUPPORTED_MEDIA_TYPE","message":"request body must be JSON (Content-Type: application/json)"}"#;
    assert_eq!(send(plain).await, (415, wrong_type.to_owned()));
    let missing_key = app.client.post(&url).json(&json!({ "name": "Rocket" }));
    let (status, text) = send(missing_key).await;
    assert_eq!(status, 400);
    assert!(
        text.starts_with(r#"{"status":"BAD_REQUEST","message":"request body is not valid"#),
        "{text}"
    );
    let huge = app
        .client
        .post(&url)
        .json(&json!({ "name": "x".repeat(3 << 20), "key": "RKT" }));
    let too_large =
        r#"{"status":"PAYLOAD_TOO_LARGE","message":"request body is larger than 2097152 bytes"}"#;
    assert_eq!(send(huge).await, (413, too_large.to_owned()));
    let bad_key = app
        .client
        .post(&url)
        .json(&json!({ "name": "Rocket", "key": "no spaces" }));
    let (status, text) = send(bad_key).await;
    assert_eq!(status, 400, "{text}");
    assert!(
        text.starts_with(r#"{"status":"BAD_REQUEST","message":"#),
        "{text}"
    );
}
