//! Through the edge, no spelling of a metered path escapes its meter: the real backend behind
//! the real ingress binary (which believes the ingress's `X-Forwarded-For`), one metered
//! operation of each group spent, then every other spelling of its path and every other
//! method sent through the ingress on a raw socket. The backend's own sweep covers every one of its operations; this
//! one proves that the edge neither opens a way around the meter nor closes one by accident
//! (a spelling the edge normalizes reaches the backend as the path it names, and meets its
//! meter there; one it refuses is its `400`).

use crate::process::Ingress;
use backend::{Application, BackendConfig};
use platform::{JwtKeys, MapEnv, Subject, TokenKind};
use std::time::Duration;
use testkit::raw::{Exchange, RawRequest};
use testkit::sweep::Verdicts;

const SECRET: &str = "4f1c9a7e2b8d6053a1e4c7b9d2f608e35a7c1b9e4d2f6a8c0b3e5d7f9a1c3e5b";

/// One operation of each of the backend's groups.
const OPERATIONS: [(&str, &str); 6] = [
    ("POST", "/api/v1/auth/login"),
    ("POST", "/api/v1/auth/forgot-password"),
    ("POST", "/api/v1/auth/verify-otp"),
    ("POST", "/api/v1/auth/refresh"),
    ("POST", "/api/v1/analyzer"),
    ("POST", "/api/v1/gatekeeper/check"),
];

/// The backend on a free port, every budget one request an hour, trusting the ingress.
fn backend(data_dir: &std::path::Path) -> u16 {
    let mut budgets = Vec::new();
    for group in ["EMAIL", "EMAIL_RECIPIENT", "CREDENTIAL", "EXPENSIVE", "CI"] {
        budgets.push((leak(format!("RATE_LIMIT_{group}")), "1/1h"));
    }
    for group in ["CREDENTIAL", "ONE_TIME_CODE", "EMAIL", "BACKSTOP"] {
        budgets.push((leak(format!("AUTH_RATE_LIMIT_{group}")), "1/1h"));
    }
    let app = build_backend(data_dir, &budgets);
    let port = app.port();
    actix_web::rt::spawn(app.into_server());
    port
}

/// The backend on a free port with `overrides`, trusting the ingress, not yet serving.
pub fn build_backend(data_dir: &std::path::Path, overrides: &[(&str, &str)]) -> Application {
    let data_dir = data_dir.to_string_lossy().into_owned();
    let mut settings = vec![
        ("SECURITY_JWT_SECRET_KEY", SECRET),
        ("PORT", "0"),
        ("DATA_DIR", data_dir.as_str()),
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
    ];
    settings.extend_from_slice(overrides);
    let env: MapEnv = settings.into_iter().collect();
    let config = BackendConfig::from_env(&env).expect("test settings are valid");
    Application::build(config).expect("the backend builds")
}

fn leak(name: String) -> &'static str {
    Box::leak(name.into_boxed_str())
}

fn access_token() -> String {
    let keys = JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)]))
        .expect("the test secret derives keys");
    keys.issue(
        TokenKind::Access,
        &Subject::user("edge-sweeper"),
        Duration::from_secs(3600),
    )
    .expect("a token")
}

fn refused(exchange: &Exchange) -> bool {
    let wait: Option<u64> = exchange
        .header("retry-after")
        .and_then(|secs| secs.parse().ok());
    exchange.status == 429
        && wait.is_some_and(|secs| {
            exchange.body
                == format!(
                    r#"{{"status":"FAIL","message":"Too many requests. Please try again in {secs} second(s)."}}"#
                )
        })
}

/// The backend routed it nowhere, or the edge refused it first (a path no origin agrees on,
/// a method it does not forward).
fn unrouted(exchange: &Exchange) -> bool {
    (exchange.status == 404 && exchange.body.contains(r#""message":"no route for "#))
        || (exchange.status == 400 && exchange.body == "error code: 400")
        || (exchange.status == 405 && exchange.body == "error code: 405")
}

#[actix_web::test]
async fn no_spelling_reaches_a_metered_handler_through_the_edge() {
    let data = tempfile::tempdir().expect("a data directory");
    let port = backend(data.path());
    let ingress = Ingress::start(&format!("ingress:\n  - service: http://127.0.0.1:{port}\n"));
    let address = ingress.proxy.to_string();
    let token = access_token();
    let verdicts = Verdicts {
        refused: &refused,
        unrouted: &unrouted,
    };
    let mut served = Vec::new();
    for (method, path) in OPERATIONS {
        let request = RawRequest::new(method, path)
            .header("authorization", &format!("Bearer {token}"))
            .header("x-ci-key", "ci-sweep-key")
            .json("{}");
        served.extend(verdicts.spend_and_sweep(&address, &request).await);
    }
    assert!(
        served.is_empty(),
        "served unmetered:\n{}",
        served.join("\n")
    );
}
