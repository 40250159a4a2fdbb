//! The ai-service's ceilings, printed at start-up:
//!
//! | ceiling      | budget (default)       | keyed per          | paths                  |
//! |--------------|------------------------|--------------------|------------------------|
//! | chat         | 60/1m sliding window   | JWT subject digest | `POST /api/chat`       |
//! | chat backstop| 1200/1m sliding window | the whole service  | `POST /api/chat`       |
//! | log_analysis | 60/1m token bucket     | client IP digest   | `POST /api/log-analysis` |
//!
//! The chat ceilings are the limiter's [`SlidingWindow`] (checked by the chat gate after the
//! token); the public log analysis is a `RuleTable` group behind the `RateLimit` middleware,
//! keyed on the client's subscriber behind `TRUSTED_PROXIES` (an IPv6 client by its
//! `RATE_LIMIT_IPV6_PREFIX` network). With `REDIS_URL` set, both are shared
//! by every replica (and decided locally while Redis is slow or down). `/health` and `/metrics` match no
//! rule. Every refusal is the same body, `{"error":"rate_limited",…}` with `Retry-After`.

use crate::config::AiConfig;
use crate::errors::ApiError;
use actix_web::ResponseError;
use limiter::{Limiter, LimiterError, LimiterMetrics, RuleTable, SharedClock, SlidingWindow};
use limiter_actix::RateLimit;
use std::sync::Arc;

/// The chat window's name in metrics and Redis keys.
pub const CHAT: &str = "chat";

/// The group of `POST /api/log-analysis`.
pub const LOG_ANALYSIS: &str = "log_analysis";

/// The allow-list of what the `RateLimit` middleware meters.
pub fn rule_table() -> RuleTable {
    RuleTable::new().rule(&["POST"], "/api/log-analysis", &[LOG_ANALYSIS])
}

/// The chat window, unless switched off: shared through Redis when `REDIS_URL` is set, its
/// decisions counted as `limiter_decisions_total{group="chat"}`.
pub fn chat_window(
    config: &AiConfig,
    metrics: LimiterMetrics,
    clock: SharedClock,
) -> Result<Option<Arc<SlidingWindow>>, LimiterError> {
    if config.rate_limit_disabled {
        return Ok(None);
    }
    let builder = SlidingWindow::builder("ai-service", CHAT, config.chat, config.global);
    config
        .limiter
        .window(builder, metrics, clock)
        .map(|window| Some(Arc::new(window)))
}

/// The per-address limiter.
pub fn limiter(
    config: &AiConfig,
    metrics: LimiterMetrics,
    clock: SharedClock,
) -> Result<Limiter, LimiterError> {
    let builder = Limiter::builder("ai-service").group(LOG_ANALYSIS, config.log_analysis);
    config.limiter.limiter(builder, metrics, clock)
}

/// The middleware: keyed on the client address, refusing in the service's envelope.
pub fn middleware(
    limiter: Limiter,
    config: &AiConfig,
) -> Result<RateLimit, limiter_actix::UnknownGroup> {
    let client_ip = config.client_ip.clone();
    Ok(RateLimit::new(limiter, rule_table())?
        .key(move |request, _| client_ip.key(request.request()))
        .refusal(|refused| {
            ApiError::RateLimited {
                retry_after: refused.retry_after,
            }
            .error_response()
        }))
}

/// The start-up summary of every ceiling.
pub fn describe(config: &AiConfig) -> String {
    let chat = if config.rate_limit_disabled {
        "off (RATE_LIMIT_DISABLED=true)".to_owned()
    } else {
        let held = if config.limiter.shared() {
            "shared through Redis"
        } else {
            "in this process"
        };
        format!(
            "{} per subject, {} in all (sliding windows, {held})",
            config.chat, config.global
        )
    };
    format!(
        "POST /api/chat: {chat}\n{}",
        rule_table().to_string().trim_end()
    )
}
