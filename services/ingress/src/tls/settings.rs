//! The TLS settings in force: each `INGRESS_TLS_*` variable over its `estate.tls` key, then
//! checked as a whole (a certificate needs its key; a redirect needs somewhere to go).

use super::TlsError;
use super::certificate::PairFiles;
use crate::config::{PlainHttp, TlsFile};
use crate::settings::Settings;
use platform_core::ListenConfig;
use std::time::Duration;

/// The TLS port by default.
pub const DEFAULT_TLS_PORT: u16 = 8443;
/// How often the pair's files are read again by default.
pub const DEFAULT_RELOAD_INTERVAL: Duration = Duration::from_secs(5);

/// Where and what TLS serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    /// The pair's files.
    pub files: PairFiles,
    /// `BIND_ADDR` and the TLS port.
    pub listen: ListenConfig,
    /// Time between two looks at the files.
    pub reload_interval: Duration,
}

/// TLS, when configured, and the plain port's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transports {
    /// `None`: plain HTTP only.
    pub tls: Option<TlsSettings>,
    /// `redirect` by default with TLS, `serve` without.
    pub plain_http: PlainHttp,
}

impl Transports {
    /// The variables in `settings` over the file's keys.
    pub fn resolve(settings: &Settings, file: &TlsFile) -> Result<Self, TlsError> {
        let env = &settings.tls;
        let cert = env.cert.clone().or_else(|| file.cert_file.clone());
        let key = env.key.clone().or_else(|| file.key_file.clone());
        let files = match (cert, key) {
            (Some(cert), Some(key)) => Some(PairFiles { cert, key }),
            (None, None) => None,
            (Some(_), None) => return Err(TlsError::Unpaired { missing: KEY }),
            (None, Some(_)) => return Err(TlsError::Unpaired { missing: CERT }),
        };
        let plain_http = env.plain_http.or(file.plain_http);
        let tls = files.map(|files| TlsSettings {
            files,
            listen: ListenConfig {
                port: env.port.or(file.port).unwrap_or(DEFAULT_TLS_PORT),
                ..settings.listen
            },
            reload_interval: file.reload_interval.unwrap_or(DEFAULT_RELOAD_INTERVAL),
        });
        let plain_http = match (plain_http, &tls) {
            (Some(PlainHttp::Redirect), None) => return Err(TlsError::RedirectWithoutTls),
            (Some(chosen), _) => chosen,
            (None, Some(_)) => PlainHttp::Redirect,
            (None, None) => PlainHttp::Serve,
        };
        Ok(Self { tls, plain_http })
    }
}

const CERT: &str = "estate.tls.certFile (or INGRESS_TLS_CERT)";
const KEY: &str = "estate.tls.keyFile (or INGRESS_TLS_KEY)";

#[cfg(test)]
mod tests;
