//! The command line: `check`, `check-container` and `roll`, their options, and the exit codes
//! an operator's script branches on (docs/deploy.md lists them).

use crate::engine::{ComposeProject, DockerCli, Engine};
use crate::guard::{check_container, service_containers};
use crate::roll::{Plan, RollError, describe, roll};
use crate::verdict::Verdict;
use std::time::Duration;

/// Done: every container judged safe, or the roll finished.
pub const EXIT_OK: u8 = 0;
/// A docker or compose command failed.
pub const EXIT_ENGINE: u8 = 1;
/// Refused: a container is unsafe to recreate, or cannot be accounted for. Nothing was removed.
pub const EXIT_REFUSED: u8 = 3;
/// A new replica did not become healthy within the timeout (it was stopped).
pub const EXIT_UNHEALTHY: u8 = 4;
/// The command line was wrong.
pub const EXIT_USAGE: u8 = 64;

/// The compose project when neither `--project` nor `COMPOSE_PROJECT_NAME` names one.
pub const DEFAULT_PROJECT: &str = "estate";
/// The compose file when no `--file` is given.
pub const DEFAULT_FILE: &str = "compose/compose.yaml";
/// Default longest wait for a new replica's health, in seconds.
pub const DEFAULT_HEALTH_TIMEOUT_SECS: u64 = 120;

/// The usage text.
pub const USAGE: &str = "\
estate-deploy: the deploy guard and the health-gated roll of one compose service.

Usage:
  estate-deploy check SERVICE [OPTIONS]     judge every container of SERVICE; change nothing
  estate-deploy check-container ID|NAME...  judge these containers; change nothing
  estate-deploy roll SERVICE [OPTIONS]      judge, then replace SERVICE replica by replica,
                                            each new replica healthy before an old one goes
  estate-deploy --help

Options:
  -p, --project NAME        compose project [COMPOSE_PROJECT_NAME, else estate]
  -f, --file PATH           compose file, repeatable [compose/compose.yaml]
      --env-file PATH       compose variable file, repeatable [compose's own .env lookup]
      --health-timeout SECS longest wait for a new replica to be healthy [120]

A container is unsafe to recreate when a data path it declares (DATA_DIR, the
estate.data-paths label) is not on a named volume or bind mount, when anything is written in
its writable layer outside its mounts, /tmp and /run, or when any of that cannot be known
(unknown container, unmeasurable layer, unresolvable path).

Exit: 0 done/safe, 1 docker or compose failed, 3 refused (unsafe or unaccounted; nothing was
removed), 4 a new replica was not healthy in time, 64 usage.
";

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `--help`.
    Help,
    /// `check SERVICE`.
    Check(Target),
    /// `check-container ID...`.
    CheckContainers(Vec<String>),
    /// `roll SERVICE`.
    Roll(Target),
}

/// A service in a compose project, with the roll's patience.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The compose service.
    pub service: String,
    /// How compose finds the project.
    pub compose: ComposeProject,
    /// `--health-timeout`.
    pub health_timeout: Duration,
}

/// Reads the arguments (without the program name); `project_from_env` is
/// `COMPOSE_PROJECT_NAME`.
pub fn parse(args: &[String], project_from_env: Option<String>) -> Result<Command, String> {
    let Some((command, rest)) = args.split_first() else {
        return Err("a command is required".to_owned());
    };
    match command.as_str() {
        "-h" | "--help" | "help" => Ok(Command::Help),
        "check-container" if rest.is_empty() => {
            Err("check-container needs at least one container".to_owned())
        }
        "check-container" => Ok(Command::CheckContainers(rest.to_vec())),
        "check" => parse_target(rest, project_from_env).map(Command::Check),
        "roll" => parse_target(rest, project_from_env).map(Command::Roll),
        other => Err(format!("unknown command {other:?}")),
    }
}

