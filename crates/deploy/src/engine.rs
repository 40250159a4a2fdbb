//! The container engine as the guard and the roll use it: a small trait (so the roll's order
//! of steps is tested with a fake) and its implementation over the `docker` CLI — the same
//! commands an operator would type, and the only way to reach `docker compose`.

use std::fmt;
use std::process::Command;

/// Compose's label naming a container's project.
pub const PROJECT_LABEL: &str = "com.docker.compose.project";
/// Compose's label naming a container's service.
pub const SERVICE_LABEL: &str = "com.docker.compose.service";
/// Compose's label numbering a service's replicas.
pub const NUMBER_LABEL: &str = "com.docker.compose.container-number";

/// A command that failed: what was run and what it said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineError {
    /// The command line, for the operator to rerun.
    pub command: String,
    /// Why it failed: its stderr, or why it could not be started.
    pub message: String,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` failed: {}", self.command, self.message)
    }
}

impl std::error::Error for EngineError {}

/// What the guard and the roll ask of the engine.
pub trait Engine {
    /// `docker inspect [--size] ID`: the JSON text.
    fn inspect(&self, id: &str, size: bool) -> Result<String, EngineError>;
    /// `docker diff ID`: the text.
    fn diff(&self, id: &str) -> Result<String, EngineError>;
    /// The ids of every container (running or not) of one compose service.
    fn containers(&self, project: &str, service: &str) -> Result<Vec<String>, EngineError>;
    /// `docker compose up` of one service at `replicas`, creating containers only (never
    /// recreating the ones that exist) from images already present.
    fn scale(&self, service: &str, replicas: usize) -> Result<(), EngineError>;
    /// `docker stop ID`: SIGTERM, then the container's own stop timeout.
    fn stop(&self, id: &str) -> Result<(), EngineError>;
    /// `docker rm ID` (its volumes are kept).
    fn remove(&self, id: &str) -> Result<(), EngineError>;
}

/// How `docker compose` finds the project: its name, files and variable files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ComposeProject {
    /// `-p`.
    pub name: String,
    /// `-f`, in order (empty: compose's own default lookup).
    pub files: Vec<String>,
    /// `--env-file`, in order.
    pub env_files: Vec<String>,
}

/// [`Engine`] over the `docker` CLI.
#[derive(Debug, Clone)]
pub struct DockerCli {
    /// The program to run (`docker`).
    pub program: String,
    /// The compose project the roll works in.
    pub project: ComposeProject,
}

impl DockerCli {
    fn run(&self, args: &[String]) -> Result<String, EngineError> {
        let command = format!("{} {}", self.program, args.join(" "));
        let output = Command::new(&self.program)
            .args(args)
            .output()
            .map_err(|e| EngineError {
                command: command.clone(),
                message: format!("cannot run {}: {e}", self.program),
            })?;
        if output.status.success() {
            return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
        }
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        Err(EngineError {
            command,
            message: if stderr.is_empty() {
                format!("exited with {}", output.status)
            } else {
                stderr
            },
        })
    }
}

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|arg| (*arg).to_owned()).collect()
}

impl Engine for DockerCli {
    fn inspect(&self, id: &str, size: bool) -> Result<String, EngineError> {
        let mut args = owned(&["container", "inspect"]);
        if size {
            args.push("--size".to_owned());
        }
        args.extend(["--".to_owned(), id.to_owned()]);
        self.run(&args)
    }

    fn diff(&self, id: &str) -> Result<String, EngineError> {
        self.run(&owned(&["container", "diff", id]))
    }

    fn containers(&self, project: &str, service: &str) -> Result<Vec<String>, EngineError> {
        let args = owned(&[
            "ps",
            "--all",
            "--no-trunc",
            "--filter",
            &format!("label={PROJECT_LABEL}={project}"),
            "--filter",
            &format!("label={SERVICE_LABEL}={service}"),
            "--format",
            "{{.ID}}",
        ]);
        Ok(self.run(&args)?.lines().map(str::to_owned).collect())
    }

    fn scale(&self, service: &str, replicas: usize) -> Result<(), EngineError> {
        let mut args = owned(&["compose", "--project-name", &self.project.name]);
        for file in &self.project.files {
            args.extend(["--file".to_owned(), file.clone()]);
        }
        for file in &self.project.env_files {
            args.extend(["--env-file".to_owned(), file.clone()]);
        }
        args.extend(owned(&[
            "up",
            "--detach",
            "--no-deps",
            "--no-recreate",
            "--no-build",
            "--pull",
            "never",
            "--scale",
            &format!("{service}={replicas}"),
            service,
        ]));
        self.run(&args).map(drop)
    }

    fn stop(&self, id: &str) -> Result<(), EngineError> {
        self.run(&owned(&["container", "stop", id])).map(drop)
    }

    fn remove(&self, id: &str) -> Result<(), EngineError> {
        self.run(&owned(&["container", "rm", id])).map(drop)
    }
}
