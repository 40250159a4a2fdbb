//! No spelling of a metered path escapes its meter: the public log analysis (a rule of the
//! table) and the chat (its window, checked at the route), once spent, refuse every other
//! spelling of their path and every other method, or route it nowhere.

use crate::helpers::{TestApp, token};
use testkit::raw::{Exchange, RawRequest};
use testkit::sweep::{Verdicts, no_route};

/// The metered operations, as (method, path).
const METERED: [(&str, &str); 2] = [("POST", "/api/log-analysis"), ("POST", "/api/chat")];

fn refused(exchange: &Exchange) -> bool {
    exchange.status == 429
        && exchange.header("retry-after").is_some()
        && exchange
            .body
            .starts_with(r#"{"error":"rate_limited","message":"too many requests; "#)
}

#[actix_web::test]
async fn no_spelling_of_a_metered_path_reaches_its_handler_unmetered() {
    let app = TestApp::spawn(&[
        ("LOG_ANALYSIS_PUBLIC_RATE_LIMIT", "1"),
        ("AI_RATE_LIMIT_CHAT", "1/1m"),
    ])
    .await;
    let address = app.base.trim_start_matches("http://").to_owned();
    let authorization = format!("Bearer {}", token("user-sweeper"));
    let verdicts = Verdicts {
        refused: &refused,
        unrouted: &no_route,
    };
    let mut served = Vec::new();
    for (method, path) in METERED {
        let request = RawRequest::new(method, path)
            .header("authorization", &authorization)
            .json("{}");
        served.extend(verdicts.spend_and_sweep(&address, &request).await);
    }
    assert!(
        served.is_empty(),
        "served unmetered:\n{}",
        served.join("\n")
    );
}

#[actix_web::test]
async fn the_sweep_covers_every_rule_of_the_table() {
    let table = ai_service::limits::rule_table();
    for (index, rule) in table.rules().iter().enumerate() {
        let covered = METERED
            .iter()
            .any(|(method, path)| table.position(method, path) == Some(index));
        assert!(
            covered,
            "rule {index} ({:?}) has no swept operation",
            rule.groups()
        );
    }
}
