//! Only WebSocket upgrades pass: a `101` from an origin is a tunnel only when the client asked
//! for WebSocket and the origin switched to exactly that; any other `101` is the edge's 502
//! and no tunnel. A client's other upgrades (`h2c`, a WebSocket over `POST`) reach the origin
//! as plain requests, without `Upgrade`; so does a WebSocket handshake that carries a body
//! (which could never complete as an upgrade).

use crate::origins::Origin;
use crate::process::Ingress;
use crate::raw_origin::{Behaviour, RawOrigin};
use serde_json::Value;
use testkit::raw::{RawRequest, send};

fn handshake() -> RawRequest {
    RawRequest::new("GET", "/ws")
        .header("connection", "upgrade")
        .header("upgrade", "websocket")
        .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
        .header("sec-websocket-version", "13")
}

/// `101` answers that switch to something else than the WebSocket the client asked for.
const WRONG_SWITCHES: [&str; 4] = [
    "HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\n\r\n",
    "HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n",
    "HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket, h2c\r\n\r\n",
    "HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket2\r\n\r\n",
];

#[actix_web::test]
async fn a_switch_to_anything_but_the_websocket_asked_for_is_the_502() {
    for answer in WRONG_SWITCHES {
        let origin = RawOrigin::start(Behaviour::Answer(answer)).await;
        let ingress = Ingress::start(&format!("ingress:\n  - service: {}\n", origin.url()));
        let exchange = send(&ingress.proxy.to_string(), &handshake()).await;
        assert_eq!(
            (exchange.status, exchange.body.as_str()),
            (502, "error code: 502"),
            "{answer:?}"
        );
        let plain = send(&ingress.proxy.to_string(), &RawRequest::new("GET", "/x")).await;
        assert_eq!(
            (plain.status, plain.body.as_str()),
            (502, "error code: 502"),
            "a 101 nobody asked for: {answer:?}"
        );
        let metrics = ingress.metrics().await;
        let failed = format!(
            r#"ingress_origin_failures_total{{origin="127.0.0.1:{}",reason="upgrade"}} 2"#,
            origin.port
        );
        assert!(metrics.contains(&failed), "{failed} in:\n{metrics}");
        assert!(metrics.contains("ingress_websocket_tunnels 0"), "{metrics}");
    }
}

#[actix_web::test]
async fn a_switch_to_websocket_is_tunnelled() {
    let origin = RawOrigin::start(Behaviour::Answer(
        "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: WebSocket\r\n\r\n",
    ))
    .await;
    let ingress = Ingress::start(&format!("ingress:\n  - service: {}\n", origin.url()));
    let exchange = send(&ingress.proxy.to_string(), &handshake()).await;
    assert_eq!(exchange.status, 101);
    assert_eq!(exchange.header("upgrade"), Some("websocket"));
    let head = origin
        .heads()
        .pop()
        .expect("the handshake reached the origin");
    assert!(head.contains("upgrade: websocket\r\n"), "{head}");
    assert!(head.contains("connection: upgrade\r\n"), "{head}");
}

#[actix_web::test]
async fn other_upgrades_reach_the_origin_as_plain_requests() {
    let origin = Origin::start("echo");
    let ingress = Ingress::start(&format!("ingress:\n  - service: {}\n", origin.url()));
    let address = ingress.proxy.to_string();
    let h2c = RawRequest::new("GET", "/echo")
        .header("connection", "Upgrade, HTTP2-Settings")
        .header("upgrade", "h2c")
        .header("http2-settings", "AAMAAABkAAQAAP__");
    let post = handshake().to("POST", "/echo");
    let tls = RawRequest::new("OPTIONS", "/echo")
        .header("connection", "upgrade")
        .header("upgrade", "TLS/1.2");
    for request in [h2c, post, tls] {
        let exchange = send(&address, &request).await;
        assert_eq!(exchange.status, 200, "{request:?}: {}", exchange.body);
        let seen: Value = serde_json::from_str(&exchange.body).expect("the echo");
        for dropped in ["upgrade", "http2-settings"] {
            assert!(
                seen["headers"].get(dropped).is_none(),
                "{dropped} reached the origin: {seen}"
            );
        }
        assert_ne!(seen["headers"]["connection"], "upgrade", "{seen}");
    }
}

#[actix_web::test]
async fn a_websocket_handshake_with_a_body_is_no_upgrade_and_holds_nothing() {
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let origin = Origin::start("ws-body");
    let ingress = Ingress::start(&format!(
        "ingress:\n  - service: {}\nestate:\n  maxConnectionsPerClient: 1\n  \
         requestBodyTimeout: 1s\n  websocketIdleTimeout: 1s\n",
        origin.url()
    ));
    // A body announced and never sent: as an upgrade, neither side's switch could complete.
    let mut stream = tokio::net::TcpStream::connect(ingress.proxy)
        .await
        .expect("connects");
    let head = "GET /ws HTTP/1.1\r\nHost: a.test\r\nconnection: upgrade\r\nupgrade: websocket\r\n\
                sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\
                content-length: 100\r\n\r\n";
    stream.write_all(head.as_bytes()).await.expect("written");
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(8), stream.read_to_end(&mut answer));
    let _ = read.await.expect("answered and closed, not held");
    let answer = String::from_utf8_lossy(&answer);
    // The origin saw a plain request: no `Upgrade` reached it.
    assert!(
        answer.starts_with("HTTP/1.1 400 No WebSocket Upgrade header found\r\n"),
        "{answer}"
    );
    drop(stream);
    let metrics = ingress.metrics().await;
    assert!(metrics.contains("ingress_websocket_tunnels 0"), "{metrics}");
    let mut served = false;
    for _ in 0..50 {
        let plain = send(&ingress.proxy.to_string(), &RawRequest::new("GET", "/x")).await;
        if plain.status == 200 {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(served, "the connection's place came back");
}
