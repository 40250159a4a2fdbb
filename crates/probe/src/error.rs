//! The probe's own failures: a target it cannot address, or a bad setting. A mismatch between
//! the estate and its contract is not an error: it is a row in the report.

/// Why the probe could not run.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The base URL does not parse or has no host.
    #[error("the base URL {0} is not an http(s)://host:port URL")]
    BaseUrl(String),
    /// The base URL's host does not resolve.
    #[error("cannot resolve {0}")]
    Resolve(String),
    /// The `--cacert` file cannot be read or is not a PEM certificate.
    #[error("--cacert {0}")]
    Ca(String),
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(reqwest::Error),
    /// An expected value (a budget, a count) is not valid.
    #[error(transparent)]
    Setting(#[from] platform_core::ConfigError),
    /// A service name that does not exist.
    #[error("unknown service {0:?}; services are backend, analyzer, ai-service, mcp-server")]
    UnknownService(String),
    /// An `--expect` that is not NAME=VALUE with a known NAME.
    #[error("--expect {0:?} is not NAME=VALUE with a NAME from --help")]
    Expect(String),
    /// A check name that does not exist.
    #[error("unknown check {0:?}; checks are: {1}")]
    UnknownCheck(String, String),
}
