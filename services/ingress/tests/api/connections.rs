//! The edge's connection bounds (`estate.maxConnectionsPerClient`, `estate.maxConnections`):
//! a client holding its share has a further connection closed at once, on the plain port and
//! the TLS port alike, while another client is served; at the total, a new connection waits
//! until a place is free and is then served; a WebSocket tunnel keeps its connection's place
//! until it closes. Clients are told apart by their loopback address (127.0.0.2, 127.0.0.3, …);
//! on a dual-stack port an IPv4 client is still itself, not an IPv6 network (whose /64 would
//! be the one `::1` is in).

use crate::origins::Origin;
use crate::process::Ingress;
use crate::secure::{DevCert, HOST};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// How long a test waits for an answer it expects.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

fn file(origin: &Origin, bounds: &str) -> String {
    format!(
        "ingress:\n  - hostname: {HOST}\n    service: {}\n  - service: http_status:404\n\
         estate:\n{bounds}",
        origin.url()
    )
}

/// A connection to `to` from the loopback address `from`.
async fn connect_from(from: &str, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("a socket");
    let local: IpAddr = from.parse().expect("an address");
    socket.bind(SocketAddr::new(local, 0)).expect("bound");
    socket.connect(to).await.expect("the kernel accepts")
}

/// One kept-alive `GET /echo` on `stream`: the status line, or `None` when the ingress
/// closed the connection without an answer.
async fn ask(stream: &mut TcpStream) -> Option<String> {
    let request = format!("GET /echo HTTP/1.1\r\nHost: {HOST}\r\n\r\n");
    if stream.write_all(request.as_bytes()).await.is_err() {
        return None;
    }
    let mut buffer = vec![0u8; 64 * 1024];
    let read = tokio::time::timeout(ANSWER_WITHIN, stream.read(&mut buffer))
        .await
        .expect("the ingress answers or closes");
    match read {
        Ok(0) | Err(_) => None,
        Ok(read) => {
            let text = String::from_utf8_lossy(&buffer[..read]).into_owned();
            text.lines().next().map(str::to_owned)
        }
    }
}

const OK: Option<&str> = Some("HTTP/1.1 200 OK");

