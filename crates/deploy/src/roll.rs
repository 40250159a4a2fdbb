//! The roll: replace every container of one compose service, one replica at a time, each
//! step gated on health, and never remove a container the guard has not just judged safe.
//!
//! Two strategies, chosen per service by the `estate.deploy-strategy` label:
//! - `surge` (default): start one extra replica from the current image, wait until it is
//!   healthy, then stop and remove one old replica. The service never has fewer replicas.
//! - `recreate`: stop and remove one old replica, then start its replacement. For a service
//!   that cannot run twice at once (Redis on its append-only file, the ingress on its fixed
//!   address and host port); it is down between the two steps.
//!
//! Every old container is judged three times: before anything starts (all replicas, so a
//! refusal changes nothing), just before it is stopped, and once stopped (its final layer),
//! right before `docker rm`. An unsafe container is left as it is, stopped at worst.

use crate::engine::{Engine, EngineError};
use crate::guard::{check_container, service_containers};
use crate::inspect::Inspection;
use crate::verdict::Verdict;
use std::collections::HashSet;
use std::fmt;
use std::time::Duration;
use steps::{StartFailure, retire, start_replacement};

/// The label choosing a service's strategy: `surge` (default) or `recreate`.
pub const STRATEGY_LABEL: &str = "estate.deploy-strategy";

/// How replicas are replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// New replica first, then the old one goes.
    Surge,
    /// Old replica goes first, then the new one starts.
    Recreate,
}

impl Strategy {
    /// Reads the label's value (absent: `surge`).
    pub fn from_label(value: Option<&str>) -> Result<Self, String> {
        match value {
            None | Some("surge") => Ok(Self::Surge),
            Some("recreate") => Ok(Self::Recreate),
            Some(other) => Err(format!(
                "label {STRATEGY_LABEL}={other:?}: expected \"surge\" or \"recreate\""
            )),
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Surge => "surge",
            Self::Recreate => "recreate",
        })
    }
}

/// What to roll and how patiently.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The compose project.
    pub project: String,
    /// The compose service.
    pub service: String,
    /// Longest wait for a new replica to report healthy.
    pub health_timeout: Duration,
    /// Pause between two health polls.
    pub poll: Duration,
}

/// Why a roll stopped.
#[derive(Debug, thiserror::Error)]
pub enum RollError {
    /// The guard judged a container unsafe to recreate.
    #[error("refused: {} container(s) unsafe to recreate", .0.len())]
    Refused(Vec<Verdict>),
    /// The service's containers could not be accounted for (none, not running, unreadable).
    #[error("refused: {0}")]
    Unaccounted(String),
    /// A new replica did not become healthy.
    #[error("{0}")]
    Unhealthy(String),
    /// The engine failed a command.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// Rolls the service; returns how many replicas were replaced. `report` receives one line
/// per step.
pub fn roll(
    engine: &dyn Engine,
    plan: &Plan,
    report: &mut dyn FnMut(&str),
) -> Result<usize, RollError> {
    let containers =
        service_containers(engine, &plan.project, &plan.service).map_err(RollError::Unaccounted)?;
    let strategy = preflight(&containers, plan)?;
    let verdicts: Vec<Verdict> = containers
        .iter()
        .map(|container| check_container(engine, &container.id))
        .collect();
    for verdict in &verdicts {
        report(&describe(verdict));
    }
    let refused: Vec<Verdict> = verdicts.into_iter().filter(|v| !v.is_safe()).collect();
    if !refused.is_empty() {
        return Err(RollError::Refused(refused));
    }
    let replicas = containers.len();
    report(&format!(
        "rolling {}: {replicas} replica(s), strategy {strategy}",
        plan.service
    ));
    for old in &containers {
        if strategy == Strategy::Surge {
            start_replacement(engine, plan, replicas + 1, report)
                .map_err(|why| unhealthy(why, "the old replicas keep serving"))?;
            retire(engine, old, report)?;
        } else {
            retire(engine, old, report)?;
            start_replacement(engine, plan, replicas, report)
                .map_err(|why| unhealthy(why, &format!("{} was already removed", old.name)))?;
        }
    }
    report(&format!(
        "rolled {}: {replicas} replica(s) replaced",
        plan.service
    ));
    Ok(replicas)
}

/// One line for a verdict: SAFE or UNSAFE, the container and what was found.
pub fn describe(verdict: &Verdict) -> String {
    if verdict.is_safe() {
        return format!(
            "SAFE    {}: {}",
            verdict.container,
            verdict.notes.join("; ")
        );
    }
    let findings: Vec<String> = verdict.findings.iter().map(ToString::to_string).collect();
    format!("UNSAFE  {}: {}", verdict.container, findings.join("; "))
}

fn unhealthy(failure: StartFailure, consequence: &str) -> RollError {
    match failure {
        StartFailure::Engine(error) => RollError::Engine(error),
        StartFailure::Unhealthy(why) => RollError::Unhealthy(format!("{why}; {consequence}")),
    }
}

/// The service has containers, all running, with one strategy.
fn preflight(containers: &[Inspection], plan: &Plan) -> Result<Strategy, RollError> {
    if containers.is_empty() {
        return Err(RollError::Unaccounted(format!(
            "no container of service {:?} in project {:?}",
            plan.service, plan.project
        )));
    }
    if let Some(stopped) = containers.iter().find(|container| !container.running) {
        return Err(RollError::Unaccounted(format!(
            "{} is not running: start it or remove it (after `estate-deploy check`) before a roll",
            stopped.name
        )));
    }
    let strategies = containers
        .iter()
        .map(|container| Strategy::from_label(container.label(STRATEGY_LABEL)))
        .collect::<Result<HashSet<_>, _>>()
        .map_err(RollError::Unaccounted)?;
    match strategies.into_iter().collect::<Vec<_>>().as_slice() {
        [strategy] => Ok(*strategy),
        _ => Err(RollError::Unaccounted(format!(
            "the replicas of {} disagree on {STRATEGY_LABEL}",
            plan.service
        ))),
    }
}

mod steps;

#[cfg(test)]
mod tests;
