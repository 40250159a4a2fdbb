//! The admin port and the drain: `/health` and `/metrics` live beside the proxied port (no
//! hostname of the ingress file reaches them), `--healthcheck` probes `/health`, and SIGTERM
//! lets an in-flight request finish while new connections are refused.

use crate::origins::Origin;
use crate::process::Ingress;
use std::process::Command;
use std::time::Duration;

#[actix_web::test]
async fn health_and_metrics_are_on_the_admin_port_only() {
    let origin = Origin::start("app");
    let ingress = Ingress::start(&format!("ingress:\n  - service: {}\n", origin.url()));
    let client = crate::client();
    let health = client
        .get(ingress.admin_url("/health"))
        .send()
        .await
        .expect("health");
    assert_eq!(health.status().as_u16(), 200);
    assert_eq!(health.headers()["content-type"], "application/json");
    assert_eq!(health.text().await.expect("body"), r#"{"status":"UP"}"#);
    let proxied: serde_json::Value = client
        .get(ingress.url("/metrics"))
        .send()
        .await
        .expect("proxied")
        .json()
        .await
        .expect("the origin's echo");
    assert_eq!(
        proxied["origin"], "app",
        "the proxied port proxies every path"
    );
    let metrics = client
        .get(ingress.admin_url("/metrics"))
        .send()
        .await
        .expect("metrics");
    assert_eq!(
        metrics.headers()["content-type"],
        "application/openmetrics-text; version=1.0.0; charset=utf-8"
    );
    let text = metrics.text().await.expect("text");
    for expected in [
        r#"ingress_requests_total{rule="0",code="200"} 1"#,
        "# TYPE ingress_request_duration_seconds histogram",
        &format!(
            r#"ingress_origin_up{{origin="127.0.0.1:{}"}} 1"#,
            origin.port
        ),
        &format!(r#"ingress_pool_origins_up{{service="{}"}} 1"#, origin.url()),
        "ingress_inflight_requests 0",
    ] {
        assert!(text.contains(expected), "{expected} missing from:\n{text}");
    }
    let probe = |port: u16| {
        Command::new(env!("CARGO_BIN_EXE_ingress"))
            .arg("--healthcheck")
            .env("INGRESS_ADMIN_PORT", port.to_string())
            .output()
            .expect("runs")
            .status
            .code()
    };
    assert_eq!(probe(ingress.admin.port()), Some(0));
    let nobody = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let free = nobody.local_addr().expect("addr").port();
    drop(nobody);
    assert_eq!(probe(free), Some(1), "nothing listening is unhealthy");
    let proxied = client
        .get(ingress.url("/health"))
        .send()
        .await
        .expect("proxied");
    let body = proxied.text().await.expect("body");
    assert_eq!(body, "ok", "the proxied port's /health is the origin's");
}

#[actix_web::test]
async fn sigterm_drains_in_flight_requests_and_refuses_new_connections() {
    let origin = Origin::start("slow");
    let mut ingress = Ingress::start(&format!(
        "ingress:\n  - service: {}\nestate:\n  drainTimeout: 10s\n",
        origin.url()
    ));
    let client = crate::client();
    let in_flight = tokio::spawn(client.get(ingress.url("/slow?ms=4000")).send());
    tokio::time::sleep(Duration::from_millis(400)).await;
    ingress.terminate();
    // Closing the listeners takes the workers a moment, longer on a loaded machine: poll, and
    // check that the request sent before the stop is still in flight when they are closed.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        let health = crate::client()
            .get(ingress.admin_url("/health"))
            .send()
            .await
            .expect("the admin port answers during the drain");
        let health_status = health.status().as_u16();
        let refused = tokio::net::TcpStream::connect(ingress.proxy).await.is_err();
        if health_status == 503 && refused {
            assert_eq!(health.text().await.expect("body"), r#"{"status":"DOWN"}"#);
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "3 s after SIGTERM: health {health_status}, new connections refused: {refused}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        !in_flight.is_finished(),
        "the drain closed the listeners only after the in-flight request ended"
    );
    let response = in_flight
        .await
        .expect("joined")
        .expect("the in-flight request finishes");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.text().await.expect("body"), "slow slept 4000 ms");
    let status = ingress.wait_exit(Duration::from_secs(10));
    assert!(status.success(), "{status:?}\n{}", ingress.log_text());
    assert!(
        ingress.log_text().contains("drained; exiting"),
        "{}",
        ingress.log_text()
    );
}
