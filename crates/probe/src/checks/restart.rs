//! A restart of a service's only replica is an outage of that service; the reference run could only
//! time the recovery. Here one of the service's own routes (the reference run polled
//! `swagger-ui.html`) is polled at a fixed interval, from an allowed origin, from one second before
//! a restart command until it has answered as it did before for two seconds after the command
//! returned; the window of polls answered otherwise is measured, not guessed. Every such failure
//! must be the edge's whole `error code: 502` (or no answer at all without the ingress) and carry
//! no CORS headers. Not the health path: a stopping service answers it 503 on purpose (so the
//! ingress takes it out of rotation) while it still serves every other request.

pub mod plan;
mod rows;
pub mod window;

use super::kit::Run;
use crate::report::Section;
use crate::service::Service;
pub use plan::Plan;
use reqwest::Method;
use rows::rows;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use window::{Sample, baseline, summarise};

/// The check's name.
pub const NAME: &str = "restart";
const TITLE: &str = "The 502 window across a restart";
const BEFORE: Duration = Duration::from_secs(1);
const SETTLED: Duration = Duration::from_secs(2);

type Samples = Arc<Mutex<Vec<Sample>>>;

/// Runs the check.
pub async fn check(run: &mut Run) -> Section {
    let Some(plan) = run.restart.clone() else {
        return Section::skipped(NAME, TITLE, "no restart command (--restart-cmd)");
    };
    if let Some(reason) = run.missing(plan.service) {
        return Section::skipped(NAME, TITLE, reason);
    }
    let mut section = Section::new(
        NAME,
        TITLE,
        format!(
            "`GET {}` on {} every {} ms with `Origin: {}`, from {} s before `{}` until it has \
             answered as before for {} s after the command returned (at most {} s).",
            plan.path,
            plan.service,
            plan.interval.as_millis(),
            run.expect.allowed_origin,
            BEFORE.as_secs(),
            plan.command,
            SETTLED.as_secs(),
            plan.timeout.as_secs()
        ),
    );
    let samples: Samples = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let target = poll_target(run, &plan);
    let poller = tokio::spawn(poll(target, samples.clone(), stop.clone(), plan.interval));
    tokio::time::sleep(BEFORE).await;
    let started = Instant::now();
    let outcome = command(&plan).await;
    let command_ms = started.elapsed().as_millis();
    wait_settled(&samples, started, &plan).await;
    stop.store(true, Ordering::Relaxed);
    let _ = poller.await;
    let samples = samples
        .lock()
        .map(|samples| samples.clone())
        .unwrap_or_default();
    let summary = summarise(&samples, plan.interval, started);
    let via_ingress = run.estate.via_ingress(plan.service);
    rows(
        &mut section,
        &plan,
        (outcome, command_ms),
        &summary,
        via_ingress,
    );
    section
}

/// What the poller sends each time.
struct Poll {
    estate: crate::estate::Estate,
    service: Service,
    path: String,
    origin: String,
    /// The analyzer's token, for the analyzer's routes.
    token: Option<String>,
}

fn poll_target(run: &Run, plan: &Plan) -> Poll {
    Poll {
        estate: run.estate.clone(),
        service: plan.service,
        path: plan.path.clone(),
        origin: run.expect.allowed_origin.clone(),
        token: run
            .analyzer_token
            .clone()
            .filter(|_| plan.service == Service::Analyzer),
    }
}

async fn poll(target: Poll, samples: Samples, stop: Arc<AtomicBool>, interval: Duration) {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    while !stop.load(Ordering::Relaxed) {
        ticks.tick().await;
        let mut request = target
            .estate
            .request(Method::GET, target.service, &target.path)
            .header("origin", target.origin.as_str());
        if let Some(token) = &target.token {
            request = request.header("x-analyzer-token", token.as_str());
        }
        let answer = target.estate.send(request).await;
        let sample = Sample {
            sent_at: answer.sent_at,
            sent: answer.window.sent,
            status: answer.status,
            cors: answer.cors_headers(),
            elapsed_ms: answer.elapsed_ms(),
            body: answer.body,
        };
        if let Ok(mut samples) = samples.lock() {
            samples.push(sample);
        }
    }
}

/// Runs the command; its output goes to stderr, never into the report.
async fn command(plan: &Plan) -> String {
    let child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(&plan.command)
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::io::stderr()))
        .kill_on_drop(true)
        .status();
    match tokio::time::timeout(plan.timeout, child).await {
        Ok(Ok(status)) => status.code().map_or_else(
            || "killed by a signal".to_owned(),
            |code| format!("exit {code}"),
        ),
        Ok(Err(error)) => format!("did not start: {error}"),
        Err(_) => format!("still running after {} s", plan.timeout.as_secs()),
    }
}

/// Waits until the service has answered as before for [`SETTLED`] since the command returned
/// and since its last failure, or the plan's timeout.
async fn wait_settled(samples: &Samples, started: Instant, plan: &Plan) {
    let returned = Instant::now();
    while started.elapsed() < plan.timeout {
        tokio::time::sleep(plan.interval).await;
        let Ok(samples) = samples.lock() else {
            return;
        };
        let baseline = baseline(&samples);
        let last_failure = samples
            .iter()
            .rev()
            .find(|sample| !sample.as_before(baseline));
        let since = last_failure.map_or(returned, |sample| sample.sent.max(returned));
        let healthy_since = samples
            .iter()
            .any(|sample| sample.as_before(baseline) && sample.sent > since);
        if healthy_since && since.elapsed() >= SETTLED {
            return;
        }
    }
}
