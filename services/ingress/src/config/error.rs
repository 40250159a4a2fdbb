//! Why an ingress file was refused. cloudflared's own messages are copied word for word (and
//! named so in their docs), so an operator who knows one tool can read the other; the rest
//! are this ingress's and name the key at fault.

use std::path::PathBuf;

/// A refused ingress file.
#[derive(Debug, thiserror::Error)]
pub enum IngressError {
    /// The file could not be read.
    #[error("cannot read the ingress file {path}: {source}")]
    Read {
        /// The file (`INGRESS_CONFIG`).
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file is not YAML of the expected shape.
    #[error("{path} is not a valid ingress file: {reason}")]
    Yaml {
        /// The file.
        path: PathBuf,
        /// The parser's words, with the line and column.
        reason: String,
    },
    /// cloudflared's: no `ingress:` rules at all.
    #[error("The config file doesn't contain any ingress rules")]
    NoRules,
    /// cloudflared's: the last rule has a hostname or path.
    #[error(
        "The last ingress rule must match all URLs (i.e. it should not have a hostname or path filter)"
    )]
    LastRuleNotCatchAll,
    /// cloudflared's: a `*` elsewhere than at the start.
    #[error(
        "Hostname patterns can have at most one wildcard character (\"*\") and it can only be used for subdomains, e.g. \"*.example.com\""
    )]
    BadWildcard,
    /// cloudflared's: `hostname: example.com:443`.
    #[error("Hostname cannot contain a port")]
    HostnameContainsPort,
    /// cloudflared's: a catch-all rule before the last one (`index` counts from 1).
    #[error(
        "Rule #{index} is matching the hostname '{hostname}', but this will match every hostname, meaning the rules which follow it will never be triggered."
    )]
    CatchAllNotLast {
        /// The rule, counting from 1.
        index: usize,
        /// Its hostname as written (empty or `*`).
        hostname: String,
    },
    /// cloudflared's prefix, then the regex engine's reason.
    #[error("Rule #{index} has an invalid regex: {source}")]
    BadRegex {
        /// The rule, counting from 1.
        index: usize,
        /// The regex engine's reason.
        source: Box<regex::Error>,
    },
    /// cloudflared's: `http_status:` followed by something else than a code in 100–999.
    #[error("invalid HTTP status code: {0}")]
    BadStatus(String),
    /// cloudflared's: a service without a scheme or a host.
    #[error("{0} is an invalid address, please make sure it has a scheme and a hostname")]
    NoSchemeOrHost(String),
    /// cloudflared's: a service URL with a path.
    #[error(
        "{0} is an invalid address, ingress rules don't support proxying to a different path on the origin service. The path will be the same as the eyeball request's path"
    )]
    PathInService(String),
    /// A service cloudflared knows (`https://`, `unix:`, `hello_world`, `ssh://`, …) that this
    /// ingress does not serve.
    #[error(
        "{0} is not supported by this ingress: a service is http://host:port or http_status:NNN"
    )]
    Unsupported(String),
    /// A duration that does not parse.
    #[error("{key} is not a duration: {reason} (write it like \"30s\", \"1m30s\" or \"500ms\")")]
    Duration {
        /// The key, spelled as in the file.
        key: String,
        /// The parser's reason.
        reason: String,
    },
    /// A key with a value it cannot take (the `estate:` extension, `httpHostHeader`).
    #[error("{key}: {reason}")]
    Invalid {
        /// The key, spelled as in the file.
        key: String,
        /// What is wrong and what is expected.
        reason: String,
    },
}
