//! Health, the API description, unknown routes, CORS on refusals, and the secret guard at
//! start-up (the real binary).

use crate::helpers::{TestApp, header};

#[actix_web::test]
async fn health_and_the_api_description_are_open_and_unmetered() {
    let app = TestApp::spawn(&[]).await;
    let health = app
        .client
        .get(app.url("/actuator/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(header(&health, "ratelimit"), None);
    assert_eq!(
        (health.status().as_u16(), health.text().await.unwrap()),
        (200, r#"{"status":"UP"}"#.to_owned())
    );
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let swagger = no_redirects
        .get(app.url("/swagger-ui.html"))
        .send()
        .await
        .unwrap();
    assert_eq!(swagger.status(), 302);
    assert_eq!(
        header(&swagger, "location").as_deref(),
        Some("/v3/api-docs")
    );
    let docs: serde_json::Value = app
        .client
        .get(app.url("/v3/api-docs"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(docs["openapi"], "3.1.0");
    let metrics = app
        .client
        .get(app.url("/actuator/prometheus"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(metrics.contains("limiter_decisions_total"), "{metrics}");
}

#[actix_web::test]
async fn unknown_routes_answer_in_their_controllers_envelope() {
    let app = TestApp::spawn(&[]).await;
    let api = app
        .client
        .get(app.url("/api/v1/nowhere"))
        .send()
        .await
        .unwrap();
    let body = r#"{"status":"NOT_FOUND","message":"no route for GET /api/v1/nowhere"}"#;
    assert_eq!(
        (api.status().as_u16(), api.text().await.unwrap()),
        (404, body.to_owned())
    );
    let auth = app
        .client
        .get(app.url("/api/v1/auth/nowhere"))
        .send()
        .await
        .unwrap();
    let body = r#"{"status":404,"message":"no route for GET /api/v1/auth/nowhere"}"#;
    assert_eq!(
        (auth.status().as_u16(), auth.text().await.unwrap()),
        (404, body.to_owned())
    );
}

#[actix_web::test]
async fn a_429_carries_cors_for_an_allowed_origin_and_nothing_for_another() {
    let app = TestApp::spawn(&[("AUTH_RATE_LIMIT_CREDENTIAL", "1/15m")]).await;
    let login = |origin: &'static str| {
        app.client
            .post(app.url("/api/v1/auth/login"))
            .header("origin", origin)
            .json(&serde_json::json!({}))
            .send()
    };
    login("http://localhost:3000").await.unwrap();
    let allowed = login("http://localhost:3000").await.unwrap();
    assert_eq!(allowed.status(), 429);
    assert_eq!(
        header(&allowed, "access-control-allow-origin").as_deref(),
        Some("http://localhost:3000")
    );
    let other = login("https://evil.example").await.unwrap();
    assert_eq!(other.status(), 429);
    let leaked: Vec<_> = other
        .headers()
        .keys()
        .filter(|name| name.as_str().starts_with("access-control-"))
        .collect();
    assert!(leaked.is_empty(), "{leaked:?}");
}

#[test]
fn a_weak_secret_stops_start_up_naming_the_variable_not_the_value() {
    for secret in [
        "",
        platform::jwt::ENV_EXAMPLE_PLACEHOLDER,
        "changeme",
        "short-but-random-9f8e",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_backend"))
            .env_clear()
            .env("SECURITY_JWT_SECRET_KEY", secret)
            .env("PORT", "0")
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(64), "{secret:?}: {stderr}");
        assert!(stderr.contains("SECURITY_JWT_SECRET_KEY"), "{stderr}");
        assert!(
            secret.is_empty() || !stderr.contains(secret),
            "the value leaked: {stderr}"
        );
    }
}
