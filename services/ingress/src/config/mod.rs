//! The ingress file: cloudflared's `ingress:` rules and `originRequest:`, validated with
//! cloudflared's rules and messages, plus the `estate:` extension cloudflared ignores.
//!
//! Validation runs in cloudflared's order: every `originRequest` first (in cloudflared they
//! are decoded with the file), then rule by rule its service, its hostname and its path
//! regex, then the extension.

mod bounds;
mod duration;
mod error;
mod estate;
mod hostname;
mod origin_request;
mod path;
mod raw;
mod request_id;
mod rule;
mod service;
mod tls;

pub use bounds::ClientBounds;
pub use error::IngressError;
pub use estate::{Estate, HealthCheck, Pool};
pub use hostname::{split_host_port, without_port};
pub use origin_request::OriginRequest;
pub use path::{BadPath, RequestPath};
pub use rule::Rule;
pub use service::{HttpService, Service};
pub use tls::{PlainHttp, TlsFile, parse_plain_http};

use raw::RawFile;
use regex::Regex;
use std::path::{Path, PathBuf};

/// A validated ingress file.
#[derive(Debug, Clone)]
pub struct IngressConfig {
    /// Where it was read from.
    pub source: PathBuf,
    /// The rules, first match wins; the last one matches everything.
    pub rules: Vec<Rule>,
    /// The `estate:` extension.
    pub estate: Estate,
}

/// Largest ingress file read (a typo'd path to a huge file fails fast).
const MAX_FILE_BYTES: u64 = 1 << 20;

impl IngressConfig {
    /// Reads and validates the file at `path`.
    pub fn load(path: &Path) -> Result<Self, IngressError> {
        let read = |source| IngressError::Read {
            path: path.to_owned(),
            source,
        };
        let size = std::fs::metadata(path).map_err(read)?.len();
        if size > MAX_FILE_BYTES {
            return Err(IngressError::Yaml {
                path: path.to_owned(),
                reason: format!("{size} bytes is more than the {MAX_FILE_BYTES} read"),
            });
        }
        let text = std::fs::read_to_string(path).map_err(read)?;
        Self::parse(&text, path)
    }

    /// Validates `text`, read from `source`.
    pub fn parse(text: &str, source: &Path) -> Result<Self, IngressError> {
        let raw: RawFile = serde_saphyr::from_str(text).map_err(|error| IngressError::Yaml {
            path: source.to_owned(),
            reason: error.to_string(),
        })?;
        if raw.ingress.is_empty() {
            return Err(IngressError::NoRules);
        }
        let defaults = OriginRequest::resolve(
            &raw.origin_request,
            &OriginRequest::default(),
            "originRequest",
        )?;
        let mut origin_requests = Vec::with_capacity(raw.ingress.len());
        for (index, rule) in raw.ingress.iter().enumerate() {
            let prefix = format!("Rule #{} originRequest", index + 1);
            origin_requests.push(OriginRequest::resolve(
                &rule.origin_request,
                &defaults,
                &prefix,
            )?);
        }
        let total = raw.ingress.len();
        let mut rules = Vec::with_capacity(total);
        for ((index, rule), origin_request) in raw.ingress.iter().enumerate().zip(origin_requests) {
            let service = service::parse(&rule.service)?;
            hostname::validate(&rule.hostname, &rule.path, index, total)?;
            let path = compile_path(&rule.path, index)?;
            rules.push(Rule {
                hostname: rule.hostname.clone(),
                path,
                service,
                origin_request,
            });
        }
        let services: Vec<&str> = rules
            .iter()
            .filter_map(|rule| match &rule.service {
                Service::Http(http) => Some(http.text.as_str()),
                Service::Status(_) => None,
            })
            .collect();
        let estate = Estate::resolve(&raw.estate, &services)?;
        Ok(Self {
            source: source.to_owned(),
            rules,
            estate,
        })
    }

    /// The first rule matching `host` (its port is ignored) and `path` (a
    /// [`RequestPath::matched`]), with its index from 0. The last rule matches everything, so there always is one.
    pub fn find(&self, host: &str, path: &str) -> (usize, &Rule) {
        let host = without_port(host);
        let last = self.rules.len() - 1;
        self.rules
            .iter()
            .enumerate()
            .find(|(_, rule)| rule.matches(host, path))
            .unwrap_or((last, &self.rules[last]))
    }
}

fn compile_path(path: &str, index: usize) -> Result<Option<Regex>, IngressError> {
    if path.is_empty() {
        return Ok(None);
    }
    Regex::new(path)
        .map(Some)
        .map_err(|source| IngressError::BadRegex {
            index: index + 1,
            source: Box::new(source),
        })
}

#[cfg(test)]
mod tests;
