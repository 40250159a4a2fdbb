//! TLS at the edge: HSTS on every HTTPS answer (the proxied ones, the edge's own 502 and
//! `http_status:` answers, and the ones hyper writes itself for a request it cannot parse),
//! none on plain HTTP, which is redirected to the TLS port (or served, when set so), and a
//! bad pair refused at start-up.

use crate::origins::Origin;
use crate::process::BINARY;
use crate::secure::{DevCert, HOST, plain_raw};
use std::collections::BTreeSet;
use std::process::Command;

const HSTS: &str = "max-age=31536000; includeSubDomains";
const HSTS_LINE: &str = "strict-transport-security: max-age=31536000; includeSubDomains\r\n";

fn routes(service: &str) -> String {
    format!(
        "ingress:\n  - hostname: mcp.localhost\n    service: http_status:410\n  - hostname: {HOST}\n    service: {service}\n  - service: http_status:404\n"
    )
}

fn dead_service() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    format!("http://127.0.0.1:{port}")
}

#[actix_web::test]
async fn https_answers_carry_hsts_and_tell_the_origin_it_was_https() {
    let origin = Origin::start("tls");
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin.url()), &[]);
    let response = cert
        .client(ingress.tls())
        .get(format!("https://{HOST}:{}/echo?x=1", ingress.tls().port()))
        .header("x-forwarded-proto", "http")
        .send()
        .await
        .expect("the ingress answers over TLS");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers()["strict-transport-security"], HSTS);
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(body["path"], "/echo");
    assert_eq!(body["version"], "HTTP/1.1", "the origin hears HTTP/1.1");
    assert_eq!(
        body["headers"]["x-forwarded-proto"], "https",
        "the client's own value is replaced"
    );
}

#[actix_web::test]
async fn the_edges_own_answers_carry_hsts_on_https() {
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&dead_service()), &[]);
    let client = cert.client(ingress.tls());
    let port = ingress.tls().port();
    let bad_gateway = client
        .get(format!("https://{HOST}:{port}/api"))
        .header("origin", "http://localhost:3000")
        .send()
        .await
        .expect("an answer");
    assert_eq!(bad_gateway.status().as_u16(), 502);
    let names: BTreeSet<&str> = bad_gateway
        .headers()
        .keys()
        .map(http::HeaderName::as_str)
        .collect();
    assert_eq!(
        names,
        BTreeSet::from([
            "content-length",
            "content-type",
            "date",
            "strict-transport-security",
            "x-request-id",
        ])
    );
    assert_eq!(bad_gateway.headers()["strict-transport-security"], HSTS);
    assert_eq!(bad_gateway.text().await.expect("body"), "error code: 502");
    let gone = cert
        .client_for(ingress.tls(), "mcp.localhost")
        .get(format!("https://mcp.localhost:{port}/x"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(gone.status().as_u16(), 410);
    assert_eq!(gone.headers()["strict-transport-security"], HSTS);
    assert_eq!(gone.text().await.expect("body"), "");
}

#[actix_web::test]
async fn requests_hyper_refuses_itself_get_hsts_on_https_and_none_on_plain_http() {
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&dead_service()), &[("INGRESS_PLAIN_HTTP", "serve")]);
    let large = format!(
        "GET / HTTP/1.1\r\nHost: {HOST}\r\nx: {}\r\n\r\n",
        "a".repeat(70_000)
    );
    let cases = [
        (
            "GET / HTTP/1.1 extra\r\nHost: a\r\n\r\n".to_owned(),
            "400 Bad Request",
        ),
        (
            "GET / HTTP/1.1\r\nHost: a\r\nno colon\r\n\r\n".to_owned(),
            "400 Bad Request",
        ),
        (
            "GET /\0 HTTP/1.1\r\nHost: a\r\n\r\n".to_owned(),
            "400 Bad Request",
        ),
        (
            "GET / HTTP/1.1\r\nHost: a\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n"
                .to_owned(),
            "400 Bad Request",
        ),
        (large, "431 Request Header Fields Too Large"),
        (
            "GET /x HTTP/1.1\r\nHost: mcp.localhost\r\n\r\nBAD / HTTP/1.1\r\nHost a\r\n\r\n"
                .to_owned(),
            "400 Bad Request",
        ),
    ];
    for (request, status) in cases {
        let secure = cert.raw(ingress.tls(), request.as_bytes()).await;
        let last = secure.rfind("HTTP/1.1 ").expect("an answer");
        assert!(
            secure[last..].starts_with(&format!("HTTP/1.1 {status}\r\n{HSTS_LINE}")),
            "{request:.60?}: {secure}"
        );
        assert_eq!(
            secure.matches(HSTS_LINE).count(),
            secure.matches("HTTP/1.1 ").count(),
            "one HSTS line per answer: {secure}"
        );
        let plain = plain_raw(ingress.proxy, request.as_bytes()).await;
        assert!(plain.contains(&format!("HTTP/1.1 {status}\r\n")), "{plain}");
        assert!(!plain.contains("strict-transport-security"), "{plain}");
    }
}

