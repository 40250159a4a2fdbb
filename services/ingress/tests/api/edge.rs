//! What the ingress answers itself, as a tunnel's edge does: the 502 for an origin that
//! is not there (whole body `error code: 502`, no CORS headers, whatever the `Origin`; only
//! the request's id beside the edge's own headers) and `http_status:NNN` rules, here on plain
//! HTTP, where no answer carries HSTS (HTTPS, where every one does: `tls.rs`); and HSTS
//! switched off on HTTPS.

use crate::origins::Origin;
use crate::process::Ingress;
use std::collections::BTreeSet;

/// A port nobody listens on.
fn dead_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

fn names(response: &reqwest::Response) -> BTreeSet<String> {
    response
        .headers()
        .keys()
        .map(|name| name.as_str().to_owned())
        .collect()
}

#[actix_web::test]
async fn an_unreachable_origin_is_the_edge_502_and_nothing_else() {
    let dead = dead_port();
    let ingress = Ingress::start(&format!(
        "ingress:\n  - hostname: api.localhost\n    service: http://127.0.0.1:{dead}\n  - service: http_status:404\n"
    ));
    let client = crate::client();
    for method in [
        reqwest::Method::GET,
        reqwest::Method::POST,
        reqwest::Method::OPTIONS,
    ] {
        let response = client
            .request(method.clone(), ingress.url("/api/v1/auth/login"))
            .header("host", "api.localhost")
            .header("origin", "http://localhost:3000")
            .header("access-control-request-method", "POST")
            .body("{}")
            .send()
            .await
            .expect("the ingress answers");
        assert_eq!(response.status().as_u16(), 502, "{method}");
        let expected: BTreeSet<String> = ["content-length", "content-type", "date", "x-request-id"]
            .map(str::to_owned)
            .into();
        assert_eq!(
            names(&response),
            expected,
            "{method}: no access-control-*, no HSTS over plain HTTP, nothing else"
        );
        let header = |name: &str| response.headers()[name].to_str().expect("ascii").to_owned();
        assert_eq!(header("content-type"), "text/plain; charset=UTF-8");
        assert_eq!(header("content-length"), "15");
        assert_eq!(response.text().await.expect("body"), "error code: 502");
    }
    let metrics = ingress.metrics().await;
    let none_up = format!(r#"ingress_pool_origins_up{{service="http://127.0.0.1:{dead}"}} 0"#);
    assert!(
        metrics.contains(&none_up),
        "a service with no origin up says so (what an alert watches):\n{metrics}"
    );
}

#[actix_web::test]
async fn status_rules_answer_here_with_an_empty_body() {
    let ingress = Ingress::start(
        "ingress:\n  - hostname: gone.localhost\n    service: http_status:410\n  - service: http_status:404\n",
    );
    let client = crate::client();
    for (host, status) in [("gone.localhost", 410), ("anything.test", 404)] {
        let response = client
            .get(ingress.url("/x"))
            .header("host", host)
            .send()
            .await
            .expect("the ingress answers");
        assert_eq!(response.status().as_u16(), status);
        assert!(
            response
                .headers()
                .get("strict-transport-security")
                .is_none()
        );
        assert_eq!(response.headers()["content-length"], "0");
        assert_eq!(response.text().await.expect("body"), "");
    }
}

#[actix_web::test]
async fn hsts_can_be_switched_off() {
    let origin = Origin::start("plain");
    let cert = crate::secure::DevCert::make();
    let ingress = cert.ingress(
        &format!(
            "ingress:\n  - service: {}\nestate:\n  edgeHeaders:\n    hsts: false\n",
            origin.url()
        ),
        &[],
    );
    let response = cert
        .client(ingress.tls())
        .get(format!(
            "https://{}:{}/echo",
            crate::secure::HOST,
            ingress.tls().port()
        ))
        .send()
        .await
        .expect("the ingress answers");
    assert_eq!(response.status().as_u16(), 200);
    assert!(
        response
            .headers()
            .get("strict-transport-security")
            .is_none()
    );
}

#[actix_web::test]
async fn an_origins_own_hsts_is_replaced_on_https() {
    let port = crate::headers::raw_origin().await;
    let cert = crate::secure::DevCert::make();
    let ingress = cert.ingress(
        &format!("ingress:\n  - service: http://127.0.0.1:{port}\n"),
        &[],
    );
    let response = cert
        .client(ingress.tls())
        .get(format!(
            "https://{}:{}/",
            crate::secure::HOST,
            ingress.tls().port()
        ))
        .send()
        .await
        .expect("the ingress answers");
    let values: Vec<&str> = response
        .headers()
        .get_all("strict-transport-security")
        .iter()
        .map(|value| value.to_str().expect("ascii"))
        .collect();
    assert_eq!(
        values,
        ["max-age=31536000; includeSubDomains"],
        "not max-age=1"
    );
}
