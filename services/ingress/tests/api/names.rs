//! An origin written with a name becomes one origin per address the name resolves to, each
//! checked and reported on its own (compose's `http://backend:9800` with two replicas).

use crate::origins::Origin;
use crate::process::Ingress;
use std::time::{Duration, Instant};

#[actix_web::test]
async fn a_named_origin_is_resolved_into_its_addresses() {
    let origin = Origin::start("named");
    let service = format!("http://localhost:{}", origin.port);
    let ingress = Ingress::start(&format!(
        "ingress:\n  - service: {service}\nestate:\n  pools:\n    - service: {service}\n      \
         healthCheck: {{path: /health, interval: 100ms}}\n"
    ));
    let client = crate::client();
    let resolved = format!(
        r#"ingress_origin_up{{origin="127.0.0.1:{}"}} 1"#,
        origin.port
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let metrics = ingress.metrics().await;
        if metrics.contains(&resolved) {
            assert!(
                !metrics.contains("origin=\"localhost:"),
                "the name gave way: {metrics}"
            );
            break;
        }
        assert!(Instant::now() < deadline, "never resolved:\n{metrics}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for _ in 0..3 {
        let seen: serde_json::Value = client
            .get(ingress.url("/echo"))
            .send()
            .await
            .expect("the ingress answers")
            .json()
            .await
            .expect("the echo");
        assert_eq!(seen["origin"], "named");
    }
}
