//! The spelling sweep: after a route's budget is spent, no spelling of its path and no method
//! may reach its handler unmetered.
//!
//! Every answer must be one the service gives *before* a handler runs: its refusal (the meter
//! spoke), or its own "no such route" answer (the router found nothing), or a bare 400 from
//! the HTTP parser (a `HEAD` answer has no body, so there its 404 or 405 status is enough:
//! actix routes `HEAD` to no `GET` handler). For other methods on the canonical path an answer carrying the meter's
//! fields is allowed too (another budget metered it). Anything else is a handler's answer
//! that no meter saw, and is reported.

use crate::raw::{Exchange, RawRequest, send};
use crate::spellings::spellings;

/// What a service answers when it did not serve: its refusal, and its "no route" answer.
pub struct Verdicts<'a> {
    /// The meter refused (status and body are the service's refusal).
    pub refused: &'a (dyn Fn(&Exchange) -> bool + Sync),
    /// The router found no route (the service's 404 or 405 answer).
    pub unrouted: &'a (dyn Fn(&Exchange) -> bool + Sync),
}

/// The methods tried on each metered path besides its own.
pub const METHODS: [&str; 10] = [
    "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "post", "Get", "PROPFIND",
];

/// The "no route" answers of the services whose envelope is `{"error","message"}` (analyzer,
/// ai-service, mcp-server): a 404 `no route for …` or a 405 `… is not allowed on …`.
pub fn no_route(exchange: &Exchange) -> bool {
    (exchange.status == 404 && exchange.body.contains(r#""message":"no route for "#))
        || (exchange.status == 405 && exchange.body.contains(" is not allowed on "))
}

/// How many sends spend a swept operation's budget (the tests set every budget to one).
const SPEND_ATTEMPTS: usize = 3;

impl Verdicts<'_> {
    /// Spends `request`'s budget (it must be refused within a few sends), then sweeps the
    /// other spellings of its path and the other methods: every answer that reached a handler
    /// unmetered, one line each.
    ///
    /// # Panics
    /// When `request` is never refused: its budget is not the one the test meant to spend.
    pub async fn spend_and_sweep(&self, address: &str, request: &RawRequest) -> Vec<String> {
        let mut spent = false;
        for _ in 0..SPEND_ATTEMPTS {
            if (self.refused)(&send(address, request).await) {
                spent = true;
                break;
            }
        }
        assert!(
            spent,
            "{} {} is never refused",
            request.method, request.target
        );
        let mut served = self.spellings(address, request).await;
        served.extend(self.methods(address, request).await);
        served
    }

    fn not_served(&self, method: &str, exchange: &Exchange) -> bool {
        (self.refused)(exchange)
            || (self.unrouted)(exchange)
            || (exchange.status == 400 && exchange.body.is_empty())
            || (method == "HEAD" && matches!(exchange.status, 404 | 405))
    }

    fn metered(exchange: &Exchange) -> bool {
        ["ratelimit-policy", "x-ratelimit-group"]
            .iter()
            .any(|name| exchange.header(name).is_some())
    }

    /// Every spelling of `request.target` (sent as `request` is otherwise) that was served:
    /// one line each, empty when none was.
    pub async fn spellings(&self, address: &str, request: &RawRequest) -> Vec<String> {
        let mut served = Vec::new();
        for spelling in spellings(&request.target) {
            let exchange = send(address, &request.to(&request.method, &spelling)).await;
            if !self.not_served(&request.method, &exchange) {
                served.push(describe(&request.method, &spelling, &exchange));
            }
        }
        served
    }

    /// Every method on `request.target` that reached a handler unmetered.
    pub async fn methods(&self, address: &str, request: &RawRequest) -> Vec<String> {
        let mut served = Vec::new();
        for method in METHODS {
            let exchange = send(address, &request.to(method, &request.target)).await;
            if !self.not_served(method, &exchange) && !Self::metered(&exchange) {
                served.push(describe(method, &request.target, &exchange));
            }
        }
        served
    }
}

fn describe(method: &str, target: &str, exchange: &Exchange) -> String {
    let body: String = exchange.body.chars().take(160).collect();
    format!("{method} {target} -> {} {body}", exchange.status)
}
