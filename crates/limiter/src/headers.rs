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

/// The fields of one request's verdict, at most six, as (name, text): the framework's glue
/// turns each text into its header value.
pub type Fields = Vec<(&'static str, String)>;

/// The fields for one request's verdict, as (name, text) pairs. Each text is written into one
/// buffer, which the glue hands to the header without a copy: this runs on every metered
/// request.
pub fn fields(limiter: &Limiter, verdict: &Verdict, style: FieldStyle) -> Fields {
    let mut advertised = verdict
        .checked
        .iter()
        .filter(|(id, _)| limiter.group(*id).advertised())
        .peekable();
    let refusal = verdict.refusal().map(|(_, wait)| retry_after_secs(wait));
    let mut fields = Fields::with_capacity(6);
    if let (FieldStyle::DraftAndLegacy, Some((id, decision))) = (style, advertised.peek()) {
        let group = limiter.group(*id);
        let remaining = match refusal {
            Some(_) => 0,
            None => decision.remaining(),
        };
        push(&mut fields, X_GROUP, group.name().to_owned());
        push(
            &mut fields,
            X_LIMIT,
            number(u64::from(group.policy().limit())),
        );
        push(&mut fields, X_REMAINING, number(u64::from(remaining)));
    }
    if advertised.peek().is_some() {
        let mut policies = String::with_capacity(64);
        let mut states = String::with_capacity(64);
        for (index, (id, decision)) in advertised.enumerate() {
            let group = limiter.group(*id);
            if index > 0 {
                policies.push_str(", ");
                states.push_str(", ");
            }
            let policy = group.policy();
            item(&mut policies, group.name(), "q", u64::from(policy.limit()));
            policies.push_str(";w=");
            policies.push_str(itoa::Buffer::new().format(policy.period().as_secs()));
            let (left, wait) = match refusal {
                Some(wait) => (0, wait),
                None => (
                    decision.remaining(),
                    retry_after_secs(decision.reset_after()),
                ),
            };
            item(&mut states, group.name(), "r", u64::from(left));
            states.push_str(";t=");
            states.push_str(itoa::Buffer::new().format(wait));
        }
        push(&mut fields, RATE_LIMIT_POLICY, policies);
        push(&mut fields, RATE_LIMIT, states);
    }
    if let Some(wait) = refusal {
        push(&mut fields, RETRY_AFTER, number(wait));
    }
    fields
}

/// `"name";key=value` appended to `text`.
fn item(text: &mut String, name: &str, key: &str, value: u64) {
    text.push('"');
    text.push_str(name);
    text.push_str("\";");
    text.push_str(key);
    text.push('=');
    text.push_str(itoa::Buffer::new().format(value));
}

fn number(value: u64) -> String {
    itoa::Buffer::new().format(value).to_owned()
}

fn push(fields: &mut Fields, name: &'static str, text: String) {
    fields.push((name, text));
}
