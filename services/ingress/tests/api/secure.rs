//! HTTPS from the test's side: a development certificate made by `scripts/dev-cert.sh` (the
//! script a developer runs) in a temporary directory, an ingress serving it, and clients that
//! trust its CA only: reqwest (HTTP/2 or HTTP/1.1 by ALPN), hyper's own HTTP/1.1 and HTTP/2
//! clients on a TLS connection, and one raw TLS connection for requests written byte for byte
//! and for looking at the certificate a handshake was shown.

use crate::process::Ingress;
use http_body_util::Empty;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/dev-cert.sh");
/// The name every test connects as; the development certificate covers it.
pub const HOST: &str = "api.localhost";

/// A CA and a certificate for the estate's names, in a directory of their own.
pub struct DevCert {
    dir: tempfile::TempDir,
}

impl DevCert {
    /// Runs the script into a new directory.
    pub fn make() -> Self {
        let cert = Self {
            dir: tempfile::tempdir().expect("a temporary directory"),
        };
        cert.run(&[]);
        cert
    }

    /// A new certificate and key from the same CA (`--renew`), written over the old ones.
    pub fn renew(&self) {
        self.run(&["--renew"]);
    }

    fn run(&self, args: &[&str]) {
        let output = Command::new("bash")
            .arg(SCRIPT)
            .args(args)
            .env("DEV_CERT_DIR", self.dir.path())
            .output()
            .expect("bash runs scripts/dev-cert.sh");
        assert!(
            output.status.success(),
            "dev-cert.sh failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// A file of the directory (`ca.pem`, `cert.pem`, `key.pem`).
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `cert.pem`'s leaf, DER, as it is now.
    pub fn leaf(&self) -> Vec<u8> {
        CertificateDer::pem_file_iter(self.path("cert.pem"))
            .expect("cert.pem")
            .next()
            .expect("a certificate")
            .expect("PEM")
            .to_vec()
    }

    /// The variables that make an ingress serve this pair.
    pub fn env(&self) -> [(&'static str, String); 2] {
        [
            (
                "INGRESS_TLS_CERT",
                self.path("cert.pem").display().to_string(),
            ),
            (
                "INGRESS_TLS_KEY",
                self.path("key.pem").display().to_string(),
            ),
        ]
    }

    /// An ingress on `yaml` serving this pair, with `more` variables.
    pub fn ingress(&self, yaml: &str, more: &[(&str, &str)]) -> Ingress {
        let pair = self.env();
        let mut env: Vec<(&str, &str)> = pair.iter().map(|(k, v)| (*k, v.as_str())).collect();
        env.extend_from_slice(more);
        Ingress::start_with(yaml, &env)
    }

    /// A reqwest client that trusts this CA only and sends `HOST` to `tls`.
    pub fn client(&self, tls: SocketAddr) -> reqwest::Client {
        self.client_for(tls, HOST)
    }

    /// A reqwest client that trusts this CA only and sends `host` to `tls`.
    pub fn client_for(&self, tls: SocketAddr, host: &str) -> reqwest::Client {
        let ca = std::fs::read(self.path("ca.pem")).expect("ca.pem");
        reqwest::Client::builder()
            .tls_certs_only([reqwest::Certificate::from_pem(&ca).expect("a PEM CA")])
            .resolve(host, tls)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client")
    }

    /// One TLS connection to `tls` as `HOST`, offering `alpn`.
    pub async fn connect(&self, tls: SocketAddr, alpn: &[&[u8]]) -> TlsStream<TcpStream> {
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_file_iter(self.path("ca.pem")).expect("ca.pem") {
            roots.add(cert.expect("PEM")).expect("a CA");
        }
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
        let stream = TcpStream::connect(tls).await.expect("the TLS port accepts");
        TlsConnector::from(Arc::new(config))
            .connect(ServerName::try_from(HOST).expect("a name"), stream)
            .await
            .expect("the handshake succeeds")
    }

    /// Writes `bytes` on a new TLS connection and reads until the ingress closes it.
    pub async fn raw(&self, tls: SocketAddr, bytes: &[u8]) -> String {
        let mut stream = self.connect(tls, &[b"http/1.1"]).await;
        stream.write_all(bytes).await.expect("written");
        let mut answer = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer));
        // A peer that closes without close_notify is an error to rustls; the bytes are there.
        let _ = read
            .await
            .expect("the ingress closes the connection in time");
        String::from_utf8_lossy(&answer).into_owned()
    }
}

/// The leaf certificate a connection's handshake was shown, DER.
pub fn shown(stream: &TlsStream<TcpStream>) -> Vec<u8> {
    stream
        .get_ref()
        .1
        .peer_certificates()
        .and_then(|chain| chain.first())
        .expect("a certificate was shown")
        .to_vec()
}

/// HTTP/2 on a new TLS connection to `tls` that chose `h2`, its connection driven in a task.
pub async fn h2<B>(cert: &DevCert, tls: SocketAddr) -> hyper::client::conn::http2::SendRequest<B>
where
    B: hyper::body::Body + Send + Unpin + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let stream = cert.connect(tls, &[b"h2"]).await;
    let executor = hyper_util::rt::TokioExecutor::new();
    let (sender, connection) =
        hyper::client::conn::http2::handshake(executor, TokioIo::new(stream))
            .await
            .expect("HTTP/2 over the connection");
    tokio::spawn(connection);
    sender
}

/// HTTP/1.1 on an open TLS connection, kept alive.
pub async fn http1(stream: TlsStream<TcpStream>) -> SendRequest<Empty<bytes::Bytes>> {
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("HTTP/1.1 over the connection");
    tokio::spawn(connection);
    sender
}

/// `GET path` on `sender`: the status and the HSTS value.
pub async fn get(sender: &mut SendRequest<Empty<bytes::Bytes>>, path: &str) -> (u16, String) {
    let request = http::Request::get(path)
        .header("host", HOST)
        .body(Empty::new())
        .expect("a request");
    let response = sender.send_request(request).await.expect("an answer");
    let hsts = response
        .headers()
        .get("strict-transport-security")
        .map(|value| value.to_str().expect("ascii").to_owned())
        .unwrap_or_default();
    (response.status().as_u16(), hsts)
}

/// Writes `bytes` on a new plain connection to `addr` and reads until it closes.
pub async fn plain_raw(addr: SocketAddr, bytes: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr)
        .await
        .expect("the plain port accepts");
    stream.write_all(bytes).await.expect("written");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the ingress closes the connection in time")
        .expect("read");
    String::from_utf8_lossy(&answer).into_owned()
}
