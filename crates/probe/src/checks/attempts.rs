//! "The attempt ceiling": six wrong logins for one address no account has → 401 five times,
//! then the lock's 429 with the exact remaining seconds in `Retry-After` (599 or 600) and the
//! auth envelope's words (docs/DESIGN.md, "The backend"). The address is new on every run, so the ceiling is
//! always measured from zero; the logins still spend the per-client-address budgets.

use super::kit::{Metered, Run, backend_refusal, tally_text};
use crate::ledger::{AUTH_CREDENTIAL, CREDENTIAL};
use crate::report::Section;
use crate::service::Service;
use reqwest::Method;
use serde_json::json;

/// The check's name.
pub const NAME: &str = "attempts";
const TITLE: &str = "The attempt ceiling";
/// A wrong login's whole body.
pub const INVALID_LOGIN: &str = r#"{"status":401,"message":"Invalid email or password"}"#;
/// The password every probe login sends: no account has it.
pub const WRONG_PASSWORD: &str = "estate-probe-wrong-password";

/// The lock's whole body.
pub fn locked_body(minutes: u64) -> String {
    format!(
        r#"{{"status":429,"message":"Too many failed attempts. Try again in {minutes} minute(s), or reset your password."}}"#
    )
}

/// One login, metered by the public filter's `credential` group, then the auth filter's.
pub async fn login(run: &mut Run, email: &str) -> Metered {
    let request = run
        .estate
        .request(Method::POST, Service::Backend, "/api/v1/auth/login")
        .json(&json!({ "email": email, "password": WRONG_PASSWORD }));
    run.metered(&[CREDENTIAL, AUTH_CREDENTIAL], request, backend_refusal)
        .await
}

/// Runs the check.
pub async fn check(run: &mut Run) -> Section {
    if let Some(reason) = run.missing(Service::Backend) {
        return Section::skipped(NAME, TITLE, reason);
    }
    let attempts = run.expect.login_max_attempts;
    let email = format!("estate-probe-{}@example.com", run.run_id);
    let mut section = Section::new(
        NAME,
        TITLE,
        format!(
            "{} × `POST /api/v1/auth/login` with a wrong password for `{email}`, an address no \
             account has (new on every run), one after another.",
            attempts + 1
        ),
    );
    let mut answers = Vec::new();
    for _ in 0..=attempts {
        answers.push(login(run, &email).await);
    }
    filters_row(&mut section, &answers);
    let (wrong, last) = answers.split_at(answers.len() - 1);
    wrong_rows(&mut section, wrong);
    lock_rows(&mut section, &last[0], run.expect.lock_minutes);
    let line: Vec<String> = answers
        .iter()
        .zip(1..)
        .map(|(answer, n)| format!("{n}:{}", answer.exchange.shorthand()))
        .collect();
    section.line(line.join("  "));
    section.line(last[0].exchange.body.clone());
    section
}

fn filters_row(section: &mut Section, answers: &[Metered]) {
    let refused = answers.iter().filter(|answer| answer.refused).count();
    let observed = if refused == 0 {
        "every login passed them".to_owned()
    } else {
        format!(
            "{refused} refused: the per-address budget was spent before this run (probe a fresh \
             estate, or --skip per-ip)"
        )
    };
    section.compare(
        "the filters' per-address budgets",
        "every login passed them",
        observed,
    );
}

fn wrong_rows(section: &mut Section, wrong: &[Metered]) {
    let expected = format!("{} × 401, no Retry-After", wrong.len());
    let mut observed = tally_text(wrong.iter().map(|answer| answer.exchange.shorthand()));
    if wrong
        .iter()
        .all(|answer| answer.exchange.retry_after().is_none())
    {
        observed.push_str(", no Retry-After");
    }
    section.compare(&format!("answers 1–{}", wrong.len()), expected, observed);
    let mut bodies: Vec<&str> = wrong
        .iter()
        .map(|answer| answer.exchange.body.as_str())
        .collect();
    bodies.dedup();
    section.compare("their body", INVALID_LOGIN, bodies.join(" / "));
}

fn lock_rows(section: &mut Section, last: &Metered, minutes: u64) {
    let full = minutes * 60;
    let retry = last.exchange.retry_after();
    let ok = last.exchange.status == Some(429)
        && retry.is_some_and(|secs| (full.saturating_sub(1)..=full).contains(&secs));
    let observed = match retry {
        Some(secs) => format!("{}, Retry-After {secs}", last.exchange.status_text()),
        None => format!("{}, no Retry-After", last.exchange.status_text()),
    };
    let expected = format!("429, Retry-After {} or {full}", full.saturating_sub(1));
    section.row("the next answer", expected, observed, ok);
    section.compare("its body", locked_body(minutes), last.exchange.body.clone());
}
