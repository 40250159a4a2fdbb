//! "The rate ceiling" on logins: one client, a new address per login (a credential-stuffing
//! run makes one guess per address, so no attempt ceiling trips), until the auth filter's
//! credential budget (20/15m per client address) refuses with `Retry-After` = 900 s / 20 = 45
//! and the filters' body. Where the first refusal falls and what it says follow from the
//! budget and what this run already spent (the attempt ceiling's logins count too).

use super::attempts::{INVALID_LOGIN, login};
use super::kit::{Metered, Run, fail_body, range_text, runs, tally_text};
use crate::bucket::Expect;
use crate::ledger::{AUTH_CREDENTIAL, CREDENTIAL};
use crate::report::Section;
use crate::service::Service;
use std::time::Instant;

/// The check's name.
pub const NAME: &str = "login-rate";
const TITLE: &str = "The rate ceiling on logins";
/// The reference run sent 25.
const REFERENCE_COUNT: u32 = 25;
/// A budget larger than this is not spent by a probe.
const MAX_COUNT: u32 = 200;

/// Runs the check.
pub async fn check(run: &mut Run) -> Section {
    if let Some(reason) = run.missing(Service::Backend) {
        return Section::skipped(NAME, TITLE, reason);
    }
    let count = login_count(run);
    if count > MAX_COUNT {
        let reason = format!("the login budgets allow more than {MAX_COUNT} logins now");
        return Section::skipped(NAME, TITLE, reason);
    }
    let budget = run.expect.auth_credential;
    let mut section = Section::new(
        NAME,
        TITLE,
        format!(
            "{count} × `POST /api/v1/auth/login` from one client, each for a different address, \
             one after another. The auth filter's credential budget is {} logins per {} s per \
             client address: one login accrues every {} s, which is the `Retry-After` of a \
             refusal from a just-emptied bucket.",
            budget.limit(),
            budget.period().as_secs(),
            budget.emission_interval().as_secs_f64()
        ),
    );
    let mut answers = Vec::new();
    for n in 1..=count {
        let email = format!("estate-probe-{}-{n}@example.com", run.run_id);
        answers.push(login(run, &email).await);
    }
    rows(&mut section, &answers);
    section
}

/// Enough logins to see the first refusal and a few after it; the reference run's 25 at least.
fn login_count(run: &Run) -> u32 {
    let now = Instant::now();
    let window = crate::exchange::Window {
        sent: now,
        received: now,
    };
    let available = [CREDENTIAL, AUTH_CREDENTIAL]
        .iter()
        .filter_map(|group| run.ledger.bucket(group)?.available(window))
        .map(|(_, high)| high)
        .min()
        .unwrap_or(run.expect.auth_credential.limit());
    REFERENCE_COUNT.max(available.saturating_add(5))
}

fn rows(section: &mut Section, answers: &[Metered]) {
    let first_possible = answers
        .iter()
        .position(|answer| matches!(answer.expected, Expect::Either | Expect::Refuse { .. }))
        .map(|index| index + 1);
    let first_certain = answers
        .iter()
        .position(|answer| matches!(answer.expected, Expect::Refuse { .. }))
        .map(|index| index + 1);
    let observed_first = answers
        .iter()
        .position(|answer| answer.refused)
        .map(|i| i + 1);
    let expected = match (first_possible, first_certain) {
        (Some(low), Some(high)) => {
            format!("429 at request {}", range_text(low as u64, high as u64))
        }
        (Some(low), None) => format!("429 at request {low} or later"),
        _ => format!("no 429 within {}", answers.len()),
    };
    let observed = observed_first.map_or_else(
        || format!("no 429 within {}", answers.len()),
        |n| format!("429 at request {n}"),
    );
    let disagreeing: Vec<String> = answers
        .iter()
        .zip(1..)
        .filter(|(answer, _)| !answer.agrees())
        .map(|(answer, n)| format!("#{n}: {}", answer.exchange.shorthand()))
        .collect();
    let ok = disagreeing.is_empty() && observed_first.is_some();
    let observed = if disagreeing.is_empty() {
        observed
    } else {
        format!(
            "{observed}; against the arithmetic: {}",
            disagreeing.join(", ")
        )
    };
    section.row("the first refusal", expected, observed, ok);
    served_rows(section, answers);
    refusal_rows(section, answers, observed_first);
}

fn served_rows(section: &mut Section, answers: &[Metered]) {
    let served: Vec<&Metered> = answers.iter().filter(|answer| !answer.refused).collect();
    let expected = format!("{} × 401", served.len());
    section.compare(
        "the logins served",
        expected,
        tally_text(served.iter().map(|answer| answer.exchange.shorthand())),
    );
    let mut bodies: Vec<&str> = served
        .iter()
        .map(|answer| answer.exchange.body.as_str())
        .collect();
    bodies.dedup();
    section.compare("their body", INVALID_LOGIN, bodies.join(" / "));
}

fn refusal_rows(section: &mut Section, answers: &[Metered], first: Option<usize>) {
    let refusals: Vec<&Metered> = answers.iter().filter(|answer| answer.refused).collect();
    let (low, high) = refusals
        .iter()
        .filter_map(|answer| match answer.expected {
            Expect::Refuse { retry_after, .. } => Some(retry_after),
            _ => None,
        })
        .fold((u64::MAX, 0), |(low, high), (a, b)| {
            (low.min(a), high.max(b))
        });
    let expected = if high == 0 {
        "(none expected)".to_owned()
    } else {
        range_text(low, high)
    };
    let mut observed: Vec<String> = refusals
        .iter()
        .map(|answer| {
            answer
                .exchange
                .retry_after()
                .map_or("none".to_owned(), |s| s.to_string())
        })
        .collect();
    observed.dedup();
    let ok = refusals.iter().all(|answer| answer.agrees());
    section.row("their Retry-After", expected, observed.join(", "), ok);
    let Some(refusal) = refusals.first() else {
        return;
    };
    let secs = refusal.exchange.retry_after().unwrap_or_default();
    section.compare(
        "a refusal's body",
        fail_body(secs),
        refusal.exchange.body.clone(),
    );
    let statuses: Vec<String> = answers
        .iter()
        .map(|answer| answer.exchange.shorthand())
        .collect();
    section.line(format!(
        "{} x POST /auth/login       429 at request {}   retry-after: {secs}",
        answers.len(),
        first.unwrap_or_default()
    ));
    section.line(runs(&statuses));
    section.line(refusal.exchange.body.clone());
}
