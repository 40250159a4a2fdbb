//! `estate-probe`: replays the estate's reference measurements
//! (docs/edge-rate-limits-and-safety.md) against a running estate — through the ingress, or at each
//! service's own URL — and prints them as that page's tables with the date and the commit, expected
//! beside observed. Any mismatch makes the run fail, so CI can hold the estate to the page.
//!
//! Expected values are the contract's (docs/DESIGN.md: "The backend", "The analyzer", "Budgets are settings"), and where
//! a figure depends on time and on what the run already spent (a budget's first refusal, a
//! burst's share, a refusal's `Retry-After`) it is the limiter's own arithmetic on this run's
//! timing ([`bucket`]), never a constant copied from a past run.
//!
//! # Layout
//! - [`cli`]: the command line; [`expect`]: the contract values and their overrides.
//! - [`estate`]: reaching each service (one base address, a hostname each, or its own URL);
//!   [`exchange`]: one request and answer with its timing; [`fields`]: `RateLimit` fields.
//! - [`bucket`]: one bucket's model; [`ledger`]: the buckets this run spends.
//! - [`checks`]: one module per table; [`report`]: rows and sections; [`render`]: Markdown;
//!   [`meta`]: the commit.

pub mod bucket;
pub mod checks;
pub mod cli;
pub mod error;
pub mod estate;
pub mod exchange;
pub mod expect;
pub mod fields;
pub mod ledger;
pub mod meta;
pub mod render;
pub mod report;
pub mod service;

use checks::kit::Run;
use error::ProbeError;
use estate::{Estate, Targets};
use expect::Expectations;
use ledger::Ledger;
use report::{Meta, Report};
use std::time::{Instant, SystemTime};

/// Everything a run needs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Where the services are.
    pub targets: Targets,
    /// What they should answer.
    pub expect: Expectations,
    /// `X-Analyzer-Token`.
    pub analyzer_token: Option<String>,
    /// The checks, in order ([`checks::CHECKS`]).
    pub checks: Vec<&'static str>,
    /// The restart to measure.
    pub restart: Option<checks::restart::Plan>,
    /// The commit to print (default: `git`'s).
    pub commit: Option<String>,
}

/// Runs the checks against the estate.
pub async fn run(settings: Settings) -> Result<Report, ProbeError> {
    let estate = Estate::new(&settings.targets)?;
    let target = estate.description().to_owned();
    let started = SystemTime::now();
    let run_id = uuid::Uuid::new_v4().simple().to_string()[..12].to_owned();
    let mut run = Run {
        estate,
        ledger: Ledger::new(Instant::now(), &settings.expect),
        expect: settings.expect,
        run_id,
        analyzer_token: settings.analyzer_token,
        restart: settings.restart,
    };
    let mut sections = Vec::with_capacity(settings.checks.len());
    for name in settings.checks {
        sections.push(checks::run_check(name, &mut run).await);
    }
    let meta = Meta {
        started,
        finished: SystemTime::now(),
        commit: meta::commit(settings.commit.as_deref()),
        target,
    };
    Ok(Report { meta, sections })
}
