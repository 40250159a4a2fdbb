//! One request id from the edge into the origin's log: the ingress mints `x-request-id` (or
//! keeps a trusted peer's well-formed one), sends it to the origin, echoes it on every answer
//! it gives and writes it in its access line; `traceparent`/`tracestate` pass untouched.

use crate::origins::Origin;
use crate::process::Ingress;
use serde_json::Value;
use std::time::{Duration, Instant};
use testkit::request_id::{echoed, is_minted};

/// The ingress's access line for `id`, waiting for its stderr to be read.
pub fn access_line(ingress: &Ingress, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let text = ingress.log_text();
        let lines: Vec<Value> = text
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|line| line["target"] == "ingress::access" && line["request_id"] == id)
            .collect();
        match lines.as_slice() {
            [line] => return line.clone(),
            [] if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => panic!("one access line for {id}: {text}"),
        }
    }
}

/// A GET through the ingress with `headers`: its status, its id and what the origin saw.
async fn through(ingress: &Ingress, path: &str, headers: &[(&str, &str)]) -> (u16, String, Value) {
    let mut request = crate::client().get(ingress.url(path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("the ingress answers");
    let id = echoed(response.headers());
    let status = response.status().as_u16();
    let seen = response.json().await.expect("the echo");
    (status, id, seen)
}

#[actix_web::test]
async fn the_id_is_minted_sent_to_the_origin_echoed_and_logged() {
    let origin = Origin::start("echo");
    let ingress = Ingress::start(&format!(
        "ingress:\n  - hostname: gone.localhost\n    service: http_status:410\n  - hostname: api.localhost\n    service: {}\n  - service: http_status:404\n",
        origin.url()
    ));
    let headers = [
        ("host", "api.localhost"),
        ("x-request-id", "client-chosen-id"),
    ];
    let (status, id, seen) = through(&ingress, "/echo/path?token=secret", &headers).await;
    assert_eq!(status, 200);
    assert!(is_minted(&id), "{id}");
    assert_eq!(
        seen["headers"]["x-request-id"],
        id.as_str(),
        "one value: {seen}"
    );
    let line = access_line(&ingress, &id);
    assert_eq!(line["level"], "INFO");
    assert_eq!(line["message"], "answered");
    assert_eq!(line["method"], "GET");
    assert_eq!(line["host"], "api.localhost");
    assert_eq!(line["path"], "/echo/path");
    assert_eq!(line["status"], 200);
    assert_eq!(line["rule"], 1);
    assert!(line["duration_ms"].as_f64().is_some(), "{line}");
    let log = ingress.log_text();
    assert!(!log.contains("secret"), "no query string: {log}");
    assert!(!log.contains("client-chosen-id"), "no client's id: {log}");
}

#[actix_web::test]
async fn a_client_never_chooses_its_id_unless_its_peer_is_trusted() {
    let origin = Origin::start("echo");
    let untrusted = Ingress::start(&format!(
        "ingress:\n  - service: {}\nestate:\n  requestId:\n    trustFrom: [10.0.0.0/8, \"fd00::/8\"]\n",
        origin.url()
    ));
    let well_formed = "edge-upstream-0af7651916cd43dd";
    let cases: [&[(&str, &str)]; 4] = [
        &[("x-request-id", well_formed)],
        &[("x-request-id", well_formed), ("x-request-id", well_formed)],
        &[
            ("x-request-id", well_formed),
            ("connection", "x-request-id"),
        ],
        &[("X-Request-ID", well_formed)],
    ];
    let mut ids = Vec::new();
    for headers in cases {
        let (status, id, seen) = through(&untrusted, "/echo", headers).await;
        assert_eq!(status, 200);
        assert!(is_minted(&id), "{headers:?}: {id}");
        assert_eq!(seen["headers"]["x-request-id"], id.as_str(), "{headers:?}");
        access_line(&untrusted, &id);
        ids.push(id);
    }
    ids.dedup();
    assert_eq!(ids.len(), cases.len(), "fresh every time: {ids:?}");
    assert!(!untrusted.log_text().contains(well_formed));
}

#[actix_web::test]
async fn a_trusted_peer_keeps_only_a_well_formed_id() {
    let origin = Origin::start("echo");
    let trusted = Ingress::start(&format!(
        "ingress:\n  - service: {}\nestate:\n  requestId:\n    trustFrom: [127.0.0.1/32]\n",
        origin.url()
    ));
    for kept in [
        "8f1e2d3c4b5a6978-AMS",
        "123e4567-e89b-12d3-a456-426614174000",
    ] {
        let (status, id, seen) = through(&trusted, "/echo", &[("x-request-id", kept)]).await;
        assert_eq!((status, id.as_str()), (200, kept));
        assert_eq!(seen["headers"]["x-request-id"], kept);
        access_line(&trusted, kept);
    }
    let too_long = "a".repeat(65);
    let malformed: [&[(&str, &str)]; 6] = [
        &[],
        &[("x-request-id", "")],
        &[("x-request-id", too_long.as_str())],
        &[("x-request-id", "a b")],
        &[("x-request-id", "{\"level\":\"ERROR\"}")],
        &[("x-request-id", "one"), ("x-request-id", "two")],
    ];
    for headers in malformed {
        let (status, id, seen) = through(&trusted, "/echo", headers).await;
        assert_eq!(status, 200);
        assert!(is_minted(&id), "{headers:?}: {id}");
        assert_eq!(seen["headers"]["x-request-id"], id.as_str(), "{headers:?}");
    }
    let log = trusted.log_text();
    assert!(!log.contains("ERROR\\\""), "{log}");
    assert!(!log.contains(&too_long), "{log}");
}

#[actix_web::test]
async fn every_answer_the_edge_makes_itself_carries_its_id() {
    let dead = testkit::free_port();
    let ingress = Ingress::start(&format!(
        "ingress:\n  - hostname: gone.localhost\n    service: http_status:410\n  - hostname: api.localhost\n    service: http://127.0.0.1:{dead}\n  - service: http_status:404\n"
    ));
    for (host, status, rule) in [
        ("gone.localhost", 410, 0),
        ("api.localhost", 502, 1),
        ("other.test", 404, 2),
    ] {
        let response = crate::client()
            .post(ingress.url("/x?code=1"))
            .header("host", host)
            .send()
            .await
            .expect("the ingress answers");
        assert_eq!(response.status().as_u16(), status, "{host}");
        let id = echoed(response.headers());
        assert!(is_minted(&id), "{host}: {id}");
        let line = access_line(&ingress, &id);
        assert_eq!(
            (
                &line["method"],
                &line["status"],
                &line["rule"],
                &line["path"]
            ),
            (
                &Value::from("POST"),
                &Value::from(status),
                &Value::from(rule),
                &Value::from("/x")
            ),
            "{line}"
        );
    }
}

#[actix_web::test]
async fn the_access_line_holds_a_bounded_host_path_and_method() {
    let origin = Origin::start("echo");
    let ingress = Ingress::start(&format!("ingress:\n  - service: {}\n", origin.url()));
    let host = format!("{}.example", "h".repeat(1000));
    let path = format!("/{}", "p".repeat(4000));
    let method = reqwest::Method::from_bytes("M".repeat(100).as_bytes()).expect("a token");
    let response = crate::client()
        .request(method, ingress.url(&path))
        .header("host", &host)
        .send()
        .await
        .expect("the ingress answers");
    // A method `Allow` does not name is the edge's 405, and its access line is bounded too.
    assert_eq!(response.status().as_u16(), 405);
    let line = access_line(&ingress, &echoed(response.headers()));
    assert_eq!(line["host"], format!("{}…", &host[..256]));
    assert_eq!(line["path"], format!("{}…", &path[..256]));
    assert_eq!(line["method"], format!("{}…", "M".repeat(16)));
}

#[actix_web::test]
async fn trace_context_passes_through_untouched_both_ways() {
    let origin = Origin::start("traced");
    let ingress = Ingress::start(&format!("ingress:\n  - service: {}\n", origin.url()));
    let parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let response = crate::client()
        .get(ingress.url("/trace"))
        .header("traceparent", parent)
        .header("tracestate", "congo=t61rcWkgMzE")
        .header("tracestate", "rojo=00f067aa0ba902b7")
        .send()
        .await
        .expect("the ingress answers");
    assert_eq!(response.status().as_u16(), 200);
    let lines = |name: &str| -> Vec<String> {
        response
            .headers()
            .get_all(name)
            .iter()
            .map(|value| value.to_str().expect("ascii").to_owned())
            .collect()
    };
    assert_eq!(lines("traceparent"), [parent]);
    assert_eq!(
        lines("tracestate"),
        ["congo=t61rcWkgMzE", "rojo=00f067aa0ba902b7"]
    );
    let id = echoed(response.headers());
    assert_ne!(id, "0af7651916cd43dd8448eb211c80319c", "the id is its own");
}

#[actix_web::test]
async fn what_a_client_writes_in_host_and_path_cannot_forge_a_line() {
    let origin = Origin::start("echo");
    let ingress = Ingress::start(&format!("ingress:\n  - service: {}\n", origin.url()));
    let forged = r#"x","level":"ERROR","request_id":"forged"#;
    for (host, logged) in [(forged, forged), ("caf\u{e9}.localhost", "")] {
        let host_value =
            reqwest::header::HeaderValue::from_bytes(host.as_bytes()).expect("sendable");
        let response = crate::client()
            .get(ingress.url("/a%0A%22b%7D"))
            .header("host", host_value)
            .send()
            .await
            .expect("the ingress answers");
        let line = access_line(&ingress, &echoed(response.headers()));
        assert_eq!(line["level"], "INFO");
        assert_eq!(line["status"], response.status().as_u16(), "{host}");
        assert_eq!(line["host"], logged, "{host}");
        assert_eq!(line["path"], "/a%0A%22b%7D", "as written, still encoded");
    }
    assert!(!ingress.log_text().contains("\"request_id\":\"forged\""));
}
