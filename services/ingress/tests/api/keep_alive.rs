//! An idle HTTP/1.1 keep-alive connection is not held for ever: hyper's header read timeout
//! (30 s) runs while the edge waits for the next request head, so a client that says nothing
//! after its answer is closed, on the plain port as on TLS.

use crate::process::Ingress;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[actix_web::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_header_read_timeout() {
    let ingress = Ingress::start("ingress:\n  - service: http_status:204\n");
    let mut stream = TcpStream::connect(ingress.proxy)
        .await
        .expect("the port accepts");
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: a.localhost\r\n\r\n")
        .await
        .expect("written");
    let mut head = [0_u8; 512];
    let read = stream.read(&mut head).await.expect("an answer");
    assert!(head[..read].starts_with(b"HTTP/1.1 204 No Content\r\n"));
    let idle_since = Instant::now();
    let mut rest = Vec::new();
    tokio::time::timeout(Duration::from_secs(45), stream.read_to_end(&mut rest))
        .await
        .expect("the edge closes an idle keep-alive connection")
        .expect("read");
    let idle = idle_since.elapsed();
    assert!(rest.is_empty(), "nothing more was said: {rest:?}");
    assert!(
        idle >= Duration::from_secs(25),
        "kept while idle for a while: {idle:?}"
    );
}
