//! A certificate pair from its two PEM files: the chain (leaf first) and the private key,
//! checked to belong together before it is ever served. The bytes read are kept, so a
//! reload can tell whether the files changed (their contents, not their mtime: a rotation
//! that keeps the mtime, or a symlink swap, is still seen).

use super::TlsError;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::sign::CertifiedKey;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest PEM file read: a chain of a few certificates is a few KiB; a path written by
/// mistake to something huge fails fast instead of filling memory.
const MAX_PEM_BYTES: u64 = 1 << 20;

/// Where the pair is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairFiles {
    /// The chain, PEM, leaf first.
    pub cert: PathBuf,
    /// The key, PEM.
    pub key: PathBuf,
}

/// Both files' bytes as read at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairBytes {
    cert: Vec<u8>,
    key: Vec<u8>,
}

impl PairFiles {
    /// Reads both files.
    pub fn read(&self) -> Result<PairBytes, TlsError> {
        Ok(PairBytes {
            cert: read_bounded(&self.cert)?,
            key: read_bounded(&self.key)?,
        })
    }

    /// Reads both files and makes them a pair `provider` can serve.
    pub fn load(&self, provider: &CryptoProvider) -> Result<(CertifiedKey, PairBytes), TlsError> {
        let bytes = self.read()?;
        Ok((self.certify(&bytes, provider)?, bytes))
    }

    /// The pair in `bytes`: a chain of at least one certificate and the key of its leaf.
    pub fn certify(
        &self,
        bytes: &PairBytes,
        provider: &CryptoProvider,
    ) -> Result<CertifiedKey, TlsError> {
        let chain = CertificateDer::pem_slice_iter(&bytes.cert)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| TlsError::Chain {
                path: self.cert.clone(),
                reason: error.to_string(),
            })?;
        if chain.is_empty() {
            return Err(TlsError::Chain {
                path: self.cert.clone(),
                reason: "no CERTIFICATE block in it".to_owned(),
            });
        }
        let key = PrivateKeyDer::from_pem_slice(&bytes.key).map_err(|error| TlsError::Key {
            path: self.key.clone(),
            reason: error.to_string(),
        })?;
        CertifiedKey::from_der(chain, key, provider).map_err(|error| TlsError::Mismatch {
            cert: self.cert.clone(),
            key: self.key.clone(),
            reason: error.to_string(),
        })
    }
}

fn read_bounded(path: &Path) -> Result<Vec<u8>, TlsError> {
    let failed = |source| TlsError::Read {
        path: path.to_owned(),
        source,
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(failed)?
        .take(MAX_PEM_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(failed)?;
    if bytes.len() as u64 > MAX_PEM_BYTES {
        return Err(TlsError::TooLarge {
            path: path.to_owned(),
            limit: MAX_PEM_BYTES,
        });
    }
    Ok(bytes)
}
