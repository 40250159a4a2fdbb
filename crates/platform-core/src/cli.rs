//! The command line every service binary shares: serve (no arguments), `--healthcheck`
//! (probe our own health endpoint and exit 0 or 1: images carry no curl, so compose asks the
//! binary itself) and `--help`.

use crate::config::{ConfigError, EXIT_CONFIG, Env, ProcessEnv};
use crate::listen::ListenConfig;
use std::future::Future;
use std::process::ExitCode;
use std::time::Duration;

/// Why a service could not run.
#[derive(Debug, thiserror::Error)]
pub enum StartFailure {
    /// A setting was missing or wrong: exit 64, the message names the variable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Anything else (a port in use, a failed drain): exit 1.
    #[error("{0}")]
    Other(String),
}

/// The whole of a service's `main`: dispatches the command line, initialises telemetry and
/// runs `serve` with the process environment, mapping failures to exit codes.
pub async fn main<F, Fut>(info: &ServiceInfo, serve: F) -> ExitCode
where
    F: FnOnce(ProcessEnv) -> Fut,
    Fut: Future<Output = Result<(), StartFailure>>,
{
    match parse(std::env::args().skip(1)) {
        Err(message) => {
            eprintln!("{}: {message}\n\n{}", info.name, info.usage());
            ExitCode::from(EXIT_CONFIG)
        }
        Ok(Command::Help) => {
            print!("{}", info.usage());
            ExitCode::SUCCESS
        }
        Ok(Command::HealthCheck) => healthcheck(info, &ProcessEnv).await,
        Ok(Command::Serve) => {
            crate::telemetry::init();
            match serve(ProcessEnv).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(failure @ StartFailure::Config(_)) => {
                    eprintln!("{}: {failure}", info.name);
                    ExitCode::from(EXIT_CONFIG)
                }
                Err(failure) => {
                    eprintln!("{}: {failure}", info.name);
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// What the binary was asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Run the service.
    Serve,
    /// Probe the running service's health endpoint.
    HealthCheck,
    /// Print usage.
    Help,
}

/// A service's identity on the command line.
#[derive(Debug, Clone, Copy)]
pub struct ServiceInfo {
    /// Binary name.
    pub name: &'static str,
    /// Default `PORT`.
    pub default_port: u16,
    /// Path of the unauthenticated health endpoint.
    pub health_path: &'static str,
    /// One paragraph: what the service is and where its variables are documented.
    pub about: &'static str,
}

impl ServiceInfo {
    /// The `--help` text.
    pub fn usage(&self) -> String {
        format!(
            "{name}: {about}\n\nUsage:\n  {name}                 serve on BIND_ADDR:PORT (default 127.0.0.1:{port})\n  {name} --healthcheck   probe http://<BIND_ADDR>:<PORT>{health} and exit 0 when it answers 200\n  {name} --help          this text\n\nEvery variable is listed in docs/config.md.\n",
            name = self.name,
            about = self.about,
            port = self.default_port,
            health = self.health_path,
        )
    }
}

/// Reads the arguments (without the program name).
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let args: Vec<String> = args.into_iter().collect();
    match args.as_slice() {
        [] => Ok(Command::Serve),
        [flag] if flag == "--healthcheck" => Ok(Command::HealthCheck),
        [flag] if flag == "--help" || flag == "-h" => Ok(Command::Help),
        _ => Err(format!("unexpected arguments: {}", args.join(" "))),
    }
}

/// Probes the health endpoint of the service configured in `env`: 0 when it answers 200
/// within two seconds, 1 otherwise.
pub async fn healthcheck(info: &ServiceInfo, env: &dyn Env) -> ExitCode {
    let listen = match ListenConfig::from_env(env, info.default_port) {
        Ok(listen) => listen,
        Err(error) => {
            eprintln!("{}: {error}", info.name);
            return ExitCode::FAILURE;
        }
    };
    let url = format!("http://{}{}", listen.probe_addr(), info.health_path);
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build();
    let answer = match client {
        Ok(client) => client.get(&url).send().await,
        Err(error) => Err(error),
    };
    match answer {
        Ok(response) if response.status().is_success() => ExitCode::SUCCESS,
        Ok(response) => {
            eprintln!("{}: {url} answered {}", info.name, response.status());
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("{}: {url} did not answer: {error}", info.name);
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn parses_the_three_commands_and_refuses_the_rest() {
        assert_eq!(parse(args(&[])), Ok(Command::Serve));
        assert_eq!(parse(args(&["--healthcheck"])), Ok(Command::HealthCheck));
        assert_eq!(parse(args(&["--help"])), Ok(Command::Help));
        assert!(parse(args(&["--port", "1"])).is_err());
    }

    #[tokio::test]
    async fn healthcheck_fails_when_nothing_listens() {
        let free = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let env = crate::MapEnv::from_iter([("PORT", free.to_string())]);
        let info = ServiceInfo {
            name: "t",
            default_port: 1,
            health_path: "/health",
            about: "test",
        };
        assert_eq!(healthcheck(&info, &env).await, ExitCode::FAILURE);
    }
}
