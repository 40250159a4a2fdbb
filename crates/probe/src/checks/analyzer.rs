//! The analyzer's side of the reference measurements: its token gate, its
//! limiter on with no variable set (a read carries its group and limit), a client's malformed
//! bodies answered 400/413/415 in its envelope and never 500 (docs/DESIGN.md, "The analyzer" and "Errors a caller never sees"), and the
//! 900-request burst against the write group ([`super::analyzer_burst`]).

use super::analyzer_burst;
use super::kit::{MANDATORY, Run, analyzer_refusal};
use crate::exchange::Exchange;
use crate::ledger::WRITE;
use crate::report::{Section, Verdict};
use crate::service::Service;
use reqwest::{Method, RequestBuilder};
use std::time::Duration;

/// The check's name.
pub const NAME: &str = "analyzer";
const TITLE: &str = "The analyzer's limiter and malformed bodies";
/// The gate's whole answer.
pub const UNAUTHORIZED: &str =
    r#"{"error":"unauthorized","message":"valid X-Analyzer-Token header required"}"#;
const UNSUPPORTED: &str = r#"{"error":"unsupported_media_type","message":"request body must be JSON (Content-Type: application/json)"}"#;
const INVALID_PREFIX: &str =
    r#"{"error":"invalid_request_body","message":"request body is not valid: "#;
/// Limiter refusals a malformed write waits out before giving up.
const WRITE_RETRIES: usize = 3;

/// What a malformed request must get.
enum Answer {
    Exact(u16, String),
    Invalid,
}

/// Runs the check.
pub async fn check(run: &mut Run) -> Section {
    if let Some(reason) = run.missing(Service::Analyzer) {
        return Section::skipped(NAME, TITLE, reason);
    }
    let mut section = Section::new(
        NAME,
        TITLE,
        "The token gate, one read, five malformed bodies, then 900 × `POST /rules/validate` \
         with `{}` one after another against the write group (keyed per token).",
    );
    gate(run, &mut section).await;
    let Some(token) = run.analyzer_token.clone() else {
        let reason = "no analyzer token (--analyzer-token or ANALYZER_TOKEN)".to_owned();
        section.push(
            "the rest",
            String::new(),
            String::new(),
            Verdict::Skipped(reason),
        );
        return section;
    };
    read(run, &mut section, &token).await;
    malformed(run, &mut section, &token).await;
    analyzer_burst::check(run, &mut section, &token).await;
    section
}

async fn gate(run: &mut Run, section: &mut Section) {
    let request = run
        .estate
        .request(Method::POST, Service::Analyzer, "/analyze")
        .header("content-type", "application/json")
        .body("{}");
    let answer = run.estate.send(request).await;
    let observed = format!("{} {}", answer.status_text(), answer.body);
    section.compare(
        "`POST /analyze` without a token",
        format!("401 {UNAUTHORIZED}"),
        observed.clone(),
    );
    section.line(format!("{:<40} {observed}", "POST /analyze (no token)"));
}

async fn read(run: &mut Run, section: &mut Section, token: &str) {
    let request = run
        .estate
        .request(Method::GET, Service::Analyzer, "/analysis-types")
        .header("x-analyzer-token", token);
    let answer = run.estate.send(request).await;
    let shown = |answer: &Exchange| {
        format!(
            "{}   x-ratelimit-group: {}   x-ratelimit-limit: {}",
            answer.status_text(),
            answer.header("x-ratelimit-group").unwrap_or("-"),
            answer.header("x-ratelimit-limit").unwrap_or("-")
        )
    };
    let expected = format!(
        "200   x-ratelimit-group: read   x-ratelimit-limit: {}",
        run.expect.analyzer_read.limit()
    );
    section.compare("`GET /analysis-types`", expected, shown(&answer));
    section.line(format!("{:<40} {}", "GET /analysis-types", shown(&answer)));
}

async fn malformed(run: &mut Run, section: &mut Section, token: &str) {
    let max = run.expect.analyzer_max_body_bytes;
    let json = "application/json";
    let cases = [
        (
            "/rules/validate",
            json,
            "899".to_owned(),
            "-d '899'".to_owned(),
            Answer::Invalid,
        ),
        (
            "/analyze",
            json,
            r#"{"files":"#.to_owned(),
            r#"-d '{"files":'"#.to_owned(),
            Answer::Invalid,
        ),
        (
            "/rules/validate",
            json,
            "{}".to_owned(),
            "-d '{}'".to_owned(),
            Answer::Exact(400, MANDATORY.to_owned()),
        ),
        (
            "/analyze",
            "text/plain",
            "{}".to_owned(),
            "as text/plain".to_owned(),
            Answer::Exact(415, UNSUPPORTED.to_owned()),
        ),
        (
            "/analyze",
            json,
            oversized(max + 1),
            format!("with {} bytes", max + 1),
            Answer::Exact(413, too_large(max)),
        ),
    ];
    for (path, content_type, body, shown, answer) in cases {
        let request = run
            .estate
            .request(Method::POST, Service::Analyzer, path)
            .header("x-analyzer-token", token)
            .header("content-type", content_type)
            .body(body);
        let exchange = send_write(run, request, path == "/rules/validate").await;
        let label = format!("`POST {path}` {shown}");
        malformed_row(section, &label, &answer, &exchange);
    }
}

fn malformed_row(section: &mut Section, label: &str, answer: &Answer, exchange: &Exchange) {
    let observed = format!("{} {}", exchange.status_text(), exchange.body);
    let (expected, ok) = match answer {
        Answer::Exact(status, body) => {
            let expected = format!("{status} {body}");
            let ok = expected == observed;
            (expected, ok)
        }
        Answer::Invalid => {
            let ok = exchange.status == Some(400)
                && exchange.body.starts_with(INVALID_PREFIX)
                && exchange.body.ends_with("\"}");
            (format!("400 {INVALID_PREFIX}…\"}}"), ok)
        }
    };
    section.row(label, expected, observed.clone(), ok);
    section.line(format!("{:<40} {observed}", label.replace('`', "")));
}

/// Sends a request; one metered by the write group waits out a limiter refusal (a run within
/// a minute of another finds the group spent) and is recorded in the ledger.
async fn send_write(run: &mut Run, request: RequestBuilder, metered: bool) -> Exchange {
    if !metered {
        return run.estate.send(request).await;
    }
    let mut pending = request;
    for _ in 0..WRITE_RETRIES {
        let retry = pending.try_clone();
        let answer = run.metered(&[WRITE], pending, analyzer_refusal).await;
        let Some(next) = retry.filter(|_| answer.refused) else {
            return answer.exchange;
        };
        let wait = answer.exchange.retry_after().unwrap_or(1);
        tokio::time::sleep(Duration::from_secs(wait)).await;
        pending = next;
    }
    run.metered(&[WRITE], pending, analyzer_refusal)
        .await
        .exchange
}

fn oversized(len: usize) -> String {
    let frame = r#"{"files":[{"path":"a.rs","content":""}]}"#;
    let filler = "x".repeat(len.saturating_sub(frame.len()));
    format!(r#"{{"files":[{{"path":"a.rs","content":"{filler}"}}]}}"#)
}

fn too_large(max: usize) -> String {
    format!(
        r#"{{"error":"payload_too_large","message":"request body is larger than {max} bytes"}}"#
    )
}