#[actix_web::test]
async fn plain_http_is_redirected_to_the_same_host_and_target_on_the_tls_port() {
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&dead_service()), &[]);
    let tls = ingress.tls().port();
    let cases = [
        (
            "GET /a/b?c=1&d=%20 HTTP/1.1\r\nHost: api.localhost:8080\r\n",
            Some(format!("https://api.localhost:{tls}/a/b?c=1&d=%20")),
        ),
        (
            "POST /login HTTP/1.1\r\nHost: API.localhost\r\ncontent-length: 2\r\n",
            Some(format!("https://API.localhost:{tls}/login")),
        ),
        (
            // The URL's authority wins over Host (RFC 9112 §3.2.2), as in routing.
            "GET http://elsewhere.example/x HTTP/1.1\r\nHost: api.localhost\r\n",
            Some(format!("https://elsewhere.example:{tls}/x")),
        ),
        (
            "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n",
            Some(format!("https://[::1]:{tls}/")),
        ),
        (
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            Some(format!("https://127.0.0.1:{tls}/")),
        ),
        (
            "OPTIONS * HTTP/1.1\r\nHost: api.localhost\r\n",
            Some(format!("https://api.localhost:{tls}/")),
        ),
        ("GET / HTTP/1.1\r\nHost: user@evil.example\r\n", None),
        ("GET / HTTP/1.1\r\nHost: evil.example/x?\r\n", None),
        ("GET / HTTP/1.1\r\nHost: a b\r\n", None),
        ("GET / HTTP/1.1\r\nHost: \r\n", None),
        ("GET / HTTP/1.0\r\n", None),
    ];
    for (head, location) in cases {
        let request = format!("{head}connection: close\r\n\r\n{{}}");
        let answer = plain_raw(ingress.proxy, request.as_bytes()).await;
        match &location {
            Some(location) => {
                assert!(
                    answer.starts_with("HTTP/1.1 308 Permanent Redirect\r\n"),
                    "{head}: {answer}"
                );
                assert!(
                    answer.contains(&format!("\r\nlocation: {location}\r\n")),
                    "{head}: {answer}"
                );
                assert!(
                    answer.contains("\r\ncontent-length: 0\r\n"),
                    "{head}: {answer}"
                );
            }
            // The edge's 400, the same as on HTTPS; HTTP/1.0 is answered in HTTP/1.0.
            None => {
                assert!(
                    answer[8..].starts_with(" 400 Bad Request\r\n"),
                    "{head}: {answer}"
                );
                assert!(
                    answer.ends_with("\r\n\r\nerror code: 400"),
                    "{head}: {answer}"
                );
            }
        }
        assert!(answer.contains("\r\nx-request-id: "), "{head}: {answer}");
        assert!(
            !answer.contains("strict-transport-security"),
            "{head}: {answer}"
        );
    }
}

#[actix_web::test]
async fn plain_http_served_beside_tls_carries_no_hsts() {
    let origin = Origin::start("plain");
    let cert = DevCert::make();
    let ingress = cert.ingress(&routes(&origin.url()), &[("INGRESS_PLAIN_HTTP", "serve")]);
    let response = crate::client()
        .get(ingress.url("/echo"))
        .header("host", HOST)
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status().as_u16(), 200);
    assert!(
        response
            .headers()
            .get("strict-transport-security")
            .is_none()
    );
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(body["headers"]["x-forwarded-proto"], "http");
}

#[test]
fn a_pair_that_does_not_load_is_refused_at_start_with_exit_64() {
    let cert = DevCert::make();
    let other = DevCert::make();
    let garbage = cert.path("garbage.pem");
    std::fs::write(&garbage, "not a certificate\n").expect("written");
    let path = |name: &str| cert.path(name).display().to_string();
    let cases = [
        (path("missing.pem"), path("key.pem"), "cannot read"),
        (
            garbage.display().to_string(),
            path("key.pem"),
            "is not a PEM certificate chain: no CERTIFICATE block in it",
        ),
        (
            path("cert.pem"),
            garbage.display().to_string(),
            "is not a PEM private key",
        ),
        (
            path("cert.pem"),
            other.path("key.pem").display().to_string(),
            "is not the key of the certificate in",
        ),
    ];
    let dir = tempfile::tempdir().expect("dir");
    let config = dir.path().join("ingress.yml");
    std::fs::write(&config, "ingress:\n  - service: http_status:404\n").expect("written");
    for (cert_file, key_file, reason) in cases {
        let output = Command::new(BINARY)
            .env("INGRESS_CONFIG", &config)
            .env("PORT", "0")
            .env("INGRESS_ADMIN_PORT", "0")
            .env("INGRESS_TLS_PORT", "0")
            .env("INGRESS_TLS_CERT", &cert_file)
            .env("INGRESS_TLS_KEY", &key_file)
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(64), "{stderr}");
        assert!(stderr.contains(reason), "{reason}: {stderr}");
    }
}