fn parse_target(args: &[String], project_from_env: Option<String>) -> Result<Target, String> {
    let mut service = None;
    let mut compose = ComposeProject {
        name: project_from_env.unwrap_or_else(|| DEFAULT_PROJECT.to_owned()),
        ..ComposeProject::default()
    };
    let mut health_timeout = Duration::from_secs(DEFAULT_HEALTH_TIMEOUT_SECS);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .cloned()
                .ok_or_else(|| format!("{arg} needs a value"))
        };
        match arg.as_str() {
            "-p" | "--project" => compose.name = value()?,
            "-f" | "--file" => compose.files.push(value()?),
            "--env-file" => compose.env_files.push(value()?),
            "--health-timeout" => health_timeout = seconds(&value()?)?,
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag:?}")),
            name if service.is_none() => service = Some(name.to_owned()),
            extra => return Err(format!("unexpected argument {extra:?}")),
        }
    }
    if compose.files.is_empty() {
        compose.files.push(DEFAULT_FILE.to_owned());
    }
    let service = service.ok_or_else(|| "a service is required".to_owned())?;
    Ok(Target {
        service,
        compose,
        health_timeout,
    })
}

fn seconds(value: &str) -> Result<Duration, String> {
    value
        .parse::<u64>()
        .ok()
        .filter(|secs| *secs > 0)
        .map(Duration::from_secs)
        .ok_or_else(|| {
            format!("--health-timeout expects a whole number of seconds > 0, got {value:?}")
        })
}

/// Runs the command line and returns the exit code.
pub fn main(args: &[String], project_from_env: Option<String>) -> u8 {
    match parse(args, project_from_env) {
        Err(message) => {
            eprintln!("estate-deploy: {message}\n\n{USAGE}");
            EXIT_USAGE
        }
        Ok(Command::Help) => {
            print!("{USAGE}");
            EXIT_OK
        }
        Ok(Command::CheckContainers(ids)) => {
            let engine = docker(ComposeProject::default());
            report_verdicts(ids.iter().map(|id| check_container(&engine, id)).collect())
        }
        Ok(Command::Check(target)) => check_service(&docker(target.compose.clone()), &target),
        Ok(Command::Roll(target)) => roll_service(&docker(target.compose.clone()), &target),
    }
}

fn docker(project: ComposeProject) -> DockerCli {
    DockerCli {
        program: "docker".to_owned(),
        project,
    }
}

fn report_verdicts(verdicts: Vec<Verdict>) -> u8 {
    for verdict in &verdicts {
        println!("{}", describe(verdict));
    }
    if verdicts.iter().all(Verdict::is_safe) {
        EXIT_OK
    } else {
        eprintln!("estate-deploy: refused: unsafe to recreate (see UNSAFE above)");
        EXIT_REFUSED
    }
}

fn check_service(engine: &dyn Engine, target: &Target) -> u8 {
    match service_containers(engine, &target.compose.name, &target.service) {
        Ok(containers) if containers.is_empty() => {
            eprintln!(
                "estate-deploy: refused: no container of service {:?} in project {:?}",
                target.service, target.compose.name
            );
            EXIT_REFUSED
        }
        Ok(containers) => report_verdicts(
            containers
                .iter()
                .map(|container| check_container(engine, &container.id))
                .collect(),
        ),
        Err(why) => {
            eprintln!("estate-deploy: refused: {why}");
            EXIT_REFUSED
        }
    }
}

fn roll_service(engine: &dyn Engine, target: &Target) -> u8 {
    let plan = Plan {
        project: target.compose.name.clone(),
        service: target.service.clone(),
        health_timeout: target.health_timeout,
        poll: Duration::from_millis(500),
    };
    match roll(engine, &plan, &mut |line| println!("{line}")) {
        Ok(_) => EXIT_OK,
        // Every verdict, safe or not, was already reported line by line.
        Err(error) => {
            eprintln!("estate-deploy: {error}");
            exit_code(&error)
        }
    }
}

/// The exit code for a roll that stopped.
pub fn exit_code(error: &RollError) -> u8 {
    match error {
        RollError::Refused(_) | RollError::Unaccounted(_) => EXIT_REFUSED,
        RollError::Unhealthy(_) => EXIT_UNHEALTHY,
        RollError::Engine(_) => EXIT_ENGINE,
    }
}

#[cfg(test)]
mod tests;
