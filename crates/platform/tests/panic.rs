//! The panic layer over HTTP: a handler that panics answers the service's 500 envelope with a
//! fresh reference, and the server keeps serving.

use actix_web::{App, HttpResponse, HttpServer, web};
use platform::panic::CatchPanic;
use std::net::TcpListener;

async fn boom() -> HttpResponse {
    panic!("the database said DELETE FROM accounts")
}

#[actix_web::test]
async fn a_panic_is_the_envelope_and_never_the_message() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let base = format!("http://{}", listener.local_addr().expect("bound"));
    let server = HttpServer::new(|| {
        App::new()
            .route("/boom", web::get().to(boom))
            .route("/ok", web::get().to(HttpResponse::Ok))
            .wrap(CatchPanic::new(|reference| {
                HttpResponse::InternalServerError()
                    .json(serde_json::json!({ "reference": reference.as_str() }))
            }))
    })
    .workers(1)
    .listen(listener)
    .expect("listens")
    .run();
    actix_web::rt::spawn(server);
    let client = reqwest::Client::new();
    for _ in 0..3 {
        let response = client.get(format!("{base}/boom")).send().await.unwrap();
        assert_eq!(response.status(), 500);
        let body = response.text().await.unwrap();
        assert!(!body.contains("DELETE"), "{body}");
        let value: serde_json::Value = serde_json::from_str(&body).unwrap();
        let reference = value["reference"].as_str().unwrap();
        assert!(
            reference.starts_with("err-") && reference.len() == 12,
            "{body}"
        );
        assert_eq!(
            client
                .get(format!("{base}/ok"))
                .send()
                .await
                .unwrap()
                .status(),
            200
        );
    }
}
