//! The limiter's actix-web glue: a middleware that meters requests by a rule table.
//!
//! The limiter itself knows no framework (the hyper-based ingress and the command-line tools
//! use it without actix); this crate is the one place where its decisions meet actix-web's
//! requests and responses.
//!
//! The table is matched against [`routed_path`], the one decoded path actix's router routes
//! (never the spelling the client sent), so no spelling of a path reaches a handler without
//! meeting its meter: `/%61pi/v1/login` is metered as `/api/v1/login` because it is routed as
//! it, and a spelling the router does not normalize (dot segments, `//`, `;x`, case) routes
//! nowhere.
//!
//! A request no rule matches passes through untouched, with no rate-limit fields. A matched
//! request is checked against each of its rule's groups (keyed by the service's key function,
//! or for a group keyed by the body, by a field the body carries; a group with no key for this
//! request is skipped); a refusal is answered at once with the service's own envelope plus
//! `Retry-After` and the `RateLimit` fields.

use actix_layer::{Answer, Layer};
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, Service, ServiceRequest, ServiceResponse};
use actix_web::http::header::HeaderName;
use actix_web::http::header::HeaderValue;
use actix_web::{Error, HttpRequest, HttpResponse, web};
use limiter::headers::{self, FieldStyle};
use limiter::limiter::{Group, GroupId};
use limiter::{KeyDigest, Limiter, RuleTable};
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
type BodyKeyFn = dyn Fn(&[u8]) -> Option<KeyDigest> + Send + Sync;
type RefusalFn = dyn Fn(&Refused<'_>) -> HttpResponse + Send + Sync;

/// The path the router routes: percent-encoded characters decoded (all but `/`, `+` and `%`
/// itself), exactly the string actix matches resources against. Every decision a service makes
/// by path (which meter, which envelope, which path needs no token) reads this, never the raw
/// spelling, so a decision and the route it is about cannot disagree.
pub fn routed_path(request: &HttpRequest) -> &str {
    request.match_info().as_str()
}

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
    body_keys: Vec<(GroupId, Arc<BodyKeyFn>)>,
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
            body_keys: Vec::new(),
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

    /// Keys `group` on a field of the request's body (the recipient of a mail, say): for a
    /// request whose rule names `group`, the middleware reads the body (up to the app's payload
    /// limit), hands it to `key` and puts it back untouched for the handler. A body that
    /// cannot be read, or that `key` finds nothing in, leaves `group` unasked; the handler
    /// refuses such a body itself.
    pub fn body_key(
        self,
        group: &str,
        key: impl Fn(&[u8]) -> Option<KeyDigest> + Send + Sync + 'static,
    ) -> Result<Self, UnknownGroup> {
        let id = self
            .shared
            .limiter
            .group_id(group)
            .ok_or_else(|| UnknownGroup(group.to_owned()))?;
        Ok(self.map_shared(|shared| shared.body_keys.push((id, Arc::new(key)))))
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
    /// The index of the rule metering this request, matched on the routed path.
    fn rule(&self, request: &ServiceRequest) -> Option<usize> {
        self.table
            .position(request.method().as_str(), routed_path(request.request()))
    }

    /// The body key function of `group`, if it is keyed by the body.
    fn body_key(&self, group: GroupId) -> Option<&BodyKeyFn> {
        self.body_keys
            .iter()
            .find(|(id, _)| *id == group)
            .map(|(_, key)| key.as_ref())
    }

    /// Every (group, key) of rule `index` for this request; reads the body once when one of
    /// its groups is keyed by it.
    async fn checks(
        &self,
        index: usize,
        request: &mut ServiceRequest,
    ) -> Vec<(GroupId, KeyDigest)> {
        let groups = &self.rule_groups[index];
        let body = match groups.iter().any(|&id| self.body_key(id).is_some()) {
            true => read_body(request).await,
            false => None,
        };
        groups
            .iter()
            .filter_map(|&id| {
                let key = match self.body_key(id) {
                    Some(key) => body.as_deref().and_then(key),
                    None => (self.key)(request, self.limiter.group(id)),
                };
                key.map(|key| (id, key))
            })
            .collect()
    }
}

/// The body, put back for the handler. When it cannot be read (over the payload limit, cut
/// off) the handler gets no body at all, never the unread rest of it: a tail read past the
/// limit could otherwise be a whole JSON document that no group was keyed on.
async fn read_body(request: &mut ServiceRequest) -> Option<web::Bytes> {
    match request.extract::<web::Bytes>().await {
        Ok(body) => {
            request.set_payload(Payload::from(body.clone()));
            Some(body)
        }
        Err(_) => {
            request.set_payload(Payload::None);
            None
        }
    }
}

impl<S, B> Layer<S, B> for RateLimit
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Body = EitherBody<B>;

    fn call(&self, service: Rc<S>, mut request: ServiceRequest) -> Answer<EitherBody<B>> {
        let shared = self.shared.clone();
        Box::pin(async move {
            let checks = match shared.rule(&request) {
                Some(index) => shared.checks(index, &mut request).await,
                None => Vec::new(),
            };
            if checks.is_empty() {
                return Ok(service.call(request).await?.map_into_left_body());
            }
            let verdict = shared.limiter.check_all(&checks).await;
            let fields = headers::fields(&shared.limiter, &verdict, shared.style);
            if let Some((group, retry_after)) = verdict.refusal() {
                let group = shared.limiter.group(group);
                let mut response = (shared.refusal)(&Refused { group, retry_after });
                append(response.headers_mut(), fields);
                return Ok(request.into_response(response).map_into_right_body());
            }
            let mut response = service.call(request).await?;
            append(response.headers_mut(), fields);
            Ok(response.map_into_left_body())
        })
    }
}

actix_layer::layer_transform!(RateLimit);

/// Adds the fields; each text is a valid header value by construction (group names are the
/// service's own identifiers), and one that is not is left out rather than sent broken. The
/// text's buffer becomes the header's without a copy: this runs on every metered request.
fn append(map: &mut actix_web::http::header::HeaderMap, fields: headers::Fields) {
    for (name, text) in fields {
        if let Ok(value) = HeaderValue::try_from(text) {
            map.insert(HeaderName::from_static(name), value);
        }
    }
}
