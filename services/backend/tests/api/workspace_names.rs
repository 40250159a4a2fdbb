//! Look-alike workspace names where a client meets them: a name is one name however it is
//! spelled in Unicode (NFKC, any letter case), a name holding an invisible, control or
//! bidirectional character is refused (400, ApiError envelope), and the public lookup
//! normalizes the same way, so a look-alike resolves to the real workspace or to nothing.

use crate::helpers::TestApp;
use crate::tenancy_support::{account, call, parsed, workspace};
use reqwest::Method;
use serde_json::json;

const TAKEN: &str = r#"{"status":"CONFLICT","message":"workspace name already taken"}"#;
const INVISIBLE: &str = r#"{"status":"BAD_REQUEST","message":"name must not contain control, invisible or bidirectional characters"}"#;
const INVISIBLE_AUTH: &str = r#"{"status":400,"message":"name must not contain control, invisible or bidirectional characters"}"#;

/// Spellings that render like `Boss Co` (or nearly): full-width letters, the long s, a
/// ligature, odd spaces.
const LOOK_ALIKES: [&str; 6] = [
    "\u{ff22}\u{ff4f}\u{ff53}\u{ff53} Co",
    "Bo\u{17f}\u{17f} Co",
    "BOSS CO",
    "Boss\u{3000}Co",
    "Boss\u{a0}\u{a0}Co",
    " Boss  \u{ff23}o ",
];

/// Characters that render as nothing, or reorder what is around them.
const INVISIBLES: [&str; 14] = [
    "\u{200b}",
    "\u{200c}",
    "\u{200d}",
    "\u{2060}",
    "\u{feff}",
    "\u{ad}",
    "\u{202e}",
    "\u{2066}",
    "\u{061c}",
    "\u{180e}",
    "\u{3164}",
    "\u{e0041}",
    "\u{7}",
    "\u{2028}",
];

async fn create(app: &TestApp, token: &str, name: &str) -> (u16, String) {
    let body = json!({ "name": name });
    call(
        app,
        Method::POST,
        "/api/v1/workspaces",
        Some(token),
        Some(&body),
    )
    .await
}

async fn lookup(app: &TestApp, name: &str) -> (u16, String) {
    let url = reqwest::Url::parse_with_params(&app.url("/api/v1/auth/workspace"), [("name", name)])
        .expect("a URL");
    let answer = app
        .client
        .get(url)
        .send()
        .await
        .expect("the backend answers");
    let status = answer.status().as_u16();
    (status, answer.text().await.expect("a body"))
}

#[actix_web::test]
async fn a_look_alike_is_the_same_name_on_create_and_on_lookup() {
    let app = TestApp::spawn(&[]).await;
    let owner = account(&app, "owner@example.com").await;
    let intruder = account(&app, "intruder@example.com").await;
    let real = workspace(&app, &owner, "Boss Co").await;
    let found = json!({ "id": real, "name": "Boss Co" });
    for spelling in LOOK_ALIKES {
        assert_eq!(
            create(&app, &intruder.token, spelling).await,
            (409, TAKEN.to_owned()),
            "{spelling:?} is the same name"
        );
        let (status, body) = lookup(&app, spelling).await;
        assert_eq!(
            (status, parsed(&body)),
            (200, found.clone()),
            "{spelling:?}"
        );
    }
}

#[actix_web::test]
async fn a_name_is_stored_in_its_canonical_form() {
    let app = TestApp::spawn(&[]).await;
    let owner = account(&app, "owner@example.com").await;
    let (status, body) = create(&app, &owner.token, " \u{ff21}cme\u{3000}\u{3000}Rockets ").await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(parsed(&body)["name"], "Acme Rockets");
}

#[actix_web::test]
async fn invisible_characters_are_refused_on_create_and_on_lookup() {
    let app = TestApp::spawn(&[]).await;
    let owner = account(&app, "owner@example.com").await;
    workspace(&app, &owner, "Boss Co").await;
    for invisible in INVISIBLES {
        for name in [
            format!("Bo{invisible}ss Co"),
            format!("{invisible}Boss Co"),
            format!("Boss Co{invisible}"),
        ] {
            assert_eq!(
                create(&app, &owner.token, &name).await,
                (400, INVISIBLE.to_owned()),
                "create {name:?}"
            );
            assert_eq!(
                lookup(&app, &name).await,
                (400, INVISIBLE_AUTH.to_owned()),
                "lookup {name:?}"
            );
        }
    }
    let (status, body) = lookup(&app, &"x".repeat(2_000)).await;
    assert_eq!(status, 404, "{body}");
}
