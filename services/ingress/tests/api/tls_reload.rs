//! The certificate replaced without a restart: when its files change (polled) and on SIGHUP.
//! A connection open before keeps the session it negotiated; new handshakes are shown the
//! new certificate; a pair that does not load is logged and the one in force kept.

use crate::secure::{DevCert, get, http1, shown};

const ROUTES: &str = "ingress:\n  - service: http_status:404\n";
const HSTS: &str = "max-age=31536000; includeSubDomains";

#[actix_web::test]
async fn a_renewed_certificate_reaches_new_connections_while_an_open_one_keeps_its_session() {
    let cert = DevCert::make();
    let ingress = cert.ingress(
        &format!("{ROUTES}estate:\n  tls:\n    reloadInterval: 100ms\n"),
        &[],
    );
    let before = cert.leaf();
    let stream = cert.connect(ingress.tls(), &[b"http/1.1"]).await;
    assert_eq!(shown(&stream), before);
    let mut open = http1(stream).await;
    assert_eq!(get(&mut open, "/first").await, (404, HSTS.to_owned()));

    cert.renew();
    let after = cert.leaf();
    assert_ne!(after, before, "--renew makes a new certificate");
    ingress.wait_log("certificate reloaded", 1);

    let fresh = cert.connect(ingress.tls(), &[b"http/1.1"]).await;
    assert_eq!(
        shown(&fresh),
        after,
        "a new handshake gets the new certificate"
    );
    assert_eq!(
        get(&mut open, "/again").await,
        (404, HSTS.to_owned()),
        "the connection opened before keeps working"
    );
    let mut fresh = http1(fresh).await;
    assert_eq!(get(&mut fresh, "/fresh").await, (404, HSTS.to_owned()));
    assert!(
        ingress
            .log_text()
            .contains(r#""cause":"the files changed""#),
        "{}",
        ingress.log_text()
    );
}

#[actix_web::test]
async fn sighup_reloads_at_once_and_a_pair_that_does_not_load_is_refused_and_the_old_kept() {
    let cert = DevCert::make();
    let stranger = DevCert::make();
    // No poll within the test: only SIGHUP reloads.
    let ingress = cert.ingress(
        &format!("{ROUTES}estate:\n  tls:\n    reloadInterval: 1h\n"),
        &[],
    );
    let first = cert.leaf();
    let key = std::fs::read(cert.path("key.pem")).expect("key");
    let bad_keys = [
        b"not a key\n".to_vec(),
        std::fs::read(stranger.path("key.pem")).expect("another certificate's key"),
        Vec::new(),
    ];
    for (refusals, bad) in bad_keys.iter().enumerate() {
        std::fs::write(cert.path("key.pem"), bad).expect("written");
        ingress.signal("HUP");
        ingress.wait_log("new certificate refused", refusals + 1);
        let stream = cert.connect(ingress.tls(), &[b"http/1.1"]).await;
        assert_eq!(shown(&stream), first, "the pair in force is kept");
    }
    std::fs::write(cert.path("key.pem"), &key).expect("restored");
    cert.renew();
    ingress.signal("HUP");
    ingress.wait_log("certificate reloaded", 1);
    let stream = cert.connect(ingress.tls(), &[b"http/1.1"]).await;
    assert_eq!(shown(&stream), cert.leaf());
    assert!(
        ingress.log_text().contains(r#""cause":"SIGHUP""#),
        "{}",
        ingress.log_text()
    );
}
