//! The checks, one module per table of docs/edge-rate-limits-and-safety.md, and the order they
//! run in (it matters: the per-address ones spend the same budgets); what they share is [`kit`].
//!
//! | check        | its table                                                | needs              |
//! |--------------|----------------------------------------------------------|--------------------|
//! | `limits`     | Per service, as actually configured                      | each service       |
//! | `attempts`   | The attempt ceiling (six wrong logins)                   | backend, per IP    |
//! | `login-rate` | backend, the rate ceiling (logins, 429 + Retry-After 45) | backend, per IP    |
//! | `burst`      | The rate ceiling, and its refill (126, then 240 at 12)   | backend, per IP    |
//! | `analyzer`   | analyzer: limiter (900 validations) and malformed bodies | analyzer, token    |
//! | `cors`       | CORS on a 401                                            | backend            |
//! | `edge`       | What the edge does provide (HSTS; metrics not public)    | the ingress        |
//! | `restart`    | The 502 window across a restart                          | `--restart-cmd`    |

pub mod analyzer;
pub mod analyzer_burst;
pub mod attempts;
pub mod burst;
pub mod cors;
pub mod edge;
pub mod kit;
pub mod limits;
pub mod login_rate;
pub mod restart;

use crate::error::ProbeError;
use kit::{Run, progress};

/// Every check, in the order it runs.
pub const CHECKS: [&str; 8] = [
    limits::NAME,
    attempts::NAME,
    login_rate::NAME,
    burst::NAME,
    analyzer::NAME,
    cors::NAME,
    edge::NAME,
    restart::NAME,
];

/// The checks that spend the backend's per-client-address budgets: a second run within the
/// budgets' period (15 minutes, an hour) finds them spent. `--skip per-ip` names them all.
pub const PER_IP: [&str; 3] = [attempts::NAME, login_rate::NAME, burst::NAME];

/// The checks to run: `only` (default: all) minus `skip`; `per-ip` names [`PER_IP`].
pub fn select(only: &[String], skip: &[String]) -> Result<Vec<&'static str>, ProbeError> {
    let only = expand(only)?;
    let skip = expand(skip)?;
    Ok(CHECKS
        .into_iter()
        .filter(|name| only.is_empty() || only.contains(name))
        .filter(|name| !skip.contains(name))
        .collect())
}

fn expand(names: &[String]) -> Result<Vec<&'static str>, ProbeError> {
    let mut checks = Vec::new();
    for name in names
        .iter()
        .map(|name| name.trim())
        .filter(|name| !name.is_empty())
    {
        if name == "per-ip" {
            checks.extend(PER_IP);
            continue;
        }
        let check = CHECKS
            .into_iter()
            .find(|check| *check == name)
            .ok_or_else(|| {
                ProbeError::UnknownCheck(name.to_owned(), format!("{}, per-ip", CHECKS.join(", ")))
            })?;
        checks.push(check);
    }
    Ok(checks)
}

/// Runs one check.
pub async fn run_check(name: &str, run: &mut Run) -> crate::report::Section {
    progress(&format!("check {name}"));
    match name {
        limits::NAME => limits::check(run).await,
        attempts::NAME => attempts::check(run).await,
        login_rate::NAME => login_rate::check(run).await,
        burst::NAME => burst::check(run).await,
        analyzer::NAME => analyzer::check(run).await,
        cors::NAME => cors::check(run).await,
        edge::NAME => edge::check(run).await,
        _ => restart::check(run).await,
    }
}
