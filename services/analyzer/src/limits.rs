//! The analyzer's groups, their allow-list, and its refusal body.
//!
//! | group   | budget (default) | paths                                               |
//! |---------|------------------|-----------------------------------------------------|
//! | analyze | 15000/60s        | `POST /analyze`                                     |
//! | llm     | 30/60s           | `/llm/**`                                           |
//! | read    | 600/60s          | `GET /analysis-types`, `GET /rules/**`              |
//! | write   | 60/60s           | `POST /rules/validate`, `POST|PUT|DELETE /rules/**` |
//!
//! Keyed on the caller token's digest. `/health` and `/metrics` match no rule.

use crate::config::AnalyzerConfig;
use crate::errors::millis;
use crate::gate::TOKEN_HEADER;
use actix_web::HttpResponse;
use limiter::{
    FieldStyle, KeyDigest, Limiter, LimiterError, LimiterMetrics, RuleTable, SharedClock,
};
use limiter_actix::RateLimit;
use serde_json::json;

/// The allow-list of metered requests.
pub fn rule_table() -> RuleTable {
    RuleTable::new()
        .rule(&["POST"], "/analyze", &["analyze"])
        .rule(&[], "/llm/**", &["llm"])
        .rule(&["GET"], "/analysis-types", &["read"])
        .rule(&["GET"], "/rules/**", &["read"])
        .rule(&["POST", "PUT", "DELETE"], "/rules/**", &["write"])
}

/// The limiter of the four groups.
pub fn limiter(
    config: &AnalyzerConfig,
    metrics: LimiterMetrics,
    clock: SharedClock,
) -> Result<Limiter, LimiterError> {
    let budgets = &config.budgets;
    let builder = Limiter::builder("analyzer")
        .group("analyze", budgets.analyze)
        .group("llm", budgets.llm)
        .group("read", budgets.read)
        .group("write", budgets.write);
    config.limiter.limiter(builder, metrics, clock)
}

/// The middleware: keyed on the token, the analyzer's refusal body, `x-ratelimit-*` fields.
pub fn middleware(limiter: Limiter) -> Result<RateLimit, limiter_actix::UnknownGroup> {
    Ok(RateLimit::new(limiter, rule_table())?
        .key(|request, _| {
            request
                .headers()
                .get(TOKEN_HEADER)
                .map(|token| KeyDigest::of(token.as_bytes()))
        })
        .fields(FieldStyle::DraftAndLegacy)
        .refusal(|refused| {
            HttpResponse::TooManyRequests().json(json!({
                "error": "rate_limited",
                "group": refused.group.name(),
                "limit": refused.group.policy().limit(),
                "retry_after_ms": millis(refused.retry_after),
            }))
        }))
}
