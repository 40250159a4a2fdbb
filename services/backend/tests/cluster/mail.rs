//! Mail by SMTP from two replicas on one Redis: both delivery tasks see every queued mail, and
//! each mail still arrives exactly once (a replica claims a mail before sending it).

#[path = "../support/smtp_server.rs"]
mod smtp_server;

use crate::support::{Node, Redis};
use serde_json::json;
use smtp_server::{SmtpServer, python_with_aiosmtpd};
use std::time::Duration;

#[actix_web::test]
async fn two_replicas_deliver_each_queued_mail_once() {
    let Some(python) = python_with_aiosmtpd() else {
        return;
    };
    let Some(redis) = Redis::start().await else {
        return;
    };
    let port = testkit::free_port();
    let server = SmtpServer::start(&python, port);
    let url = format!("smtp://127.0.0.1:{port}");
    let settings = [
        ("SMTP_URL", url.as_str()),
        ("SMTP_FROM", "no-reply@estate.example"),
    ];
    let data = tempfile::tempdir().expect("a temporary data directory");
    let nodes = [
        Node::start(&redis, data.path(), &settings).await,
        Node::start(&redis, data.path(), &settings).await,
    ];
    for n in 0..6 {
        let body = json!({ "email": format!("user{n}@example.com"), "password": "a-long-password", "name": "U" });
        let signup = nodes[n % 2].post("/api/v1/auth/signup", &body).await;
        assert_eq!(signup.status(), 201);
    }
    server.wait_for(6, Duration::from_secs(40)).await;
    // Both tasks poll every second: give a duplicate time to show up.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let messages = server.messages();
    for mail in &messages {
        assert_eq!(
            (mail.rcpt_to.as_str(), mail.from.as_str()),
            (mail.to.as_str(), "no-reply@estate.example")
        );
        assert_eq!(mail.subject, "Your verification code");
        assert!(
            mail.body.lines().any(|line| line.trim().len() == 6),
            "{}",
            mail.body
        );
    }
    let mut recipients: Vec<String> = messages.into_iter().map(|mail| mail.to).collect();
    recipients.sort();
    let expected: Vec<String> = (0..6).map(|n| format!("user{n}@example.com")).collect();
    assert_eq!(recipients, expected);
    assert!(!data.path().join("outbox.jsonl").exists());
    for node in nodes {
        node.stop().await;
    }
}
