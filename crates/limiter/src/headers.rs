//! The rate-limit response fields, attached by refusal *type*, never by status code.
//!
//! `RateLimit-Policy: "group";q=300;w=3600` and `RateLimit: "group";r=<remaining>;t=<secs>`
//! (IETF httpapi draft), one item per advertised group; `Retry-After` on a refusal only.
//! On a refusal every advertised group reads `r=0;t=<Retry-After>`, so the fields never say
//! which bucket refused: telling a per-source refusal from a per-recipient one is an
//! existence oracle.

use crate::limiter::{Limiter, Verdict};
use crate::policy::retry_after_secs;

/// Header names, lower-case as HTTP/2 sends them.
pub const RATE_LIMIT: &str = "ratelimit";
/// See [`RATE_LIMIT`].
pub const RATE_LIMIT_POLICY: &str = "ratelimit-policy";
/// See [`RATE_LIMIT`].
pub const RETRY_AFTER: &str = "retry-after";
/// The de-facto fields some clients read instead (the analyzer's contract): the first
/// advertised group's name, limit and remaining count.
pub const X_GROUP: &str = "x-ratelimit-group";
/// See [`X_GROUP`].
pub const X_LIMIT: &str = "x-ratelimit-limit";
/// See [`X_GROUP`].
pub const X_REMAINING: &str = "x-ratelimit-remaining";

/// Which fields a service sends besides `Retry-After`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldStyle {
    /// `RateLimit` and `RateLimit-Policy` (IETF draft).
    #[default]
    Draft,
    /// Those, plus `x-ratelimit-group`, `x-ratelimit-limit`, `x-ratelimit-remaining`.
    DraftAndLegacy,
}

/// The fields for one request's verdict, as (name, value) pairs.
pub fn fields(
    limiter: &Limiter,
    verdict: &Verdict,
    style: FieldStyle,
) -> Vec<(&'static str, String)> {
    let advertised: Vec<_> = verdict
        .checked
        .iter()
        .filter(|(id, _)| limiter.group(*id).advertised())
        .collect();
    let refusal = verdict.refusal().map(|(_, wait)| retry_after_secs(wait));
    let mut fields = Vec::with_capacity(6);
    if let (FieldStyle::DraftAndLegacy, Some((id, decision))) = (style, advertised.first()) {
        let group = limiter.group(*id);
        let remaining = if refusal.is_some() {
            0
        } else {
            decision.remaining()
        };
        fields.push((X_GROUP, group.name().to_owned()));
        fields.push((X_LIMIT, group.policy().limit().to_string()));
        fields.push((X_REMAINING, remaining.to_string()));
    }
    if !advertised.is_empty() {
        let policies = advertised.iter().map(|(id, _)| {
            let group = limiter.group(*id);
            let policy = group.policy();
            format!(
                "\"{}\";q={};w={}",
                group.name(),
                policy.limit(),
                policy.period().as_secs()
            )
        });
        fields.push((RATE_LIMIT_POLICY, policies.collect::<Vec<_>>().join(", ")));
        let states = advertised.iter().map(|(id, decision)| {
            let name = limiter.group(*id).name();
            match refusal {
                Some(wait) => format!("\"{name}\";r=0;t={wait}"),
                None => format!(
                    "\"{name}\";r={};t={}",
                    decision.remaining(),
                    retry_after_secs(decision.reset_after())
                ),
            }
        });
        fields.push((RATE_LIMIT, states.collect::<Vec<_>>().join(", ")));
    }
    if let Some(wait) = refusal {
        fields.push((RETRY_AFTER, wait.to_string()));
    }
    fields
}
