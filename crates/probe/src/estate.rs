//! Where each service is and how to reach it: through the ingress at one base address with
//! each service's hostname (reqwest's `resolve` sends `https://api.localhost:8443/…` to the
//! base address with the right `Host` and TLS name), or straight at a per-service URL. Over
//! HTTPS the ingress's CA may be named (`--cacert`), and its plain HTTP port too, which the
//! edge check expects to redirect.

use crate::error::ProbeError;
use crate::exchange::{Exchange, Window};
use crate::service::Service;
use reqwest::{Method, RequestBuilder, Url};
use std::collections::BTreeMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant, SystemTime};

/// What the command line says about where the estate is.
#[derive(Clone, Debug)]
pub struct Targets {
    /// The ingress, e.g. `http://127.0.0.1:8080`.
    pub base: String,
    /// Each service's hostname at the ingress (defaults: [`Service::default_host`]).
    pub hosts: BTreeMap<Service, String>,
    /// Services reached at their own URL instead of through the ingress.
    pub direct: BTreeMap<Service, String>,
    /// The services this estate runs; checks needing another one are skipped.
    pub services: Vec<Service>,
    /// Bound on one request, answer included.
    pub timeout: Duration,
    /// The only CA trusted for HTTPS (PEM), instead of the system's.
    pub ca: Option<std::path::PathBuf>,
    /// The ingress's plain HTTP port, e.g. `http://127.0.0.1:8080`.
    pub plain: Option<String>,
}

impl Targets {
    /// Through the ingress at `base`, every service, default hostnames.
    pub fn ingress(base: &str) -> Self {
        Self {
            base: base.to_owned(),
            hosts: BTreeMap::new(),
            direct: BTreeMap::new(),
            services: Service::ALL.to_vec(),
            timeout: Duration::from_secs(15),
            ca: None,
            plain: None,
        }
    }
}

/// One service's address.
#[derive(Clone, Debug)]
struct Endpoint {
    url: String,
    via_ingress: bool,
}

/// The running estate, as the probe reaches it.
#[derive(Clone, Debug)]
pub struct Estate {
    client: reqwest::Client,
    endpoints: BTreeMap<Service, Endpoint>,
    plain_port: Option<u16>,
    description: String,
}

