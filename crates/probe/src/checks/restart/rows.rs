//! The restart check's rows: the command, the answer before, the failures and their kind,
//! CORS on a failure, the window, the recovery and the slowest poll.

use super::plan::Plan;
use super::window::{EDGE_502, Summary};
use crate::report::{Section, Verdict};
use std::time::SystemTime;

/// Adds every row and line for `summary`.
pub fn rows(
    section: &mut Section,
    plan: &Plan,
    (outcome, command_ms): (String, u128),
    summary: &Summary,
    via_ingress: bool,
) {
    section.compare(&format!("`{}`", plan.command), "exit 0", outcome.clone());
    let before = summary.baseline.map_or_else(
        || "no answer below 500: the service was not up".to_owned(),
        |status| status.to_string(),
    );
    let label = format!("`GET {}` before the restart", plan.path);
    section.row(
        &label,
        "an answer from the service (below 500)",
        before,
        summary.baseline.is_some(),
    );
    let failed = format!("{} of {} polls", summary.failures, summary.requests);
    match plan.max_failures {
        Some(max) => section.row(
            "polls that failed",
            format!("at most {max}"),
            failed,
            summary.failures <= max,
        ),
        None => section.push(
            "polls that failed",
            "measured".to_owned(),
            failed,
            Verdict::Measured,
        ),
    }
    let expected_kind = if via_ingress {
        format!("502 `{EDGE_502}`")
    } else {
        "no answer (nothing listens)".to_owned()
    };
    let kinds: Vec<String> = summary
        .kinds
        .iter()
        .map(|(kind, n)| format!("{n} × {kind}"))
        .collect();
    let kinds_ok = summary.kinds.iter().all(|(kind, _)| {
        if via_ingress {
            *kind == expected_kind
        } else {
            kind.starts_with("no answer")
        }
    });
    let observed = if kinds.is_empty() {
        "none failed".to_owned()
    } else {
        kinds.join(", ")
    };
    section.row("every failure", expected_kind, observed, kinds_ok);
    let cors = if summary.cors_on_failures.is_empty() {
        "none".to_owned()
    } else {
        summary.cors_on_failures.join(", ")
    };
    section.compare("CORS headers on a failure", "none", cors);
    window_rows(section, plan, command_ms, summary);
}

fn window_rows(section: &mut Section, plan: &Plan, command_ms: u128, summary: &Summary) {
    let window = match summary.first_and_last {
        Some((first, last)) => format!(
            "{} ms: first failure {}, last {}",
            summary.window.as_millis(),
            humantime::format_rfc3339_millis(first),
            humantime::format_rfc3339_millis(last)
        ),
        None => "0 ms: no poll failed".to_owned(),
    };
    section.push(
        "the window",
        "measured, not guessed".to_owned(),
        window.clone(),
        Verdict::Measured,
    );
    let recovered = match (summary.failures, summary.recovered_after) {
        (0, _) => "never down: every poll answered as before".to_owned(),
        (_, Some(after)) => format!("{} ms after the command started", after.as_millis()),
        (_, None) => format!("not within {} s", plan.timeout.as_secs()),
    };
    let ok = summary.failures == 0 || summary.recovered_after.is_some();
    section.row(
        "answering as before again",
        format!("within {} s", plan.timeout.as_secs()),
        recovered.clone(),
        ok,
    );
    let slowest = format!(
        "{} ms, sent {} ms after the command started",
        summary.slowest_ms, summary.slowest_sent_ms
    );
    section.push(
        "the slowest poll",
        "measured".to_owned(),
        slowest,
        Verdict::Measured,
    );
    section.line(format!("{}  ({} ms)", plan.command, command_ms));
    section.line(format!(
        "{} polls, {} failed; window {window}",
        summary.requests, summary.failures
    ));
    for (kind, n) in &summary.kinds {
        section.line(format!("  {n} × {kind}"));
    }
    section.line(format!(
        "answering as before again: {recovered}; at {}",
        humantime::format_rfc3339_millis(SystemTime::now())
    ));
}
