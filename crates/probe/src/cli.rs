//! The command line: where the estate is, what it is configured with, which checks to run.

use crate::Settings;
use crate::checks::{self, restart::Plan};
use crate::error::ProbeError;
use crate::estate::Targets;
use crate::expect::{self, Expectations, Layered};
use crate::service::Service;
use clap::Parser;
use platform_core::{Env, MapEnv};
use std::time::Duration;

const AFTER_HELP: &str = "\
Checks, in the order they run: limits, attempts, login-rate, burst, analyzer, cors, edge,
restart. `per-ip` names attempts, login-rate and burst: they spend the backend's budgets per
client address (20 logins per 15 min, 300 lookups per hour), so a second run within those
periods finds them spent and fails; run them against a fresh estate, or --skip per-ip.

Expected values are the estate's defaults (docs/DESIGN.md). An estate run with other values is probed against
those: --expect NAME=VALUE, or NAME in this process's environment (the variable the service
reads), for NAME in: RATE_LIMIT_CREDENTIAL, AUTH_RATE_LIMIT_CREDENTIAL, LOGIN_MAX_ATTEMPTS,
SECURITY_AUTH_ATTEMPT_LOCK_MINUTES, ANALYZER_RATE_LIMIT_READ, ANALYZER_RATE_LIMIT_WRITE,
ANALYZER_MAX_BODY_BYTES, LOG_ANALYSIS_PUBLIC_RATE_LIMIT, MCP_RATE_LIMIT_MCP,
CORS_ALLOWED_ORIGINS.

The report (Markdown) goes to stdout, progress to stderr.
Exit status: 0 every measurement agrees, 1 a mismatch, 2 the estate could not be addressed,
64 a bad argument.";

/// `estate-probe [BASE_URL] [options]`.
#[derive(Debug, Parser)]
#[command(
    name = "estate-probe",
    version,
    about = "Replays the estate's reference measurements (docs/edge-rate-limits-and-safety.md) \
             against a running estate and prints them as that page's tables, expected beside \
             observed.",
    after_help = AFTER_HELP
)]
pub struct Args {
    /// The ingress (https://127.0.0.1:8443 with --cacert when it terminates TLS).
    #[arg(default_value = "http://127.0.0.1:8080", env = "ESTATE_BASE_URL")]
    pub base_url: String,
    /// The only CA trusted over HTTPS, e.g. dev-cert/ca.pem (scripts/dev-cert.sh).
    #[arg(long, value_name = "PEM")]
    pub cacert: Option<std::path::PathBuf>,
    /// The ingress's plain HTTP port, e.g. http://127.0.0.1:8080: the edge check expects each
    /// hostname there to redirect to HTTPS, without HSTS.
    #[arg(long, value_name = "URL")]
    pub plain_url: Option<String>,
    /// The backend's hostname at the ingress.
    #[arg(long, default_value = "api.localhost")]
    pub api_host: String,
    /// The analyzer's hostname at the ingress.
    #[arg(long, default_value = "analyzer.localhost")]
    pub analyzer_host: String,
    /// The ai-service's hostname at the ingress.
    #[arg(long, default_value = "ai.localhost")]
    pub ai_host: String,
    /// The mcp-server's hostname at the ingress.
    #[arg(long, default_value = "mcp.localhost")]
    pub mcp_host: String,
    /// The backend at its own URL instead of through the ingress.
    #[arg(long)]
    pub backend_url: Option<String>,
    /// The analyzer at its own URL instead of through the ingress.
    #[arg(long)]
    pub analyzer_url: Option<String>,
    /// The ai-service at its own URL instead of through the ingress.
    #[arg(long)]
    pub ai_url: Option<String>,
    /// The mcp-server at its own URL instead of through the ingress.
    #[arg(long)]
    pub mcp_url: Option<String>,
    /// The services this estate runs (checks needing another are skipped).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "backend,analyzer,ai-service,mcp-server"
    )]
    pub services: Vec<String>,
    /// `X-Analyzer-Token` for the analyzer's checks (without it they are skipped).
    #[arg(long, env = "ANALYZER_TOKEN", hide_env_values = true)]
    pub analyzer_token: Option<String>,
    /// Run only these checks (comma-separated; `per-ip` names three).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Skip these checks (comma-separated; `per-ip` names three).
    #[arg(long, value_delimiter = ',')]
    pub skip: Vec<String>,
    /// A value the estate runs with instead of the default, e.g. RATE_LIMIT_CREDENTIAL=30/1h.
    #[arg(long = "expect", value_name = "NAME=VALUE")]
    pub expect: Vec<String>,
    /// A command that restarts one service, e.g. 'docker compose restart analyzer'; without
    /// it the restart window is not measured.
    #[arg(long)]
    pub restart_cmd: Option<String>,
    /// The service the restart command restarts.
    #[arg(long, default_value = "analyzer")]
    pub restart_service: String,
    /// The path polled across the restart (default: /swagger-ui.html on the backend, as the
    /// reference run did; /analysis-types on the analyzer; /estate-probe, a 404, on the others).
    #[arg(long)]
    pub restart_path: Option<String>,
    /// Milliseconds between health polls during the restart.
    #[arg(long, default_value_t = 50)]
    pub poll_interval_ms: u64,
    /// Bound on the restart command plus the recovery, in seconds.
    #[arg(long, default_value_t = 120)]
    pub restart_timeout_secs: u64,
    /// Fail when more polls than this fail during the restart (default: measure only).
    #[arg(long)]
    pub restart_max_failures: Option<usize>,
    /// The commit the estate was built from (default: `git rev-parse HEAD` here).
    #[arg(long, env = "ESTATE_COMMIT")]
    pub commit: Option<String>,
    /// Bound on one request, in seconds.
    #[arg(long, default_value_t = 15)]
    pub timeout_secs: u64,
}

