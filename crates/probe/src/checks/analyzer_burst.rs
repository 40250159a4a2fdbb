//! The reference run's 900 × `POST /rules/validate` against the analyzer's write group (60/60s per
//! token by default): the ones the bucket serves answer 400 `rule.ruleId is mandatory`, the rest
//! 429 `{"error":"rate_limited","group":"write","limit":60,"retry_after_ms":N}` with `retry-after`
//! = N ms rounded up to whole seconds. How many are served follows from the bucket and the time the
//! burst takes (the reference run's 237 took minutes; a local run takes seconds and gets about 60).

use super::kit::{MANDATORY, Metered, Run, analyzer_refusal, range_text, tally_text};
use crate::bucket::Expect;
use crate::ledger::WRITE;
use crate::report::Section;
use crate::service::Service;
use limiter::policy::retry_after_secs;
use reqwest::Method;
use std::time::Duration;

const BURST: usize = 900;

/// Sends the burst and adds its rows.
pub async fn check(run: &mut Run, section: &mut Section, token: &str) {
    let mut answers = Vec::with_capacity(BURST);
    for _ in 0..BURST {
        let request = run
            .estate
            .request(Method::POST, Service::Analyzer, "/rules/validate")
            .header("x-analyzer-token", token)
            .header("content-type", "application/json")
            .body("{}");
        answers.push(run.metered(&[WRITE], request, analyzer_refusal).await);
    }
    let limit = run.expect.analyzer_write.limit();
    let interval_ms = u64::try_from(run.expect.analyzer_write.emission_interval().as_millis())
        .unwrap_or(u64::MAX);
    counts_row(section, &answers);
    refusal_row(section, &answers, limit, interval_ms);
}

fn counts_row(section: &mut Section, answers: &[Metered]) {
    let certain = answers
        .iter()
        .filter(|answer| matches!(answer.expected, Expect::Allow))
        .count();
    let possible = answers
        .iter()
        .filter(|answer| !matches!(answer.expected, Expect::Refuse { .. }))
        .count();
    let statuses = tally_text(answers.iter().map(|answer| answer.exchange.status_text()));
    let served_right = answers
        .iter()
        .filter(|answer| !answer.refused)
        .all(|answer| answer.exchange.status == Some(400) && answer.exchange.body == MANDATORY);
    let against: Vec<String> = answers
        .iter()
        .zip(1..)
        .filter(|(answer, _)| !answer.agrees())
        .map(|(answer, n)| format!("#{n} {}", answer.exchange.shorthand()))
        .collect();
    let mut observed = statuses.clone();
    if !against.is_empty() {
        observed.push_str(&format!("; against the arithmetic: {}", against.join(", ")));
    }
    let expected = format!(
        "{} × 400, the rest × 429",
        range_text(certain as u64, possible as u64)
    );
    let label = format!("{BURST} × `POST /rules/validate` `{{}}`");
    section.row(
        &label,
        expected,
        observed,
        against.is_empty() && served_right,
    );
    let label = format!("{BURST} x POST /rules/validate -d '{{}}'");
    section.line(format!("{label:<40} {statuses}"));
}

fn refusal_row(section: &mut Section, answers: &[Metered], limit: u32, interval_ms: u64) {
    let refusals: Vec<&Metered> = answers.iter().filter(|answer| answer.refused).collect();
    let Some(last) = refusals.last() else {
        return;
    };
    let all_right = refusals
        .iter()
        .all(|answer| refusal_agrees(answer, limit, interval_ms));
    let expected = format!(
        r#"429   retry-after: 1 {{"error":"rate_limited","group":"write","limit":{limit},"retry_after_ms":1–{interval_ms}}}"#
    );
    let observed = format!("{} {}", last.exchange.shorthand(), last.exchange.body);
    section.row("the refusal", expected, observed, all_right);
    section.line(format!(
        "{:<40} {}",
        "the refusal",
        last.exchange.shorthand()
    ));
    section.line(format!("{:<40} {}", "", last.exchange.body));
}

/// The body names the group, its limit and the exact wait (within what the arithmetic
/// allows); `retry-after` is that wait in whole seconds, rounded up.
fn refusal_agrees(answer: &Metered, limit: u32, interval_ms: u64) -> bool {
    let Ok(body) = serde_json::from_str::<serde_json::Value>(&answer.exchange.body) else {
        return false;
    };
    let Some(wait_ms) = body["retry_after_ms"].as_u64() else {
        return false;
    };
    let shape = format!(
        r#"{{"error":"rate_limited","group":"write","limit":{limit},"retry_after_ms":{wait_ms}}}"#
    );
    let (low, high) = match answer.expected {
        Expect::Refuse { wait_ms, .. } => wait_ms,
        _ => (1, interval_ms),
    };
    let header = retry_after_secs(Duration::from_millis(wait_ms));
    shape == answer.exchange.body
        && (low..=high).contains(&wait_ms)
        && answer.exchange.retry_after() == Some(header)
}
