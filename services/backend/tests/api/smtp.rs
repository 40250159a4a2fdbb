//! Mail by SMTP, against a real SMTP server (aiosmtpd, see `tests/support/smtp_server.rs`):
//! the message reaches the right inbox with the real code or link in its text; no outbox file
//! is written; a server that hangs never holds a request; mail queued while the server is down
//! arrives once it is back, and the failed attempts are counted.

#[path = "../support/smtp_server.rs"]
mod smtp_server;

use crate::helpers::TestApp;
use backend::auth::outbox::queue::SEND_TIMEOUT;
use serde_json::json;
use smtp_server::{SmtpServer, python_with_aiosmtpd};
use std::time::{Duration, Instant};

const FROM: &str = "Estate <no-reply@estate.example>";
const LINK_BASE: &str = "https://app.estate.example/accounts";
/// The longest a test waits for mail or a counter: a bound for a loaded machine (an idle one
/// takes well under a second, and every wait returns as soon as its condition holds).
const PATIENCE: Duration = Duration::from_secs(30);

async fn smtp_app(port: u16) -> TestApp {
    let url = format!("smtp://127.0.0.1:{port}");
    TestApp::spawn(&[
        ("SMTP_URL", url.as_str()),
        ("SMTP_FROM", FROM),
        ("MAIL_LINK_BASE_URL", LINK_BASE),
    ])
    .await
}

/// The line of `body` that `wanted` accepts.
fn line(body: &str, wanted: impl Fn(&str) -> bool) -> &str {
    body.lines()
        .map(str::trim)
        .find(|line| wanted(line))
        .unwrap_or_else(|| panic!("no such line in {body:?}"))
}

/// `outbox_deliveries_total{outcome}` on the app's scrape (0 when absent).
async fn deliveries(app: &TestApp, outcome: &str) -> u64 {
    let scrape = app.client.get(app.url("/actuator/prometheus")).send().await;
    let text = scrape.expect("scraped").text().await.expect("a body");
    let prefix = format!("outbox_deliveries_total{{outcome=\"{outcome}\"}} ");
    text.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .map_or(0, |count| count.trim().parse().expect("a count"))
}

/// `outbox_deliveries_total{outcome}` once it reaches `count` (the server has the message a
/// moment before the sender hears its reply and counts it); what it is after [`PATIENCE`].
async fn deliveries_reach(app: &TestApp, outcome: &str, count: u64) -> u64 {
    let started = Instant::now();
    loop {
        let now = deliveries(app, outcome).await;
        if now >= count || started.elapsed() > PATIENCE {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[actix_web::test]
async fn codes_and_links_reach_the_inbox_and_work() {
    let Some(python) = python_with_aiosmtpd() else {
        return;
    };
    let port = testkit::free_port();
    let server = SmtpServer::start(&python, port);
    let app = smtp_app(port).await;
    let signup =
        json!({ "email": "Ada@Example.com", "password": "correct horse battery", "name": "Ada" });
    assert_eq!(
        app.post("/api/v1/auth/signup", &signup, None)
            .await
            .status(),
        201
    );

    let mail = server.wait_for(1, PATIENCE).await;
    assert_eq!(mail.len(), 1, "{mail:?}");
    assert_eq!(
        (mail[0].to.as_str(), mail[0].rcpt_to.as_str()),
        ("ada@example.com", "ada@example.com")
    );
    assert_eq!(
        (mail[0].from.as_str(), mail[0].subject.as_str()),
        (FROM, "Your verification code")
    );
    let code = line(&mail[0].body, |line| {
        line.len() == 6 && line.chars().all(|c| c.is_ascii_digit())
    });
    let verify = json!({ "email": "ada@example.com", "code": code });
    assert_eq!(
        app.post("/api/v1/auth/verify-otp", &verify, None)
            .await
            .status(),
        200
    );

    let asked = json!({ "email": "ada@example.com" });
    assert_eq!(
        app.post("/api/v1/auth/magic-link", &asked, None)
            .await
            .status(),
        202
    );
    // A Maildir lists messages in no particular order.
    let mail = server.wait_for(2, PATIENCE).await;
    let signin = mail
        .iter()
        .find(|mail| mail.subject == "Your sign-in link")
        .expect("the sign-in mail");
    assert_eq!(signin.to, "ada@example.com");
    let prefix = format!("{LINK_BASE}/magic-link/");
    let link = line(&signin.body, |line| line.starts_with(&prefix));
    assert!(
        link.len() > 76,
        "long enough to be transfer-encoded: {link}"
    );
    let token = json!({ "token": &link[prefix.len()..] });
    assert_eq!(
        app.post("/api/v1/auth/verify-magic", &token, None)
            .await
            .status(),
        200
    );

    assert_eq!(deliveries_reach(&app, "sent", 2).await, 2);
    assert!(
        !app.data_dir.join("outbox.jsonl").exists(),
        "SMTP replaces the file"
    );
}

#[actix_web::test]
async fn a_server_that_never_answers_holds_no_request() {
    let Some(_python) = python_with_aiosmtpd() else {
        return;
    };
    // Accepts connections (the kernel's backlog) and never says a word.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let app = smtp_app(silent.local_addr().expect("an address").port()).await;
    let signup =
        json!({ "email": "ada@example.com", "password": "correct horse battery", "name": "Ada" });
    assert_eq!(
        app.post("/api/v1/auth/signup", &signup, None)
            .await
            .status(),
        201
    );
    for _ in 0..3 {
        let started = Instant::now();
        let resend = app
            .post(
                "/api/v1/auth/resend-otp",
                &json!({ "email": "ada@example.com" }),
                None,
            )
            .await;
        assert_eq!(resend.status(), 202);
        // Far below the SMTP dialogue's own bound: the request never met the server.
        assert!(
            started.elapsed() < SEND_TIMEOUT / 4,
            "{:?}",
            started.elapsed()
        );
    }
    assert_eq!(deliveries(&app, "sent").await, 0);
}

#[actix_web::test]
async fn mail_queued_while_the_server_is_down_arrives_when_it_is_back() {
    let Some(python) = python_with_aiosmtpd() else {
        return;
    };
    let port = testkit::free_port();
    let app = smtp_app(port).await;
    let signup =
        json!({ "email": "ada@example.com", "password": "correct horse battery", "name": "Ada" });
    assert_eq!(
        app.post("/api/v1/auth/signup", &signup, None)
            .await
            .status(),
        201
    );
    let started = Instant::now();
    while deliveries(&app, "failed").await == 0 {
        assert!(started.elapsed() < PATIENCE, "a failed attempt is counted");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let server = SmtpServer::start(&python, port);
    let mail = server.wait_for(1, PATIENCE).await;
    assert_eq!(mail.len(), 1, "delivered on a retry: {mail:?}");
    assert_eq!(mail[0].to, "ada@example.com");
    let code = line(&mail[0].body, |line| {
        line.len() == 6 && line.chars().all(|c| c.is_ascii_digit())
    });
    let verify = json!({ "email": "ada@example.com", "code": code });
    assert_eq!(
        app.post("/api/v1/auth/verify-otp", &verify, None)
            .await
            .status(),
        200
    );
    assert_eq!(deliveries_reach(&app, "sent", 1).await, 1);
    assert_eq!(deliveries(&app, "abandoned").await, 0);
    // Counted as sent only after its record left the queue.
    let pending = app
        .store
        .set_members(backend::store::Space::Outbox, "pending")
        .await;
    assert_eq!(pending.expect("the store answers"), Vec::<String>::new());
}
