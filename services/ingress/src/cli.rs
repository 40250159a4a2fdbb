//! The command line: serve (no arguments), `validate` and `rule URL` as cloudflared's
//! `tunnel ingress validate` / `tunnel ingress rule URL` (same output, same messages),
//! `--healthcheck` (probe the admin port's `/health`, exit 0 or 1) and `--help`.

use crate::application::Application;
use crate::config::IngressConfig;
use crate::settings::{self, AdminEnv, Settings};
use crate::tls::{Tls, Transports};
use platform_core::config::{EXIT_CONFIG, Env, ProcessEnv};
use platform_core::{ServiceInfo, StartFailure};
use std::process::ExitCode;

/// What the binary was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Run the proxy.
    Serve,
    /// Check the ingress file.
    Validate,
    /// Print which rule a URL matches.
    Rule(String),
    /// Probe the running ingress.
    HealthCheck,
    /// Print usage.
    Help,
}

/// The ingress on the command line, as `--healthcheck` sees it: its health is on the admin port.
pub const SERVICE: ServiceInfo = ServiceInfo {
    name: "ingress",
    default_port: settings::DEFAULT_ADMIN_PORT,
    health_path: crate::admin::HEALTH_PATH,
    about: "the tunnel-style ingress (cloudflared's ingress file; docs/ingress.md)",
};

/// The `--help` text.
pub const USAGE: &str = "\
ingress: the tunnel-style ingress. It reads cloudflared's ingress file (INGRESS_CONFIG,
default compose/ingress.yml) and proxies each hostname to its origin(s); see docs/ingress.md.

Usage:
  ingress                 serve on BIND_ADDR:PORT (default 127.0.0.1:8080) and, with a
                          certificate (estate.tls or INGRESS_TLS_CERT/KEY), HTTPS on
                          INGRESS_TLS_PORT (default 8443; SIGHUP reloads the certificate);
                          /health and /metrics on BIND_ADDR:INGRESS_ADMIN_PORT (default 8081)
  ingress validate        check the ingress file; prints OK, or the reason and exits 1
  ingress rule URL        print which rule (counting from 0) a URL matches
  ingress --healthcheck   probe http://<BIND_ADDR>:<INGRESS_ADMIN_PORT>/health, exit 0 or 1
  ingress --help          this text

Every variable is listed in docs/config.md.
";

/// Reads the arguments (without the program name).
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let args: Vec<String> = args.into_iter().collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => Ok(Command::Serve),
        ["validate"] => Ok(Command::Validate),
        ["rule", url] => Ok(Command::Rule((*url).to_owned())),
        ["rule"] => Err("ingress rule expects a single argument, the URL to test".to_owned()),
        ["--healthcheck"] => Ok(Command::HealthCheck),
        ["--help" | "-h"] => Ok(Command::Help),
        _ => Err(format!("unexpected arguments: {}", args.join(" "))),
    }
}

/// The whole of `main`.
pub async fn main(args: impl IntoIterator<Item = String>) -> ExitCode {
    match parse(args) {
        Err(message) => {
            eprintln!("ingress: {message}\n\n{USAGE}");
            ExitCode::from(EXIT_CONFIG)
        }
        Ok(Command::Help) => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Command::Validate) => validate(&ProcessEnv),
        Ok(Command::Rule(url)) => rule(&ProcessEnv, &url),
        Ok(Command::HealthCheck) => healthcheck(&ProcessEnv).await,
        Ok(Command::Serve) => serve(&ProcessEnv).await,
    }
}

/// cloudflared's `ingress validate`: "Validating rules from …", then "OK" or
/// "Validation failed: …" and exit 1.
pub fn validate(env: &dyn Env) -> ExitCode {
    let path = settings::config_path(env);
    println!("Validating rules from {}", path.display());
    match IngressConfig::load(&path) {
        Ok(_) => {
            println!("OK");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("Validation failed: {error}");
            ExitCode::FAILURE
        }
    }
}

