//! The OpenAPI document as served: every operation's `x-rate-limit-groups` are exactly the
//! buckets the rule table meters it with (absent for an unmetered one), so the document cannot
//! drift from the limiter; the mail-sending routes are all there.

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
