//! `estate.tls` and `estate.plainHttp` as the file writes them: where the certificate chain
//! and key are, the TLS port, how often the files are looked at again, and what the plain
//! HTTP port answers. The variables (`INGRESS_TLS_*`) override these key by key
//! (`crate::tls::settings`).

use super::IngressError;
use super::duration::parse_duration;
use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;

/// `estate.tls` as written.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawTls {
    /// The certificate chain, PEM, leaf first.
    pub cert_file: Option<String>,
    /// Its private key, PEM (PKCS#8, PKCS#1 or SEC1).
    pub key_file: Option<String>,
    /// The TLS port (default 8443).
    pub port: Option<u16>,
    /// How often both files are read again for a new pair (default 5s).
    pub reload_interval: Option<String>,
}

/// What the plain HTTP port does with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlainHttp {
    /// `308` to the same host and path on the TLS port.
    Redirect,
    /// Proxied as on the TLS port, without HSTS.
    Serve,
}

/// `estate.tls` and `estate.plainHttp`, checked but not yet merged with the variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsFile {
    /// `estate.tls.certFile`.
    pub cert_file: Option<PathBuf>,
    /// `estate.tls.keyFile`.
    pub key_file: Option<PathBuf>,
    /// `estate.tls.port`.
    pub port: Option<u16>,
    /// `estate.tls.reloadInterval`.
    pub reload_interval: Option<Duration>,
    /// `estate.plainHttp`.
    pub plain_http: Option<PlainHttp>,
}

impl TlsFile {
    /// Checks the two keys; a missing `estate.tls` is no TLS from the file.
    pub fn resolve(raw: Option<&RawTls>, plain_http: Option<&str>) -> Result<Self, IngressError> {
        let raw = raw.cloned().unwrap_or_default();
        let reload_interval = raw
            .reload_interval
            .as_deref()
            .map(|text| parse_duration("estate.tls.reloadInterval", text))
            .transpose()?;
        if reload_interval.is_some_and(|interval| interval.is_zero()) {
            return Err(invalid("estate.tls.reloadInterval", "must be more than 0s"));
        }
        Ok(Self {
            cert_file: raw.cert_file.map(PathBuf::from),
            key_file: raw.key_file.map(PathBuf::from),
            port: raw.port,
            reload_interval,
            plain_http: plain_http.map(parse_plain_http).transpose()?,
        })
    }
}

/// `redirect` or `serve`.
pub fn parse_plain_http(text: &str) -> Result<PlainHttp, IngressError> {
    match text {
        "redirect" => Ok(PlainHttp::Redirect),
        "serve" => Ok(PlainHttp::Serve),
        _ => Err(invalid("estate.plainHttp", "expected redirect or serve")),
    }
}

fn invalid(key: &str, reason: &str) -> IngressError {
    IngressError::Invalid {
        key: key.to_owned(),
        reason: reason.to_owned(),
    }
}
