//! No spelling of a metered path escapes its meter: for each of the MCP server's three groups,
//! once the budget is spent, every other spelling of the path and every other method is
//! refused or routed nowhere; none reaches a handler unmetered.

use crate::helpers::{TestApp, access_token, bearer};
use testkit::raw::{Exchange, RawRequest};
use testkit::sweep::{Verdicts, no_route};

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

/// Every operation the rule table meters, as (method, path).
const METERED: [(&str, &str); 4] = [
    ("POST", "/mcp"),
    ("GET", "/mcp"),
    ("GET", "/skills/package"),
    ("GET", "/install.sh"),
];

fn refused(exchange: &Exchange) -> bool {
    let message = r#""message":"Too many requests. Please try again in "#;
    exchange.status == 429
        && exchange.header("retry-after").is_some()
        && exchange.body.contains(message)
}

#[actix_web::test]
async fn no_spelling_of_a_metered_path_reaches_its_handler_unmetered() {
    let app = TestApp::spawn(&[
        ("MCP_RATE_LIMIT_MCP", "1/60s"),
        ("MCP_RATE_LIMIT_SKILLS_PACKAGE", "1/60s"),
        ("MCP_RATE_LIMIT_INSTALLER", "1/60s"),
    ])
    .await;
    let address = app.base.trim_start_matches("http://").to_owned();
    let (name, authorization) = bearer(&access_token("user-sweeper", None));
    let verdicts = Verdicts {
        refused: &refused,
        unrouted: &no_route,
    };
    let mut served = Vec::new();
    for (method, path) in METERED {
        let request = RawRequest::new(method, path)
            .header(name, &authorization)
            .header("accept", "application/json, text/event-stream")
            .json(PING);
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
    let table = mcp_server::limits::rule_table();
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
