//! Logging for every service: one [`init`] at the top of `main`, filtered by `RUST_LOG`
//! (default `info`), written as JSON lines when `LOG_FORMAT=json`, else as compact lines
//! for people.
//!
//! Logs go to stderr so that stdout keeps only what a command prints on purpose (`--help`,
//! `ingress rule URL`). A bad `RUST_LOG` or `LOG_FORMAT` does not stop start-up: logging falls
//! back to its defaults and says so in its first line, naming the variable.

use tracing_subscriber::EnvFilter;

use crate::config::{ConfigError, Env, ProcessEnv};

/// Which events are written: a `tracing` filter such as `info` or `limiter=debug,info`.
pub const ENV_RUST_LOG: &str = "RUST_LOG";
/// `json` for one JSON object a line; `compact` (the default) for people.
pub const ENV_LOG_FORMAT: &str = "LOG_FORMAT";
/// The filter when `RUST_LOG` is unset or invalid.
pub const DEFAULT_FILTER: &str = "info";

/// How each event is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LogFormat {
    /// One line per event, for people.
    Compact,
    /// One JSON object per line, event fields at the top level, for log shippers.
    Json,
}

/// Installs the global subscriber from the process environment. Returns `false` when one
/// was already installed (a second call, or a test harness): that is not an error.
pub fn init() -> bool {
    init_with(&ProcessEnv)
}

/// [`init`], reading `RUST_LOG` and `LOG_FORMAT` from `env`.
pub fn init_with(env: &dyn Env) -> bool {
    let settings = Settings::read(env);
    let builder = tracing_subscriber::fmt()
        .with_env_filter(settings.filter)
        .with_writer(std::io::stderr);
    let installed = match settings.format {
        LogFormat::Json => builder.json().flatten_event(true).try_init().is_ok(),
        LogFormat::Compact => builder.compact().try_init().is_ok(),
    };
    if installed {
        for problem in &settings.problems {
            tracing::warn!("{problem}; using the default");
        }
    }
    installed
}

/// What the environment asks for, with defaults in place of whatever was refused.
struct Settings {
    filter: EnvFilter,
    format: LogFormat,
    problems: Vec<ConfigError>,
}

impl Settings {
    fn read(env: &dyn Env) -> Self {
        let mut problems = Vec::new();
        let filter = match env.optional(ENV_RUST_LOG).map(EnvFilter::try_new) {
            Some(Ok(filter)) => filter,
            None => EnvFilter::new(DEFAULT_FILTER),
            Some(Err(_)) => {
                problems.push(ConfigError::Invalid {
                    name: ENV_RUST_LOG,
                    expected: "a tracing filter such as info or limiter=debug,info".to_owned(),
                });
                EnvFilter::new(DEFAULT_FILTER)
            }
        };
        let format = match env.optional(ENV_LOG_FORMAT).as_deref() {
            None | Some("compact") => LogFormat::Compact,
            Some("json") => LogFormat::Json,
            Some(_) => {
                problems.push(ConfigError::Invalid {
                    name: ENV_LOG_FORMAT,
                    expected: "json or compact".to_owned(),
                });
                LogFormat::Compact
            }
        };
        Self {
            filter,
            format,
            problems,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MapEnv;

    fn read(pairs: &[(&str, &str)]) -> Settings {
        Settings::read(&pairs.iter().copied().collect::<MapEnv>())
    }

    #[test]
    fn defaults_are_info_and_compact() {
        let settings = read(&[]);
        assert_eq!(settings.filter.to_string(), "info");
        assert_eq!(settings.format, LogFormat::Compact);
        assert!(settings.problems.is_empty());
    }

    #[test]
    fn reads_rust_log_and_json() {
        let settings = read(&[("RUST_LOG", "limiter=debug,warn"), ("LOG_FORMAT", "json")]);
        assert_eq!(settings.filter.to_string(), "limiter=debug,warn");
        assert_eq!(settings.format, LogFormat::Json);
        assert!(settings.problems.is_empty());
    }

    #[test]
    fn bad_values_fall_back_and_are_named_without_their_value() {
        let settings = read(&[("RUST_LOG", "limiter=loudest"), ("LOG_FORMAT", "jsonl")]);
        assert_eq!(settings.filter.to_string(), "info");
        assert_eq!(settings.format, LogFormat::Compact);
        let messages: Vec<String> = settings.problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "RUST_LOG is invalid: expected a tracing filter such as info or limiter=debug,info",
                "LOG_FORMAT is invalid: expected json or compact",
            ]
        );
    }

    #[test]
    fn a_second_init_is_harmless() {
        let env: MapEnv = [("LOG_FORMAT", "json")].into_iter().collect();
        assert!(init_with(&env));
        assert!(!init());
    }
}
