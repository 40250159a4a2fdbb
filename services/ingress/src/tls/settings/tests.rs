//! Which setting wins, and the combinations refused.

use super::*;
use crate::config::IngressConfig;
use platform_core::MapEnv;
use std::path::{Path, PathBuf};

fn file(estate: &str) -> TlsFile {
    let yaml = format!("ingress:\n  - service: http_status:404\nestate:\n{estate}");
    IngressConfig::parse(&yaml, Path::new("t.yml"))
        .expect("valid")
        .estate
        .tls
}

fn settings(pairs: &[(&str, &str)]) -> Settings {
    let env: MapEnv = pairs.iter().copied().collect();
    Settings::from_env(&env).expect("valid variables")
}

#[test]
fn without_tls_plain_http_is_served() {
    let transports = Transports::resolve(&settings(&[]), &TlsFile::default()).expect("valid");
    assert_eq!(transports.tls, None);
    assert_eq!(transports.plain_http, PlainHttp::Serve);
}

#[test]
fn the_file_alone_gives_tls_on_8443_and_a_redirect() {
    let tls = file("  tls:\n    certFile: c.pem\n    keyFile: k.pem\n");
    let transports = Transports::resolve(&settings(&[]), &tls).expect("valid");
    let served = transports.tls.expect("tls");
    assert_eq!(served.files.cert, PathBuf::from("c.pem"));
    assert_eq!(served.files.key, PathBuf::from("k.pem"));
    assert_eq!(served.listen.port, 8443);
    assert_eq!(served.reload_interval, Duration::from_secs(5));
    assert_eq!(transports.plain_http, PlainHttp::Redirect);
}

#[test]
fn each_variable_wins_over_its_key() {
    let tls = file(
        "  plainHttp: redirect\n  tls:\n    certFile: c.pem\n    keyFile: k.pem\n    port: 9443\n    reloadInterval: 250ms\n",
    );
    let env = settings(&[
        ("INGRESS_TLS_CERT", "/run/c.pem"),
        ("INGRESS_TLS_PORT", "10443"),
        ("INGRESS_PLAIN_HTTP", "serve"),
    ]);
    let transports = Transports::resolve(&env, &tls).expect("valid");
    let served = transports.tls.expect("tls");
    assert_eq!(served.files.cert, PathBuf::from("/run/c.pem"));
    assert_eq!(served.files.key, PathBuf::from("k.pem"));
    assert_eq!(served.listen.port, 10443);
    assert_eq!(served.reload_interval, Duration::from_millis(250));
    assert_eq!(transports.plain_http, PlainHttp::Serve);
}

#[test]
fn half_a_pair_and_a_redirect_to_nowhere_are_refused() {
    let cases = [
        (
            settings(&[("INGRESS_TLS_CERT", "c.pem")]),
            TlsFile::default(),
            "a certificate needs both files: estate.tls.keyFile (or INGRESS_TLS_KEY) is not set",
        ),
        (
            settings(&[]),
            file("  tls:\n    keyFile: k.pem\n"),
            "a certificate needs both files: estate.tls.certFile (or INGRESS_TLS_CERT) is not set",
        ),
        (
            settings(&[("INGRESS_PLAIN_HTTP", "redirect")]),
            TlsFile::default(),
            "estate.plainHttp (or INGRESS_PLAIN_HTTP) is redirect, but no certificate is set: plain HTTP would redirect to a port nobody serves",
        ),
    ];
    for (env, tls, expected) in cases {
        let error = Transports::resolve(&env, &tls).expect_err("refused");
        assert_eq!(error.to_string(), expected);
    }
}

#[test]
fn the_file_keys_are_checked_when_read() {
    let yaml = |estate: &str| format!("ingress:\n  - service: http_status:404\nestate:\n{estate}");
    for (estate, expected) in [
        (
            "  plainHttp: sometimes\n",
            "estate.plainHttp: expected redirect or serve",
        ),
        (
            "  tls:\n    reloadInterval: 0s\n",
            "estate.tls.reloadInterval: must be more than 0s",
        ),
    ] {
        let error = IngressConfig::parse(&yaml(estate), Path::new("t.yml"))
            .expect_err("refused")
            .to_string();
        assert_eq!(error, expected);
    }
}
