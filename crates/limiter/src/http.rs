//! The actix-web glue: a middleware that meters requests by a rule table.
//!
//! A request no rule matches passes through untouched, with no rate-limit fields. A matched
//! request is checked against each of its rule's groups (keyed by the service's key function;
//! a group with no key for this request is skipped); a refusal is answered at once with the
//! service's own envelope plus `Retry-After` and the `RateLimit` fields.

use crate::headers::{self, FieldStyle};
use crate::key::KeyDigest;
use crate::limiter::{Group, GroupId, Limiter};
use crate::rules::RuleTable;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::{Error, HttpResponse};
use futures_util::future::{LocalBoxFuture, Ready, ready};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

/// What a refusal envelope may say: the group is for services whose contract names it (the
/// analyzer's); services with several buckets per request must not put it in the body.
#[derive(Clone, Copy, Debug)]
pub struct Refused<'a> {
    /// The refusing group.
    pub group: &'a Group,
    /// Exact wait until one token accrues.
    pub retry_after: Duration,
}

type KeyFn = dyn Fn(&ServiceRequest, &Group) -> Option<KeyDigest> + Send + Sync;
type RefusalFn = dyn Fn(&Refused<'_>) -> HttpResponse + Send + Sync;

/// A rule in the table referred to a group the limiter does not have.
#[derive(Debug, thiserror::Error)]
#[error("rule table names group {0:?}, which the limiter does not declare")]
pub struct UnknownGroup(pub String);

#[derive(Clone)]
struct Shared {
    limiter: Limiter,
    table: RuleTable,
    rule_groups: Vec<Vec<GroupId>>,
    key: Arc<KeyFn>,
    refusal: Arc<RefusalFn>,
    style: FieldStyle,
}

/// The inbound middleware. Build it once; clones share one limiter.
#[derive(Clone)]
pub struct RateLimit {
    shared: Arc<Shared>,
}

impl RateLimit {
    /// Meters what `table` lists with `limiter`'s groups. By default every group is keyed on
    /// the peer address and a refusal is an empty 429; services set both.
    pub fn new(limiter: Limiter, table: RuleTable) -> Result<Self, UnknownGroup> {
        let rule_groups = table
            .rules()
            .iter()
            .map(|rule| {
                rule.groups()
                    .iter()
                    .map(|name| {
                        limiter
                            .group_id(name)
                            .ok_or_else(|| UnknownGroup(name.clone()))
                    })
                    .collect()
            })
            .collect::<Result<_, _>>()?;
        let shared = Shared {
            limiter,
            table,
            rule_groups,
            key: Arc::new(|request, _| {
                request
                    .peer_addr()
                    .map(|peer| KeyDigest::of(peer.ip().to_string()))
            }),
            refusal: Arc::new(|_| HttpResponse::TooManyRequests().finish()),
            style: FieldStyle::Draft,
        };
        Ok(Self {
            shared: Arc::new(shared),
        })
    }

    /// How a request is keyed for a group (`None`: this group does not meter it).
    pub fn key(
        self,
        key: impl Fn(&ServiceRequest, &Group) -> Option<KeyDigest> + Send + Sync + 'static,
    ) -> Self {
        self.map_shared(|shared| shared.key = Arc::new(key))
    }

    /// The service's refusal envelope; the middleware adds the headers.
    pub fn refusal(
        self,
        refusal: impl Fn(&Refused<'_>) -> HttpResponse + Send + Sync + 'static,
    ) -> Self {
        self.map_shared(|shared| shared.refusal = Arc::new(refusal))
    }

    /// Which rate-limit fields responses carry (default: the IETF draft's).
    pub fn fields(self, style: FieldStyle) -> Self {
        self.map_shared(|shared| shared.style = style)
    }

    fn map_shared(self, change: impl FnOnce(&mut Shared)) -> Self {
        let mut shared = Arc::unwrap_or_clone(self.shared);
        change(&mut shared);
        Self {
            shared: Arc::new(shared),
        }
    }
}

impl Shared {
    fn checks(&self, request: &ServiceRequest) -> Vec<(GroupId, KeyDigest)> {
        let Some(index) = self
            .table
            .position(request.method().as_str(), request.path())
        else {
            return Vec::new();
        };
        self.rule_groups[index]
            .iter()
            .filter_map(|&id| (self.key)(request, self.limiter.group(id)).map(|key| (id, key)))
            .collect()
    }
}

impl<S, B> Transform<S, ServiceRequest> for RateLimit
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = Error;
    type Transform = RateLimitService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(RateLimitService {
            service: Rc::new(service),
            shared: self.shared.clone(),
        }))
    }
}

/// The per-worker service [`RateLimit`] wraps around the app.
pub struct RateLimitService<S> {
    service: Rc<S>,
    shared: Arc<Shared>,
}

impl<S, B> Service<ServiceRequest> for RateLimitService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = Error;
    type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

    forward_ready!(service);

    fn call(&self, request: ServiceRequest) -> Self::Future {
        let service = self.service.clone();
        let shared = self.shared.clone();
        Box::pin(async move {
            let checks = shared.checks(&request);
            if checks.is_empty() {
                return Ok(service.call(request).await?.map_into_left_body());
            }
            let verdict = shared.limiter.check_all(&checks).await;
            let fields = headers::fields(&shared.limiter, &verdict, shared.style);
            if let Some((group, retry_after)) = verdict.refusal() {
                let group = shared.limiter.group(group);
                let mut response = (shared.refusal)(&Refused { group, retry_after });
                append(response.headers_mut(), &fields);
                return Ok(request.into_response(response).map_into_right_body());
            }
            let mut response = service.call(request).await?;
            append(response.headers_mut(), &fields);
            Ok(response.map_into_left_body())
        })
    }
}

fn append(map: &mut actix_web::http::header::HeaderMap, fields: &[(&'static str, String)]) {
    for (name, value) in fields {
        if let Ok(value) = HeaderValue::from_str(value) {
            map.insert(HeaderName::from_static(name), value);
        }
    }
}
