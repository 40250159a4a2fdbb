//! "Per service, as actually configured": one metered request per service; its
//! `RateLimit-Policy` field shows the limiter is on with the budget the contract names,
//! with no variable set (docs/DESIGN.md, from "The analyzer" to "The mcp-server", and "Budgets are settings").

use super::kit::{Run, backend_refusal};
use crate::expect::policy_field;
use crate::ledger::CREDENTIAL;
use crate::report::{Section, Verdict};
use crate::service::Service;
use limiter::Policy;
use reqwest::Method;
use serde_json::json;
use std::time::Duration;

/// The check's name.
pub const NAME: &str = "limits";
const TITLE: &str = "Per service, as actually configured";

/// Runs the check.
pub async fn check(run: &mut Run) -> Section {
    let mut section = Section::new(
        NAME,
        TITLE,
        "One metered request to each service. Its `RateLimit-Policy` field names the group and \
         the budget the limiter enforces: on by default, whatever the environment leaves unset.",
    );
    backend(run, &mut section).await;
    analyzer(run, &mut section).await;
    ai(run, &mut section).await;
    mcp(run, &mut section).await;
    section
}

async fn backend(run: &mut Run, section: &mut Section) {
    let label = "backend `GET /api/v1/auth/workspace`";
    if skipped(run, Service::Backend, label, section) {
        return;
    }
    let path = format!("/api/v1/auth/workspace?name=estate-probe-{}", run.run_id);
    let request = run.estate.request(Method::GET, Service::Backend, &path);
    let metered = run.metered(&[CREDENTIAL], request, backend_refusal).await;
    let expected = policy_field(CREDENTIAL, &run.expect.credential);
    policy_row(section, label, expected, &metered.exchange);
}

async fn analyzer(run: &mut Run, section: &mut Section) {
    let label = "analyzer `GET /analysis-types`";
    if skipped(run, Service::Analyzer, label, section) {
        return;
    }
    let Some(token) = run.analyzer_token.clone() else {
        let reason = "no analyzer token (--analyzer-token or ANALYZER_TOKEN)".to_owned();
        section.push(
            label,
            String::new(),
            String::new(),
            Verdict::Skipped(reason),
        );
        return;
    };
    let request = run
        .estate
        .request(Method::GET, Service::Analyzer, "/analysis-types")
        .header("x-analyzer-token", token);
    let exchange = run.estate.send(request).await;
    policy_row(
        section,
        label,
        policy_field("read", &run.expect.analyzer_read),
        &exchange,
    );
}

async fn ai(run: &mut Run, section: &mut Section) {
    let label = "ai-service `POST /api/log-analysis`";
    if skipped(run, Service::Ai, label, section) {
        return;
    }
    let request = run
        .estate
        .request(Method::POST, Service::Ai, "/api/log-analysis")
        .json(&json!({ "log": "ERROR estate-probe: one line to meter" }));
    let exchange = run.estate.send(request).await;
    let per_minute = Policy::new(run.expect.log_analysis_per_minute, Duration::from_secs(60));
    let expected = per_minute.map_or_else(
        |_| "(LOG_ANALYSIS_PUBLIC_RATE_LIMIT is 0)".to_owned(),
        |policy| policy_field("log_analysis", &policy),
    );
    policy_row(section, label, expected, &exchange);
}

async fn mcp(run: &mut Run, section: &mut Section) {
    let label = "mcp-server `POST /mcp` (ping)";
    if skipped(run, Service::Mcp, label, section) {
        return;
    }
    let request = run
        .estate
        .request(Method::POST, Service::Mcp, "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let exchange = run.estate.send(request).await;
    policy_row(
        section,
        label,
        policy_field("mcp", &run.expect.mcp),
        &exchange,
    );
}

fn skipped(run: &Run, service: Service, label: &str, section: &mut Section) -> bool {
    let Some(reason) = run.missing(service) else {
        return false;
    };
    section.push(
        label,
        String::new(),
        String::new(),
        Verdict::Skipped(reason),
    );
    true
}

fn policy_row(
    section: &mut Section,
    label: &str,
    expected: String,
    exchange: &crate::exchange::Exchange,
) {
    let observed = exchange.header("ratelimit-policy").map_or_else(
        || format!("(no RateLimit-Policy; {})", exchange.status_text()),
        str::to_owned,
    );
    section.line(format!(
        "{}  {}  ratelimit-policy: {}  ratelimit: {}",
        label.replace('`', ""),
        exchange.status_text(),
        exchange.header("ratelimit-policy").unwrap_or("-"),
        exchange.header("ratelimit").unwrap_or("-"),
    ));
    section.compare(label, expected, observed);
}
