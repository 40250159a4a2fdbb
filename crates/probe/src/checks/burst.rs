//! "The rate ceiling, and its refill": 126 lookups one after another (all served: the bucket
//! refills continuously, it never resets on a window boundary), then 240 at 12 concurrent,
//! which get exactly what is left of the public filter's credential budget (300/1h per client
//! address, less what this run spent, plus what accrued), each refusal with `Retry-After` of
//! at most one token's interval (3600 s / 300 = 12); then, after waiting that long, exactly
//! one more lookup is served.

use super::kit::{Metered, Run, backend_refusal, fail_body, range_text, tally, tally_text};
use crate::bucket::Expect;
use crate::exchange::{Exchange, Window};
use crate::ledger::CREDENTIAL;
use crate::report::{Section, Verdict};
use crate::service::Service;
use reqwest::Method;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;

/// The check's name.
pub const NAME: &str = "burst";
const TITLE: &str = "The rate ceiling, and its refill";
const SEQUENTIAL: usize = 126;
const CONCURRENCY: usize = 12;
const PER_WORKER: usize = 20;
/// The longest the probe waits for a token.
const MAX_WAIT: Duration = Duration::from_secs(60);
/// Lookups after the wait, at most, looking for the next refusal.
const AFTER_WAIT: usize = 5;

/// Runs the check.
pub async fn check(run: &mut Run) -> Section {
    if let Some(reason) = run.missing(Service::Backend) {
        return Section::skipped(NAME, TITLE, reason);
    }
    let budget = run.expect.credential;
    let mut section = Section::new(
        NAME,
        TITLE,
        format!(
            "{SEQUENTIAL} × `GET /api/v1/auth/workspace?name=…` one after another, then {} at \
             {CONCURRENCY} concurrent, then one wait of the last refusal's `Retry-After`. The \
             lookups are metered by the public filter's credential group only: {} per {} s per \
             client address, one accruing every {} s.",
            CONCURRENCY * PER_WORKER,
            budget.limit(),
            budget.period().as_secs(),
            budget.emission_interval().as_secs_f64()
        ),
    );
    sequential(run, &mut section).await;
    let last_refusal = burst(run, &mut section).await;
    refill(run, &mut section, last_refusal).await;
    section
}

fn lookup_path(run: &Run) -> String {
    format!("/api/v1/auth/workspace?name=estate-probe-{}", run.run_id)
}

async fn lookup(run: &mut Run) -> Metered {
    let request = run
        .estate
        .request(Method::GET, Service::Backend, &lookup_path(run));
    run.metered(&[CREDENTIAL], request, backend_refusal).await
}

async fn sequential(run: &mut Run, section: &mut Section) {
    let mut answers = Vec::new();
    for _ in 0..SEQUENTIAL {
        answers.push(lookup(run).await);
    }
    let certain = answers
        .iter()
        .filter(|answer| matches!(answer.expected, Expect::Refuse { .. }))
        .count();
    let possible = answers
        .iter()
        .filter(|answer| matches!(answer.expected, Expect::Refuse { .. } | Expect::Either))
        .count();
    let refused = answers.iter().filter(|answer| answer.refused).count();
    let ok = answers.iter().all(Metered::agrees);
    let statuses = tally_text(answers.iter().map(|answer| answer.exchange.status_text()));
    section.row(
        &format!("{SEQUENTIAL} sequential lookups: refused"),
        format!("{} × 429", range_text(certain as u64, possible as u64)),
        format!("{refused} × 429 (answers: {statuses})"),
        ok,
    );
    section.line(format!("{SEQUENTIAL} x GET /auth/workspace   {statuses}"));
}

/// The burst; returns its last refusal, if any.
async fn burst(run: &mut Run, section: &mut Section) -> Option<Exchange> {
    let started = Instant::now();
    let mut workers = JoinSet::new();
    for _ in 0..CONCURRENCY {
        let (estate, path) = (run.estate.clone(), lookup_path(run));
        workers.spawn(async move {
            let mut answers = Vec::with_capacity(PER_WORKER);
            for _ in 0..PER_WORKER {
                let request = estate.request(Method::GET, Service::Backend, &path);
                answers.push(estate.send(request).await);
            }
            answers
        });
    }
    let answers: Vec<Exchange> = workers.join_all().await.into_iter().flatten().collect();
    let window = Window {
        sent: started,
        received: Instant::now(),
    };
    let served = answers
        .iter()
        .filter(|answer| !backend_refusal(answer))
        .count();
    let bucket = run.ledger.bucket_mut(CREDENTIAL)?;
    let available = bucket.available(window);
    bucket.served_many(u32::try_from(served).unwrap_or(u32::MAX), window);
    let longest = bucket.longest_wait_secs(window.sent).unwrap_or(u64::MAX);
    burst_rows(section, &answers, available, longest);
    answers
        .into_iter()
        .filter(backend_refusal)
        .max_by_key(|answer| answer.window.received)
}