impl Args {
    /// The settings, with `process` (the environment) behind `--expect`.
    pub fn settings(self, process: &dyn Env) -> Result<Settings, ProbeError> {
        let overrides = expect_pairs(&self.expect)?;
        let layered = Layered {
            overrides: &overrides,
            fallback: process,
        };
        let restart = match self.restart_cmd.clone() {
            Some(command) => Some(Plan {
                command,
                service: service(&self.restart_service)?,
                path: self
                    .restart_path
                    .clone()
                    .unwrap_or_else(|| restart_path(&self.restart_service)),
                interval: Duration::from_millis(self.poll_interval_ms.max(1)),
                timeout: Duration::from_secs(self.restart_timeout_secs),
                max_failures: self.restart_max_failures,
            }),
            None => None,
        };
        Ok(Settings {
            targets: self.targets()?,
            expect: Expectations::from_env(&layered)?,
            analyzer_token: self.analyzer_token.filter(|token| !token.is_empty()),
            checks: checks::select(&self.only, &self.skip)?,
            restart,
            commit: self.commit,
        })
    }

    fn targets(&self) -> Result<Targets, ProbeError> {
        let mut targets = Targets::ingress(&self.base_url);
        targets.services = self
            .services
            .iter()
            .map(|name| service(name))
            .collect::<Result<_, _>>()?;
        targets.timeout = Duration::from_secs(self.timeout_secs.max(1));
        targets.ca.clone_from(&self.cacert);
        targets.plain.clone_from(&self.plain_url);
        let per_service = [
            (Service::Backend, &self.api_host, &self.backend_url),
            (Service::Analyzer, &self.analyzer_host, &self.analyzer_url),
            (Service::Ai, &self.ai_host, &self.ai_url),
            (Service::Mcp, &self.mcp_host, &self.mcp_url),
        ];
        for (service, host, url) in per_service {
            targets.hosts.insert(service, host.clone());
            if let Some(url) = url {
                targets.direct.insert(service, url.clone());
            }
        }
        Ok(targets)
    }
}

/// One of the service's own routes, never metered in a way a few hundred polls could spend,
/// and not its health path (which answers 503 on purpose while the service stops).
fn restart_path(service: &str) -> String {
    match Service::from_name(service.trim()) {
        Some(Service::Backend) => "/swagger-ui.html",
        Some(Service::Analyzer) => "/analysis-types",
        _ => "/estate-probe",
    }
    .to_owned()
}

fn service(name: &str) -> Result<Service, ProbeError> {
    Service::from_name(name.trim()).ok_or_else(|| ProbeError::UnknownService(name.to_owned()))
}

fn expect_pairs(pairs: &[String]) -> Result<MapEnv, ProbeError> {
    pairs
        .iter()
        .map(|pair| {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| ProbeError::Expect(pair.clone()))?;
            if !expect::NAMES.contains(&name) {
                return Err(ProbeError::Expect(pair.clone()));
            }
            Ok((name.to_owned(), value.to_owned()))
        })
        .collect()
}
