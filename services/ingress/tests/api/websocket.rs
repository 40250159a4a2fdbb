//! A WebSocket through the ingress: the upgrade reaches the origin, `101` comes back, and
//! frames flow both ways until the close, on a tunnel the metrics count; a tunnel silent both
//! ways for `estate.websocketIdleTimeout` is closed, one that pings is kept.

use crate::origins::Origin;
use crate::process::Ingress;
use actix_web::http::header;
use awc::ws;
use futures_util::{SinkExt, StreamExt};

#[actix_web::test]
async fn frames_are_echoed_through_the_tunnel() {
    let origin = Origin::start("ws");
    let ingress = Ingress::start(&format!(
        "ingress:\n  - hostname: mcp.localhost\n    service: {}\n  - service: http_status:404\n",
        origin.url()
    ));
    let (response, mut socket) = awc::Client::new()
        .ws(ingress.url("/ws"))
        .set_header(header::HOST, "mcp.localhost")
        .connect()
        .await
        .expect("the upgrade goes through");
    assert_eq!(response.status().as_u16(), 101);
    assert!(
        response
            .headers()
            .get("strict-transport-security")
            .is_none(),
        "no HSTS on a plain HTTP 101"
    );
    for text in ["hello", "second frame"] {
        socket
            .send(ws::Message::Text(text.into()))
            .await
            .expect("sent");
        match socket.next().await {
            Some(Ok(ws::Frame::Text(bytes))) => assert_eq!(bytes, format!("echo: {text}")),
            other => panic!("expected a text frame, got {other:?}"),
        }
    }
    socket
        .send(ws::Message::Binary(vec![0, 1, 2, 255].into()))
        .await
        .expect("sent");
    match socket.next().await {
        Some(Ok(ws::Frame::Binary(bytes))) => assert_eq!(&bytes[..], [0, 1, 2, 255]),
        other => panic!("expected a binary frame, got {other:?}"),
    }
    let metrics = ingress.metrics().await;
    assert!(metrics.contains("ingress_websocket_tunnels 1"), "{metrics}");
    socket
        .send(ws::Message::Close(Some(ws::CloseCode::Normal.into())))
        .await
        .expect("close sent");
    match socket.next().await {
        Some(Ok(ws::Frame::Close(reason))) => {
            assert_eq!(
                reason.map(|reason| reason.code),
                Some(ws::CloseCode::Normal)
            );
        }
        other => panic!("expected the close, got {other:?}"),
    }
}

#[actix_web::test]
async fn an_upgrade_to_a_dead_origin_is_the_502() {
    let ingress = Ingress::start("ingress:\n  - service: http://127.0.0.1:9\n");
    let answer = awc::Client::new().ws(ingress.url("/ws")).connect().await;
    match answer {
        Err(awc::error::WsClientError::InvalidResponseStatus(status)) => {
            assert_eq!(status.as_u16(), 502);
        }
        Err(other) => panic!("expected the 502, got {other:?}"),
        Ok(_) => panic!("an upgrade to a dead origin succeeded"),
    }
}

#[actix_web::test]
async fn a_silent_tunnel_is_closed_and_a_pinged_one_kept() {
    let origin = Origin::start("ws-idle");
    let ingress = Ingress::start(&format!(
        "ingress:\n  - service: {}\nestate:\n  websocketIdleTimeout: 2s\n",
        origin.url()
    ));
    let open = || awc::Client::new().ws(ingress.url("/ws")).connect();
    let (_, mut silent) = open().await.expect("the upgrade goes through");
    let (_, mut pinged) = open().await.expect("the upgrade goes through");
    // Two idle timeouts: the pinged tunnel hears a ping (and its pong) every 300 ms.
    for _ in 0..14 {
        pinged
            .send(ws::Message::Ping("still here".into()))
            .await
            .expect("a ping through the open tunnel");
        match pinged.next().await {
            Some(Ok(ws::Frame::Pong(_))) => {}
            other => panic!("expected the pong, got {other:?}"),
        }
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
    let closed = tokio::time::timeout(std::time::Duration::from_secs(8), silent.next()).await;
    assert!(
        matches!(closed, Ok(None | Some(Err(_)))),
        "the silent tunnel is still open: {closed:?}"
    );
    pinged
        .send(ws::Message::Text("after the pings".into()))
        .await
        .expect("sent");
    match pinged.next().await {
        Some(Ok(ws::Frame::Text(bytes))) => assert_eq!(bytes, "echo: after the pings"),
        other => panic!("expected a text frame, got {other:?}"),
    }
}
