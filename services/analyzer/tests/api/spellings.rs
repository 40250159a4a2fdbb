//! No spelling of a metered path escapes its meter: for each of the analyzer's metered
//! operations (its four groups), once the budget is spent, every other spelling of the path
//! and every other method is refused or routed nowhere; none reaches a handler unmetered.

use crate::helpers::{TOKEN, TestApp};
use testkit::raw::{Exchange, RawRequest};
use testkit::sweep::{Verdicts, no_route};

/// Every operation the rule table meters, as (method, path).
const METERED: [(&str, &str); 9] = [
    ("POST", "/analyze"),
    ("POST", "/llm/explain"),
    ("GET", "/analysis-types"),
    ("GET", "/rules"),
    ("GET", "/rules/some-rule"),
    ("POST", "/rules/validate"),
    ("POST", "/rules"),
    ("PUT", "/rules/some-rule"),
    ("DELETE", "/rules/some-rule"),
];

fn refused(exchange: &Exchange) -> bool {
    exchange.status == 429
        && exchange.header("retry-after").is_some()
        && exchange
            .body
            .starts_with(r#"{"error":"rate_limited","group":""#)
}

#[actix_web::test]
async fn no_spelling_of_a_metered_path_reaches_its_handler_unmetered() {
    let budgets = ["ANALYZE", "LLM", "READ", "WRITE"]
        .map(|group| (format!("ANALYZER_RATE_LIMIT_{group}"), "1/60s"));
    let overrides: Vec<(&str, &str)> = budgets.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let app = TestApp::spawn(&overrides).await;
    let address = app.base.trim_start_matches("http://").to_owned();
    let verdicts = Verdicts {
        refused: &refused,
        unrouted: &no_route,
    };
    let mut served = Vec::new();
    for (method, path) in METERED {
        let request = RawRequest::new(method, path)
            .header("x-analyzer-token", TOKEN)
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
    let table = analyzer::limits::rule_table();
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
