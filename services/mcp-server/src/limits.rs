//! The MCP server's groups, their allow-list, their key, and its refusal bodies.
//!
//! | group          | budget (default) | paths                 |
//! |----------------|------------------|-----------------------|
//! | mcp            | 600/60s          | `/mcp` (any method)   |
//! | skills_package | 20/60s           | `GET /skills/package` |
//! | installer      | 60/60s           | `GET /install.sh`     |
//!
//! Keyed on the caller: the digest of the access token's subject (so one person's budget is
//! the same from every address and across token refreshes), or of the client's subscriber
//! behind the trusted proxies for an anonymous caller (an IPv6 client by its
//! `RATE_LIMIT_IPV6_PREFIX` network). The two inputs are prefixed differently, so a
//! subject that reads like an address never shares a bucket with it. `/health` and `/metrics`
//! match no rule. A refusal on `/mcp` is a JSON-RPC error (-32010, see [`crate::errors`]);
//! elsewhere the service envelope. Neither names the group.

use crate::config::McpConfig;
use crate::errors::Refusal;
use crate::identity::Caller;
use crate::mcp::MCP_PATH;
use crate::mcp::jsonrpc::RATE_LIMITED;
use actix_web::http::StatusCode;
use actix_web::{HttpMessage, HttpResponse};
use limiter::{
    KeyDigest, Limiter, LimiterError, LimiterMetrics, RuleTable, SharedClock, retry_after_secs,
};
use limiter_actix::{RateLimit, Refused};
use platform::ClientIp;
use serde_json::json;

/// The group of `/mcp`.
pub const MCP_GROUP: &str = "mcp";
/// The group of `GET /skills/package`.
pub const SKILLS_PACKAGE_GROUP: &str = "skills_package";
/// The group of `GET /install.sh`.
pub const INSTALLER_GROUP: &str = "installer";

/// The allow-list of metered requests.
pub fn rule_table() -> RuleTable {
    RuleTable::new()
        .rule(&[], MCP_PATH, &[MCP_GROUP])
        .rule(&["GET"], "/skills/package", &[SKILLS_PACKAGE_GROUP])
        .rule(&["GET"], "/install.sh", &[INSTALLER_GROUP])
}

/// The limiter of the three groups.
pub fn limiter(
    config: &McpConfig,
    metrics: LimiterMetrics,
    clock: SharedClock,
) -> Result<Limiter, LimiterError> {
    let budgets = &config.budgets;
    let builder = Limiter::builder("mcp-server")
        .group(MCP_GROUP, budgets.mcp)
        .group(SKILLS_PACKAGE_GROUP, budgets.skills_package)
        .group(INSTALLER_GROUP, budgets.installer);
    config.limiter.limiter(builder, metrics, clock)
}

/// The middleware: keyed on the caller, the refusal in the path's envelope.
pub fn middleware(
    limiter: Limiter,
    client_ip: ClientIp,
) -> Result<RateLimit, limiter_actix::UnknownGroup> {
    Ok(RateLimit::new(limiter, rule_table())?
        .key(move |request, _| {
            let subject = request
                .extensions()
                .get::<Caller>()
                .and_then(|caller| caller.subject.clone());
            match subject {
                Some(subject) => Some(KeyDigest::of_parts(&[b"sub\0", subject.as_bytes()])),
                None => client_ip.key_with(request.request(), b"ip\0"),
            }
        })
        .refusal(refusal))
}

fn refusal(refused: &Refused<'_>) -> HttpResponse {
    let seconds = retry_after_secs(refused.retry_after);
    let path = if refused.group.name() == MCP_GROUP {
        MCP_PATH
    } else {
        ""
    };
    Refusal {
        status: StatusCode::TOO_MANY_REQUESTS,
        code: "rate_limited",
        rpc_code: RATE_LIMITED,
        message: format!("Too many requests. Please try again in {seconds} second(s)."),
        data: Some(json!({ "retryAfterSeconds": seconds })),
    }
    .respond(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allow_list_path_by_path() {
        let table = rule_table();
        let cases = [
            ("POST", "/mcp", Some(MCP_GROUP)),
            ("GET", "/mcp", Some(MCP_GROUP)),
            ("DELETE", "/mcp", Some(MCP_GROUP)),
            ("GET", "/skills/package", Some(SKILLS_PACKAGE_GROUP)),
            ("POST", "/skills/package", None),
            ("GET", "/install.sh", Some(INSTALLER_GROUP)),
            ("GET", "/health", None),
            ("GET", "/metrics", None),
            ("GET", "/mcp/extra", None),
            ("GET", "/nothing", None),
        ];
        for (method, path, group) in cases {
            let matched = table
                .position(method, path)
                .map(|index| table.rules()[index].groups()[0].as_str());
            assert_eq!(matched, group, "{method} {path}");
        }
    }
}
