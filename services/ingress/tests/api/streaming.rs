//! Bodies stream both ways: the client reads the first chunk while the origin still holds
//! the second, and the origin reads the first chunk of an upload while the client still
//! holds the rest. A buffering proxy deadlocks both tests (they time out instead).

use crate::origins::Origin;
use crate::process::Ingress;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(10);

#[actix_web::test]
async fn a_response_streams_before_it_is_complete() {
    let origin = Origin::start("stream");
    let ingress = Ingress::start(&format!("ingress:\n  - service: {}\n", origin.url()));
    let mut response = crate::client()
        .get(ingress.url("/stream"))
        .send()
        .await
        .expect("the head arrives before the body is complete");
    let first = tokio::time::timeout(LIMIT, response.chunk())
        .await
        .expect("the first chunk arrives while the origin holds the second")
        .expect("read")
        .expect("a chunk");
    assert_eq!(&first[..], b"first\n");
    origin.signals.release.notify_one();
    let rest = tokio::time::timeout(LIMIT, response.text())
        .await
        .expect("the rest arrives")
        .expect("read");
    assert_eq!(rest, "second\n");
}

#[actix_web::test]
async fn a_request_body_streams_before_it_is_complete() {
    let origin = Origin::start("upload");
    let ingress = Ingress::start(&format!("ingress:\n  - service: {}\n", origin.url()));
    let (chunks, receiver) = tokio::sync::mpsc::channel::<Vec<u8>>(4);
    let body = futures_util::stream::unfold(receiver, |mut receiver| async move {
        let chunk = receiver.recv().await?;
        Some((Ok::<_, std::io::Error>(chunk), receiver))
    });
    let request = crate::client()
        .post(ingress.url("/upload"))
        .body(reqwest::Body::wrap_stream(body))
        .send();
    let sender = async {
        chunks.send(vec![b'a'; 1000]).await.expect("first chunk");
        tokio::time::timeout(LIMIT, origin.signals.first_chunk.notified())
            .await
            .expect("the origin reads the first chunk while the client holds the rest");
        chunks.send(vec![b'b'; 500]).await.expect("second chunk");
        drop(chunks);
    };
    let (response, ()) = tokio::join!(request, sender);
    let response = response.expect("the ingress answers");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.text().await.expect("body"), "received 1500 bytes");
}
