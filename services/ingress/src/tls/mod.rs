//! TLS termination at the edge: the certificate pair from two PEM files, served by rustls on
//! the aws-lc-rs provider the workspace already builds; ALPN offers `h2` then `http/1.1`.
//! The pair is reloaded on SIGHUP and when its files change, without a restart and without
//! touching established connections: each handshake asks the resolver for the pair in force.
//!
//! # Layout
//! - [`settings`]: the variables over the file's keys; [`error`]: what is refused.
//! - `certificate`: a PEM pair made a rustls `CertifiedKey`; `resolver`: the pair in force;
//!   `reload`: SIGHUP and the poll.
//! - [`edge`]: what each transport answers (HSTS on HTTPS only; plain HTTP redirected or
//!   served); [`automatic`]: HSTS on the answers hyper writes itself over TLS.

pub mod automatic;
mod certificate;
pub mod edge;
pub mod error;
mod reload;
mod resolver;
pub mod settings;

pub use certificate::PairFiles;
pub use edge::{Edge, Scheme};
pub use error::TlsError;
pub use settings::{TlsSettings, Transports};

use reload::Reloader;
use resolver::Rotating;
use rustls::ServerConfig;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

/// What ALPN offers, in the order preferred.
const ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

/// A loaded pair behind an acceptor, and the watcher that will replace it.
pub struct Tls {
    /// Shared by every worker.
    pub acceptor: TlsAcceptor,
    reloader: Reloader,
}

impl Tls {
    /// Loads the pair (a bad one is refused here, before anything listens).
    pub fn load(settings: &TlsSettings) -> Result<Self, TlsError> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let (pair, bytes) = settings.files.load(&provider)?;
        let resolver = Arc::new(Rotating::new(pair));
        let mut config = ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_cert_resolver(resolver.clone());
        config.alpn_protocols = ALPN.iter().map(|protocol| protocol.to_vec()).collect();
        let reloader = Reloader::new(
            settings.files.clone(),
            resolver,
            provider,
            settings.reload_interval,
            bytes,
        );
        Ok(Self {
            acceptor: TlsAcceptor::from(Arc::new(config)),
            reloader,
        })
    }

    /// Starts watching the files (and SIGHUP) until `stop`; returns the acceptor.
    pub fn watch(self, stop: CancellationToken) -> Result<TlsAcceptor, TlsError> {
        self.reloader.spawn(stop).map_err(TlsError::Signal)?;
        Ok(self.acceptor)
    }
}