/// cloudflared's `ingress rule URL`: "Using rules from …", "Matched rule #i" (from 0) and
/// the rule, tab-indented; a pool declared under `estate:` adds its origins.
pub fn rule(env: &dyn Env, url: &str) -> ExitCode {
    let uri = url.parse::<http::Uri>();
    let Some(host) = uri
        .as_ref()
        .ok()
        .filter(|uri| uri.scheme().is_some())
        .and_then(http::Uri::host)
    else {
        // Go's url.Parse takes `example.com/x` for a path: no host, no scheme.
        if uri.is_ok() || !url.contains("://") {
            eprintln!("{url} doesn't have a hostname, consider adding a scheme");
        } else {
            eprintln!("{url} is not a valid URL");
        }
        return ExitCode::FAILURE;
    };
    let uri_path = uri.as_ref().map_or("/", http::Uri::path);
    let path = settings::config_path(env);
    println!("Using rules from {}", path.display());
    let config = match IngressConfig::load(&path) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("Validation failed: {error}");
            return ExitCode::FAILURE;
        }
    };
    let query = uri.as_ref().ok().and_then(http::Uri::query);
    let request_path = match crate::config::RequestPath::parse(uri_path, query) {
        Ok(request_path) => request_path,
        Err(refused) => {
            eprintln!("{url} is refused with 400 before any rule: {refused}");
            return ExitCode::FAILURE;
        }
    };
    let (index, matched) = config.find(host, request_path.matched());
    println!("Matched rule #{index}");
    println!("{}", matched.describe());
    if let crate::config::Service::Http(http) = &matched.service
        && let Some(pool) = config.estate.pool(&http.text)
    {
        let origins: Vec<&str> = pool
            .origins
            .iter()
            .map(|origin| origin.text.as_str())
            .collect();
        println!("\torigins: {}", origins.join(", "));
    }
    ExitCode::SUCCESS
}

async fn healthcheck(env: &dyn Env) -> ExitCode {
    if let Err(error) = Settings::from_env(env) {
        eprintln!("ingress: {error}");
        return ExitCode::FAILURE;
    }
    platform_core::cli::healthcheck(&SERVICE, &AdminEnv(env)).await
}

/// Serves: a bad variable or a refused file exits 64 with the reason, like every estate
/// service's bad configuration; anything else that stops it (a port in use) exits 1.
async fn serve(env: &dyn Env) -> ExitCode {
    platform_core::telemetry::init();
    let settings = match Settings::from_env(env) {
        Ok(settings) => settings,
        Err(error) => return refused(&error),
    };
    let config = match IngressConfig::load(&settings.config_path) {
        Ok(config) => config,
        Err(error) => return refused(&error),
    };
    let transports = match Transports::resolve(&settings, &config.estate.tls) {
        Ok(transports) => transports,
        Err(error) => return refused(&error),
    };
    let tls = match transports.tls.as_ref().map(Tls::load).transpose() {
        Ok(tls) => tls,
        Err(error) => return refused(&error),
    };
    let served = match Application::build(&settings, config, transports, tls) {
        Ok(application) => application.run_until_stopped().await,
        Err(failure) => Err(failure),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure @ StartFailure::Config(_)) => refused(&failure),
        Err(failure) => {
            eprintln!("ingress: {failure}");
            ExitCode::FAILURE
        }
    }
}

fn refused(reason: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("ingress: {reason}");
    ExitCode::from(EXIT_CONFIG)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn parses_cloudflared_style_subcommands() {
        assert_eq!(parse(args(&[])), Ok(Command::Serve));
        assert_eq!(parse(args(&["validate"])), Ok(Command::Validate));
        assert_eq!(
            parse(args(&["rule", "http://a.b/c"])),
            Ok(Command::Rule("http://a.b/c".to_owned()))
        );
        assert_eq!(parse(args(&["--healthcheck"])), Ok(Command::HealthCheck));
        assert_eq!(parse(args(&["-h"])), Ok(Command::Help));
        assert!(parse(args(&["rule"])).is_err());
        assert!(parse(args(&["serve", "now"])).is_err());
    }
}
