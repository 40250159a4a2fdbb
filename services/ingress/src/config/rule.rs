//! One validated rule and the match, as cloudflared's `Rule.Matches`: the hostname (exact,
//! `*.` wildcard, or any) and the path regex (unanchored: `/api` matches `/v1/api/x`).

use super::hostname;
use super::origin_request::OriginRequest;
use super::service::Service;
use regex::Regex;

/// A validated rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// As written; empty when absent.
    pub hostname: String,
    /// The compiled `path`, when there is one.
    pub path: Option<Regex>,
    /// Where matched requests go.
    pub service: Service,
    /// How they get there.
    pub origin_request: OriginRequest,
}

impl Rule {
    /// Whether a request for `host` (without port) and the decoded `path` matches.
    pub fn matches(&self, host: &str, path: &str) -> bool {
        hostname::matches(&self.hostname, host)
            && self.path.as_ref().is_none_or(|regex| regex.is_match(path))
    }

    /// cloudflared's `MultiLineString`: tab-indented `hostname`, `path` and `service` lines.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        if !self.hostname.is_empty() {
            out.push_str(&format!("\thostname: {}\n", self.hostname));
        }
        if let Some(path) = &self.path {
            out.push_str(&format!("\tpath: {}\n", path.as_str()));
        }
        out.push_str(&format!("\tservice: {}", self.service));
        out
    }
}
