//! The certificate in force. rustls asks it once per handshake, so swapping it changes what
//! new connections are shown and nothing else: an established connection keeps the session
//! it negotiated, whatever is swapped in after.

use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use std::sync::{Arc, PoisonError, RwLock};

/// One certificate for every name (the development certificate and a wildcard cover the
/// estate's hostnames), replaced whole on reload.
#[derive(Debug)]
pub struct Rotating {
    current: RwLock<Arc<CertifiedKey>>,
}

impl Rotating {
    /// Serves `first` until [`Rotating::replace`].
    pub fn new(first: CertifiedKey) -> Self {
        Self {
            current: RwLock::new(Arc::new(first)),
        }
    }

    /// New handshakes get `next`.
    pub fn replace(&self, next: CertifiedKey) {
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(next);
    }

    /// The pair in force.
    pub fn current(&self) -> Arc<CertifiedKey> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl ResolvesServerCert for Rotating {
    fn resolve(&self, _client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}
