//! Why TLS could not be set up, or why a new pair was refused on reload. At start-up each is
//! a refused configuration (exit 64); on reload it is logged and the pair in force kept.

use std::path::PathBuf;

/// A refused TLS setting or certificate pair.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A certificate without its key, or a key without its certificate.
    #[error("a certificate needs both files: {missing} is not set")]
    Unpaired {
        /// The key or variable that is missing.
        missing: &'static str,
    },
    /// `plainHttp: redirect` without a certificate.
    #[error(
        "estate.plainHttp (or INGRESS_PLAIN_HTTP) is redirect, but no certificate is set: plain HTTP would redirect to a port nobody serves"
    )]
    RedirectWithoutTls,
    /// A file that cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A file larger than any PEM pair.
    #[error("{path} is larger than {limit} bytes: not a PEM certificate or key")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The bound.
        limit: u64,
    },
    /// The chain file holds no certificate, or a broken one.
    #[error("{path} is not a PEM certificate chain: {reason}")]
    Chain {
        /// The file.
        path: PathBuf,
        /// What the PEM reader said.
        reason: String,
    },
    /// The key file holds no key rustls can read.
    #[error("{path} is not a PEM private key: {reason}")]
    Key {
        /// The file.
        path: PathBuf,
        /// What the PEM reader said.
        reason: String,
    },
    /// The key is not the leaf certificate's, or the provider cannot sign with it.
    #[error("{key} is not the key of the certificate in {cert}: {reason}")]
    Mismatch {
        /// The chain file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
        /// What rustls said.
        reason: String,
    },
    /// rustls refused the server configuration.
    #[error("TLS cannot be set up: {0}")]
    Rustls(#[from] rustls::Error),
    /// The SIGHUP handler could not be installed.
    #[error("cannot listen for SIGHUP: {0}")]
    Signal(std::io::Error),
}