#[actix_web::test]
async fn a_client_past_its_share_is_closed_at_once_and_another_is_served() {
    let origin = Origin::start("share");
    let ingress = Ingress::start(&file(&origin, "  maxConnectionsPerClient: 2\n"));
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = connect_from("127.0.0.2", ingress.proxy).await;
        assert_eq!(ask(&mut stream).await.as_deref(), OK);
        held.push(stream);
    }
    for _ in 0..3 {
        let mut over = connect_from("127.0.0.2", ingress.proxy).await;
        assert_eq!(ask(&mut over).await, None, "a third connection was served");
    }
    let mut other = connect_from("127.0.0.3", ingress.proxy).await;
    assert_eq!(ask(&mut other).await.as_deref(), OK, "another client");
    for stream in &mut held {
        assert_eq!(ask(stream).await.as_deref(), OK, "the held ones still work");
    }
    let metrics = ingress.metrics().await;
    assert!(
        metrics.contains("ingress_client_connections_refused_total 3"),
        "{metrics}"
    );
    assert!(
        metrics.contains("ingress_client_connections 3"),
        "{metrics}"
    );
    drop(held.pop());
    let mut again = None;
    for _ in 0..50 {
        let mut stream = connect_from("127.0.0.2", ingress.proxy).await;
        if ask(&mut stream).await.as_deref() == OK {
            again = Some(stream);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(again.is_some(), "a closed connection's place came back");
}

#[actix_web::test]
async fn the_tls_port_shares_the_plain_ports_count_and_refuses_before_the_handshake() {
    let origin = Origin::start("tls-share");
    let cert = DevCert::make();
    let ingress = cert.ingress(&file(&origin, "  maxConnectionsPerClient: 1\n"), &[]);
    let mut plain = TcpStream::connect(ingress.proxy).await.expect("connects");
    assert!(ask(&mut plain).await.is_some(), "the plain port answers");
    let mut tls = TcpStream::connect(ingress.tls())
        .await
        .expect("the kernel accepts");
    let mut byte = [0u8; 1];
    let read = tokio::time::timeout(ANSWER_WITHIN, tls.read(&mut byte))
        .await
        .expect("closed at once");
    assert!(
        matches!(read, Ok(0) | Err(_)),
        "{read:?}: a byte before any handshake"
    );
}

#[actix_web::test]
async fn at_the_total_a_new_connection_waits_for_a_place() {
    let origin = Origin::start("total");
    let ingress = Ingress::start(&file(&origin, "  maxConnections: 2\n"));
    let mut first = connect_from("127.0.0.4", ingress.proxy).await;
    let mut second = connect_from("127.0.0.5", ingress.proxy).await;
    assert_eq!(ask(&mut first).await.as_deref(), OK);
    assert_eq!(ask(&mut second).await.as_deref(), OK);
    let mut third = connect_from("127.0.0.6", ingress.proxy).await;
    let request = format!("GET /echo HTTP/1.1\r\nHost: {HOST}\r\n\r\n");
    third.write_all(request.as_bytes()).await.expect("queued");
    let mut buffer = vec![0u8; 64 * 1024];
    let early = tokio::time::timeout(Duration::from_millis(800), third.read(&mut buffer)).await;
    assert!(early.is_err(), "served past the total: {early:?}");
    drop(first);
    let read = tokio::time::timeout(ANSWER_WITHIN, third.read(&mut buffer))
        .await
        .expect("served once a place is free")
        .expect("read");
    assert!(
        String::from_utf8_lossy(&buffer[..read]).starts_with("HTTP/1.1 200 OK"),
        "{}",
        String::from_utf8_lossy(&buffer[..read])
    );
}

#[actix_web::test]
async fn a_websocket_tunnel_keeps_its_connections_place_until_it_closes() {
    use futures_util::SinkExt;
    let origin = Origin::start("ws-share");
    let ingress = Ingress::start(&file(&origin, "  maxConnectionsPerClient: 1\n"));
    let (response, mut socket) = awc::Client::new()
        .ws(ingress.url("/ws"))
        .set_header(actix_web::http::header::HOST, HOST)
        .connect()
        .await
        .expect("the upgrade goes through");
    assert_eq!(response.status().as_u16(), 101);
    let mut beside = TcpStream::connect(ingress.proxy).await.expect("connects");
    assert_eq!(ask(&mut beside).await, None, "served beside an open tunnel");
    socket
        .send(awc::ws::Message::Close(None))
        .await
        .expect("close sent");
    drop(socket);
    let mut served = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut stream = TcpStream::connect(ingress.proxy).await.expect("connects");
        if ask(&mut stream).await.as_deref() == OK {
            served = true;
            break;
        }
    }
    assert!(served, "the tunnel's place came back once it closed");
}

#[actix_web::test]
async fn on_a_dual_stack_port_an_ipv4_client_is_one_client_and_ipv6_loopback_another() {
    let origin = Origin::start("dual");
    let ingress = Ingress::start_with(
        &file(&origin, "  maxConnectionsPerClient: 1\n"),
        &[("BIND_ADDR", "::")],
    );
    let port = ingress.proxy.port();
    let v4: SocketAddr = format!("127.0.0.1:{port}").parse().expect("an address");
    let v6: SocketAddr = format!("[::1]:{port}").parse().expect("an address");
    // The listener sees 127.0.0.1 as ::ffff:127.0.0.1: still the one IPv4 client, and not the
    // IPv6 network ::/64, which `::1` is in too.
    let mut held = TcpStream::connect(v4).await.expect("connects");
    assert_eq!(ask(&mut held).await.as_deref(), OK);
    let mut again = TcpStream::connect(v4).await.expect("the kernel accepts");
    assert_eq!(
        ask(&mut again).await,
        None,
        "a second IPv4 connection was served"
    );
    let mut other = TcpStream::connect(v6).await.expect("connects");
    assert_eq!(
        ask(&mut other).await.as_deref(),
        OK,
        "::1 is another client"
    );
}