fn burst_rows(
    section: &mut Section,
    answers: &[Exchange],
    available: Option<(u32, u32)>,
    longest: u64,
) {
    let total = answers.len();
    let served = answers
        .iter()
        .filter(|answer| !backend_refusal(answer))
        .count();
    let (low, high) = available.map_or((0, total), |(low, high)| {
        (total.min(low as usize), total.min(high as usize))
    });
    let measurement = format!("{total} at {CONCURRENCY} concurrent: served");
    let observed = tally_text(answers.iter().map(Exchange::status_text));
    section.row(
        &measurement,
        range_text(low as u64, high as u64),
        format!("{served} ({observed})"),
        (low..=high).contains(&served),
    );
    for (n, status) in tally(answers.iter().map(Exchange::status_text)) {
        section.line(format!("{n:>4}  {status}"));
    }
    let refusals: Vec<&Exchange> = answers
        .iter()
        .filter(|answer| backend_refusal(answer))
        .collect();
    let Some(sample) = refusals.first() else {
        return;
    };
    let mut waits: Vec<u64> = refusals
        .iter()
        .filter_map(|answer| answer.retry_after())
        .collect();
    waits.sort_unstable();
    waits.dedup();
    let in_range = refusals.iter().all(|answer| {
        answer
            .retry_after()
            .is_some_and(|secs| (1..=longest).contains(&secs))
    });
    let waits: Vec<String> = waits.iter().map(u64::to_string).collect();
    section.row(
        "their Retry-After",
        format!("1–{longest}"),
        waits.join(", "),
        in_range,
    );
    let bodies_agree = refusals
        .iter()
        .all(|answer| answer.body == fail_body(answer.retry_after().unwrap_or_default()));
    let secs = sample.retry_after().unwrap_or_default();
    section.row(
        "their body",
        fail_body(secs),
        sample.body.clone(),
        bodies_agree,
    );
    section.line("HTTP 429");
    section.line(format!("Retry-After: {secs}"));
    section.line(sample.body.clone());
}

async fn refill(run: &mut Run, section: &mut Section, last_refusal: Option<Exchange>) {
    let measurement = "after waiting the last Retry-After";
    let Some(refusal) = last_refusal else {
        let reason = "the burst did not empty the bucket".to_owned();
        section.push(
            measurement,
            String::new(),
            String::new(),
            Verdict::Skipped(reason),
        );
        return;
    };
    let wait = Duration::from_secs(refusal.retry_after().unwrap_or(1));
    if wait > MAX_WAIT {
        let reason = format!(
            "a wait of {} s is longer than the probe waits",
            wait.as_secs()
        );
        section.push(
            measurement,
            String::new(),
            String::new(),
            Verdict::Skipped(reason),
        );
        return;
    }
    tokio::time::sleep_until((refusal.window.received + wait).into()).await;
    let mut answers = Vec::new();
    while answers.len() < AFTER_WAIT {
        let answer = lookup(run).await;
        let refused = answer.refused;
        answers.push(answer);
        if refused {
            break;
        }
    }
    refill_rows(section, &answers, wait);
}

fn refill_rows(section: &mut Section, answers: &[Metered], wait: Duration) {
    let expected: Vec<String> = answers
        .iter()
        .map(|answer| expected_word(answer.expected))
        .collect();
    let observed: Vec<String> = answers
        .iter()
        .map(
            |answer| match answer.exchange.retry_after().filter(|_| answer.refused) {
                Some(secs) => format!("429 (Retry-After {secs})"),
                None => "served".to_owned(),
            },
        )
        .collect();
    let ok = answers.iter().all(Metered::agrees) && answers.last().is_some_and(|last| last.refused);
    let measurement = format!("after waiting the last Retry-After ({} s)", wait.as_secs());
    section.row(
        &measurement,
        expected.join(", then "),
        observed.join(", then "),
        ok,
    );
    let shorthand: Vec<String> = answers
        .iter()
        .map(|answer| answer.exchange.shorthand())
        .collect();
    section.line(format!(
        "waited {} s: {}",
        wait.as_secs(),
        shorthand.join(", ")
    ));
}

fn expected_word(expected: Expect) -> String {
    match expected {
        Expect::Allow | Expect::Unknown => "served".to_owned(),
        Expect::Either => "served or 429".to_owned(),
        Expect::Refuse { retry_after, .. } => {
            format!(
                "429 (Retry-After {})",
                range_text(retry_after.0, retry_after.1)
            )
        }
    }
}
