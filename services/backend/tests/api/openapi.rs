//! The OpenAPI document as served: every operation's `x-rate-limit-groups` are exactly the
//! buckets the rule table meters it with (absent for an unmetered one), so the document cannot
//! drift from the limiter; the mail-sending routes are all there; the refresh answer's
//! documented keys are the ones served.

use crate::helpers::TestApp;
use serde_json::Value;

/// `path` with every `{parameter}` segment replaced by a sample value.
fn concrete(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            if segment.starts_with('{') {
                "sample"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[actix_web::test]
async fn every_operation_names_the_budgets_the_rule_table_meters_it_with() {
    let app = TestApp::spawn(&[]).await;
    let response = app
        .client
        .get(app.url("/v3/api-docs"))
        .send()
        .await
        .expect("served");
    let document: Value = response.json().await.expect("a JSON document");
    let paths = document["paths"].as_object().expect("paths");
    let mut checked = 0;
    for (path, item) in paths {
        for (method, operation) in item.as_object().expect("operations") {
            let method = method.to_uppercase();
            let documented: Option<Vec<String>> = operation
                .get("x-rate-limit-groups")
                .map(|groups| serde_json::from_value(groups.clone()).expect("names"));
            let metered = backend::limits::rules::table()
                .matching(&method, &concrete(path))
                .map(|rule| rule.groups().to_vec());
            assert_eq!(documented, metered, "{method} {path}");
            checked += 1;
        }
    }
    assert!(checked >= 45, "{checked} operations");
    for mail_route in [
        "signup",
        "pre-register",
        "resend-otp",
        "forgot-password",
        "magic-link",
        "mfa/send-otp",
    ] {
        let operation = &paths[&format!("/api/v1/auth/{mail_route}")]["post"];
        assert_eq!(
            operation["x-rate-limit-groups"],
            serde_json::json!(["email", "email_recipient", "auth_email"]),
            "{mail_route}"
        );
    }
}

#[actix_web::test]
async fn the_documented_refresh_answer_is_the_one_served() {
    let app = TestApp::spawn(&[]).await;
    let document: Value = app
        .client
        .get(app.url("/v3/api-docs"))
        .send()
        .await
        .expect("served")
        .json()
        .await
        .expect("a JSON document");
    let answer = &document["paths"]["/api/v1/auth/refresh"]["post"]["responses"]["200"];
    let reference = answer["content"]["application/json"]["schema"]["$ref"]
        .as_str()
        .expect("a schema reference");
    let name = reference
        .strip_prefix("#/components/schemas/")
        .expect("a local schema");
    let schema = &document["components"]["schemas"][name];
    let documented: Vec<&str> = schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(schema["required"], serde_json::json!(documented));

    let session = crate::sessions_support::signed_up(&app, "doc@example.com").await;
    let (status, body) = crate::sessions_support::refresh(&app, &session.refresh).await;
    assert_eq!(status, 200, "{body}");
    let served: Value = serde_json::from_str(&body).expect("JSON");
    let served: Vec<&str> = served
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(served, documented);
}