impl Estate {
    /// Resolves the base address once and builds one client for every service.
    pub fn new(targets: &Targets) -> Result<Self, ProbeError> {
        let base =
            Url::parse(&targets.base).map_err(|_| ProbeError::BaseUrl(targets.base.clone()))?;
        let address = socket_address(&base)?;
        let plain_port = match &targets.plain {
            Some(plain) => Some(
                Url::parse(plain)
                    .ok()
                    .and_then(|url| url.port_or_known_default())
                    .ok_or_else(|| ProbeError::BaseUrl(plain.clone()))?,
            ),
            None => None,
        };
        let mut builder = reqwest::Client::builder()
            .timeout(targets.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy();
        if let Some(path) = &targets.ca {
            builder = builder.tls_certs_only([ca_certificate(path)?]);
        }
        let mut endpoints = BTreeMap::new();
        for &service in &targets.services {
            let endpoint = match targets.direct.get(&service) {
                Some(url) => Endpoint {
                    url: url.trim_end_matches('/').to_owned(),
                    via_ingress: false,
                },
                None => {
                    let host = targets
                        .hosts
                        .get(&service)
                        .map_or(service.default_host(), String::as_str);
                    builder = builder.resolve(host, address);
                    Endpoint {
                        url: format!("{}://{host}:{}", base.scheme(), address.port()),
                        via_ingress: true,
                    }
                }
            };
            endpoints.insert(service, endpoint);
        }
        let client = builder.build().map_err(ProbeError::Client)?;
        let description = describe(&targets.base, &endpoints);
        Ok(Self {
            client,
            endpoints,
            plain_port,
            description,
        })
    }

    /// Whether the estate runs `service` (the `--services` list).
    pub fn includes(&self, service: Service) -> bool {
        self.endpoints.contains_key(&service)
    }

    /// Whether `service` is reached through the ingress.
    pub fn via_ingress(&self, service: Service) -> bool {
        self.endpoints
            .get(&service)
            .is_some_and(|endpoint| endpoint.via_ingress)
    }

    /// The URL of `path` on `service`.
    pub fn url(&self, service: Service, path: &str) -> String {
        let base = self
            .endpoints
            .get(&service)
            .map_or("http://service-not-in-this-estate.invalid", |e| {
                e.url.as_str()
            });
        format!("{base}{path}")
    }

    /// The same `path` on the ingress's plain HTTP port, when it was named and `service` is
    /// reached through the ingress.
    pub fn plain_url(&self, service: Service, path: &str) -> Option<String> {
        let port = self.plain_port?;
        let endpoint = self.endpoints.get(&service).filter(|e| e.via_ingress)?;
        let host = endpoint.url.split("://").nth(1)?.split(':').next()?;
        Some(format!("http://{host}:{port}{path}"))
    }

    /// A request to `url` (one of this estate's).
    pub fn request_url(&self, method: Method, url: &str) -> RequestBuilder {
        self.client.request(method, url)
    }

    /// A request to `path` on `service`.
    pub fn request(&self, method: Method, service: Service, path: &str) -> RequestBuilder {
        self.client.request(method, self.url(service, path))
    }

    /// Sends `request` and reads the whole answer; a transport failure is an exchange with no
    /// status whose body says why.
    pub async fn send(&self, request: RequestBuilder) -> Exchange {
        let sent_at = SystemTime::now();
        let sent = Instant::now();
        let (status, headers, body) = match request.send().await {
            Ok(response) => {
                let status = response.status().as_u16();
                let headers = response.headers().clone();
                let body = response.text().await.unwrap_or_default();
                (Some(status), headers, body)
            }
            Err(error) => (None, Default::default(), transport_error(&error)),
        };
        let window = Window {
            sent,
            received: Instant::now(),
        };
        Exchange {
            status,
            headers,
            body,
            window,
            sent_at,
        }
    }

    /// How the report names the target.
    pub fn description(&self) -> &str {
        &self.description
    }
}

fn socket_address(base: &Url) -> Result<SocketAddr, ProbeError> {
    let host = base
        .host_str()
        .ok_or_else(|| ProbeError::BaseUrl(base.to_string()))?;
    let port = base
        .port_or_known_default()
        .ok_or_else(|| ProbeError::BaseUrl(base.to_string()))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    (host, port)
        .to_socket_addrs()
        .ok()
        .and_then(|mut addresses| addresses.next())
        .ok_or_else(|| ProbeError::Resolve(host.to_owned()))
}

fn ca_certificate(path: &std::path::Path) -> Result<reqwest::Certificate, ProbeError> {
    let refused = |reason: String| ProbeError::Ca(format!("{}: {reason}", path.display()));
    let pem = std::fs::read(path).map_err(|error| refused(error.to_string()))?;
    reqwest::Certificate::from_pem(&pem).map_err(|error| refused(error.to_string()))
}

fn transport_error(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "connection failed"
    } else {
        "request failed"
    };
    let mut cause: Option<&dyn std::error::Error> = Some(error);
    let mut innermost = String::new();
    while let Some(current) = cause {
        innermost = current.to_string();
        cause = current.source();
    }
    format!("{kind}: {innermost}")
}

fn describe(base: &str, endpoints: &BTreeMap<Service, Endpoint>) -> String {
    let parts: Vec<String> = endpoints
        .iter()
        .map(|(service, endpoint)| {
            if endpoint.via_ingress {
                let host = endpoint.url.split("://").nth(1).unwrap_or_default();
                format!(
                    "{service} as {}",
                    host.split(':').next().unwrap_or_default()
                )
            } else {
                format!("{service} at {}", endpoint.url)
            }
        })
        .collect();
    if endpoints.values().any(|endpoint| endpoint.via_ingress) {
        format!("the ingress at {base} ({})", parts.join(", "))
    } else {
        parts.join(", ")
    }
}
