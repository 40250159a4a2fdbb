//! The steps of a roll: start one replacement and wait for its health, retire one old
//! replica (judged before the stop and once stopped), abandon a replacement that failed.

use super::{Plan, RollError, describe};
use crate::engine::{Engine, EngineError};
use crate::guard::check_container;
use crate::inspect::Inspection;
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// Why a replacement did not come up.
pub(super) enum StartFailure {
    /// The engine failed a command.
    Engine(EngineError),
    /// The replacement never became healthy (or compose made no single new container).
    Unhealthy(String),
}

impl From<EngineError> for StartFailure {
    fn from(error: EngineError) -> Self {
        Self::Engine(error)
    }
}

/// Has compose create one new replica and waits until it is healthy. A replacement that never
/// gets there is stopped, and removed only when the guard finds nothing in it.
pub(super) fn start_replacement(
    engine: &dyn Engine,
    plan: &Plan,
    replicas: usize,
    report: &mut dyn FnMut(&str),
) -> Result<(), StartFailure> {
    let before: HashSet<String> = engine
        .containers(&plan.project, &plan.service)?
        .into_iter()
        .collect();
    engine.scale(&plan.service, replicas)?;
    let created: Vec<String> = engine
        .containers(&plan.project, &plan.service)?
        .into_iter()
        .filter(|id| !before.contains(id))
        .collect();
    let [new] = created.as_slice() else {
        return Err(StartFailure::Unhealthy(format!(
            "compose created {} container(s) for {}, expected 1",
            created.len(),
            plan.service
        )));
    };
    let short = &new[..new.len().min(12)];
    report(&format!(
        "started {short}; waiting up to {}s for healthy",
        plan.health_timeout.as_secs_f64()
    ));
    match wait_healthy(engine, new, plan) {
        Ok((took, name)) => {
            report(&format!(
                "{name} ({short}) is healthy after {:.1}s",
                took.as_secs_f64()
            ));
            Ok(())
        }
        Err(why) => {
            abandon(engine, new, report);
            Err(StartFailure::Unhealthy(format!(
                "new replica {short} {why}"
            )))
        }
    }
}

/// Polls the container's health until healthy, unhealthy, gone or out of time.
/// Returns how long it took and the container's name.
fn wait_healthy(engine: &dyn Engine, id: &str, plan: &Plan) -> Result<(Duration, String), String> {
    let started = Instant::now();
    loop {
        let container = engine
            .inspect(id, false)
            .map_err(|e| e.to_string())
            .and_then(|json| Inspection::parse(&json, false))?;
        if !container.running {
            return Err("exited before it was healthy".to_owned());
        }
        match container.health.as_deref() {
            None => return Err("has no healthcheck, so the roll cannot be gated on it".to_owned()),
            Some("healthy") => return Ok((started.elapsed(), container.name)),
            Some("unhealthy") => return Err("reported unhealthy".to_owned()),
            Some(_) if started.elapsed() >= plan.health_timeout => {
                let secs = plan.health_timeout.as_secs_f64();
                return Err(format!("was not healthy within {secs}s"));
            }
            Some(_) => std::thread::sleep(plan.poll),
        }
    }
}

/// Stops a replacement that failed; removes it only when the guard finds it safe to.
fn abandon(engine: &dyn Engine, id: &str, report: &mut dyn FnMut(&str)) {
    if let Err(error) = engine.stop(id) {
        report(&format!("could not stop the failed replica: {error}"));
    }
    let verdict = check_container(engine, id);
    if !verdict.is_safe() {
        report(&format!(
            "left the failed replica stopped, not removed: {}",
            describe(&verdict)
        ));
        return;
    }
    match engine.remove(id) {
        Ok(()) => report(&format!("removed the failed replica {}", verdict.container)),
        Err(error) => report(&format!("could not remove the failed replica: {error}")),
    }
}

/// Stops and removes one old replica, judging it before the stop and again once stopped.
pub(super) fn retire(
    engine: &dyn Engine,
    old: &Inspection,
    report: &mut dyn FnMut(&str),
) -> Result<(), RollError> {
    let running = check_container(engine, &old.id);
    if !running.is_safe() {
        report(&describe(&running));
        return Err(RollError::Refused(vec![running]));
    }
    engine.stop(&old.id)?;
    let stopped = check_container(engine, &old.id);
    if !stopped.is_safe() {
        report(&describe(&stopped));
        report(&format!("{} is stopped and kept (not removed)", old.name));
        return Err(RollError::Refused(vec![stopped]));
    }
    engine.remove(&old.id)?;
    report(&format!("stopped and removed {}", old.name));
    Ok(())
}
