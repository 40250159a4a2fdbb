//! Workspaces and projects over HTTP: two tenants side by side, another tenant's id answered
//! exactly like a missing one, the workspace taken from the token only, the public lookup.

use crate::helpers::{TestApp, header};
use crate::tenancy_support::{
    PROJECT_NOT_FOUND, SCOPE_REQUIRED, WORKSPACE_NOT_FOUND_AUTH, account, call, claims, parsed,
    project, switch, workspace,
};
use reqwest::Method;
use serde_json::json;

#[actix_web::test]
async fn two_tenants_each_work_in_their_own_workspace() {
    let app = TestApp::spawn(&[]).await;
    let ada = account(&app, "ada@example.com").await;
    let bob = account(&app, "bob@example.com").await;
    let ada_ws = workspace(&app, &ada, "Acme").await;
    let bob_ws = workspace(&app, &bob, "Globex").await;
    let (status, listed) = call(
        &app,
        Method::GET,
        "/api/v1/workspaces",
        Some(&ada.token),
        None,
    )
    .await;
    let expected = json!({ "workspaces": [{ "id": ada_ws, "name": "Acme" }] });
    assert_eq!((status, parsed(&listed)), (200, expected));

    let ada_scoped = switch(&app, &ada, &ada_ws).await;
    let scoped = claims(&ada_scoped);
    assert_eq!(scoped.workspace_id.as_deref(), Some(ada_ws.as_str()));
    assert_eq!(scoped.role.as_deref(), Some("OWNER"));
    assert_eq!(scoped.email.as_deref(), Some("ada@example.com"));
    let bob_scoped = switch(&app, &bob, &bob_ws).await;

    let body = json!({ "name": "Rocket", "key": "rkt" });
    let (status, created) = call(
        &app,
        Method::POST,
        "/api/v1/projects",
        Some(&ada_scoped),
        Some(&body),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let created = parsed(&created);
    assert_eq!(
        (&created["name"], &created["key"]),
        (&json!("Rocket"), &json!("RKT"))
    );
    assert_eq!(created["workspaceId"], json!(ada_ws));
    project(&app, &bob_scoped, "Anvil", "ANV").await;

    let (status, mine) = call(
        &app,
        Method::GET,
        "/api/v1/projects",
        Some(&ada_scoped),
        None,
    )
    .await;
    assert_eq!(
        (status, parsed(&mine)),
        (200, json!({ "projects": [created.clone()] }))
    );
    let path = format!(
        "/api/v1/projects/{}",
        created["id"].as_str().expect("an id")
    );
    let rename = json!({ "name": "Rocket II" });
    let (status, renamed) = call(&app, Method::PUT, &path, Some(&ada_scoped), Some(&rename)).await;
    assert_eq!(
        (status, parsed(&renamed)["name"].clone()),
        (200, json!("Rocket II"))
    );
    let (status, again) = call(
        &app,
        Method::POST,
        "/api/v1/projects",
        Some(&ada_scoped),
        Some(&body),
    )
    .await;
    let taken = r#"{"status":"CONFLICT","message":"project key already exists"}"#;
    assert_eq!((status, again.as_str()), (409, taken));
}

#[actix_web::test]
async fn another_tenants_project_is_the_same_404_as_a_missing_one() {
    let app = TestApp::spawn(&[]).await;
    let (ada_project, bob_scoped) = two_tenants(&app).await;
    let rename = json!({ "name": "Mine now" });
    let ids = [
        ada_project.as_str(),
        "9b0e6c38-5b1f-4c43-9a3e-2f1f0d6f1a11",
        "not-a-uuid",
    ];
    for id in ids {
        let path = format!("/api/v1/projects/{id}");
        for (method, body) in [
            (Method::GET, None),
            (Method::PUT, Some(&rename)),
            (Method::DELETE, None),
        ] {
            let answer = call(&app, method.clone(), &path, Some(&bob_scoped), body).await;
            assert_eq!(answer, (404, PROJECT_NOT_FOUND.to_owned()), "{method} {id}");
        }
        let keys = format!("/api/v1/projects/{id}/ci-keys");
        let answer = call(&app, Method::GET, &keys, Some(&bob_scoped), None).await;
        assert_eq!(
            answer,
            (404, PROJECT_NOT_FOUND.to_owned()),
            "ci keys of {id}"
        );
    }
}

#[actix_web::test]
async fn the_legacy_switch_restores_the_403_for_another_tenants_id_only() {
    let app = TestApp::spawn(&[("SECURITY_LEGACY_FORBIDDEN_WORDING", "true")]).await;
    let (ada_project, bob_scoped) = two_tenants(&app).await;
    let path = format!("/api/v1/projects/{ada_project}");
    let legacy = r#"{"status":"FORBIDDEN","message":"You do not have access to this project"}"#;
    let answer = call(&app, Method::GET, &path, Some(&bob_scoped), None).await;
    assert_eq!(answer, (403, legacy.to_owned()));
    let missing = "/api/v1/projects/9b0e6c38-5b1f-4c43-9a3e-2f1f0d6f1a11";
    let answer = call(&app, Method::GET, missing, Some(&bob_scoped), None).await;
    assert_eq!(answer, (404, PROJECT_NOT_FOUND.to_owned()));
}

/// Ada's project id and Bob's token scoped to his own workspace.
async fn two_tenants(app: &TestApp) -> (String, String) {
    let ada = account(app, "ada@example.com").await;
    let bob = account(app, "bob@example.com").await;
    let ada_ws = workspace(app, &ada, "Acme").await;
    let bob_ws = workspace(app, &bob, "Globex").await;
    let ada_scoped = switch(app, &ada, &ada_ws).await;
    let ada_project = project(app, &ada_scoped, "Rocket", "RKT").await;
    (ada_project, switch(app, &bob, &bob_ws).await)
}

#[actix_web::test]
async fn a_token_without_workspace_scope_fails_closed() {
    let app = TestApp::spawn(&[]).await;
    let ada = account(&app, "ada@example.com").await;
    let bob = account(&app, "bob@example.com").await;
    let ada_ws = workspace(&app, &ada, "Acme").await;
    let answer = call(
        &app,
        Method::GET,
        "/api/v1/projects",
        Some(&ada.token),
        None,
    )
    .await;
    assert_eq!(answer, (403, SCOPE_REQUIRED.to_owned()));
    let path = "/api/v1/auth/workspace";
    for workspace_id in [
        ada_ws.as_str(),
        "9b0e6c38-5b1f-4c43-9a3e-2f1f0d6f1a11",
        "nope",
    ] {
        let body = json!({ "workspaceId": workspace_id });
        let answer = call(&app, Method::POST, path, Some(&bob.token), Some(&body)).await;
        assert_eq!(
            answer,
            (404, WORKSPACE_NOT_FOUND_AUTH.to_owned()),
            "{workspace_id}"
        );
    }
}

#[actix_web::test]
async fn the_compatibility_switch_serves_a_user_with_exactly_one_workspace() {
    let app = TestApp::spawn(&[("SECURITY_ALLOW_TOKENS_WITHOUT_WORKSPACE", "true")]).await;
    let ada = account(&app, "ada@example.com").await;
    let answer = call(
        &app,
        Method::GET,
        "/api/v1/projects",
        Some(&ada.token),
        None,
    )
    .await;
    assert_eq!(answer, (403, SCOPE_REQUIRED.to_owned()), "no workspace yet");
    workspace(&app, &ada, "Acme").await;
    let answer = call(
        &app,
        Method::GET,
        "/api/v1/projects",
        Some(&ada.token),
        None,
    )
    .await;
    assert_eq!(
        (answer.0, parsed(&answer.1)),
        (200, json!({ "projects": [] }))
    );
    workspace(&app, &ada, "Acme Two").await;
    let answer = call(
        &app,
        Method::GET,
        "/api/v1/projects",
        Some(&ada.token),
        None,
    )
    .await;
    assert_eq!(
        answer,
        (403, SCOPE_REQUIRED.to_owned()),
        "two workspaces: ambiguous"
    );
}

#[actix_web::test]
async fn the_public_lookup_finds_a_name_and_is_metered_as_a_credential_path() {
    let app = TestApp::spawn(&[]).await;
    let ada = account(&app, "ada@example.com").await;
    let ada_ws = workspace(&app, &ada, "Acme").await;
    let lookup = |name: &'static str| {
        app.client
            .get(app.url(&format!("/api/v1/auth/workspace?name={name}")))
            .send()
    };
    let found = lookup("ACME").await.expect("an answer");
    assert!(header(&found, "ratelimit-policy").is_some_and(|policy| policy.contains("credential")));
    let found: serde_json::Value = found.json().await.expect("JSON");
    assert_eq!(found, json!({ "id": ada_ws, "name": "Acme" }));
    let missing = lookup("Initech").await.expect("an answer");
    assert!(header(&missing, "ratelimit").is_some_and(|fields| fields.contains("credential")));
    let answer = (
        missing.status().as_u16(),
        missing.text().await.expect("a body"),
    );
    assert_eq!(answer, (404, WORKSPACE_NOT_FOUND_AUTH.to_owned()));
    let (status, text) = call(
        &app,
        Method::GET,
        "/api/v1/auth/workspace",
        None::<&str>,
        None,
    )
    .await;
    assert_eq!(status, 400, "{text}");
    assert!(
        text.starts_with(r#"{"status":400,"message":"query string is not valid"#),
        "{text}"
    );
}
