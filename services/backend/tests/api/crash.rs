//! Signups cut short by `kill -9` (the real binary): every account the store holds has its
//! code mailed, after the restart if not before, and so has every signup answered before the
//! kill. Nothing is lost when the process dies after answering.

use crate::helpers::SECRET;
use serde_json::json;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SIGNUPS: usize = 20;
const PASSWORD: &str = "correct horse battery";
/// Long enough for a job the killed process held to lose its claim and be worked again.
const RECOVERY: Duration = Duration::from_secs(30);

/// The backend binary on `port` over `data`, its output discarded.
fn backend(data: &Path, port: u16) -> Child {
    let port = port.to_string();
    Command::new(env!("CARGO_BIN_EXE_backend"))
        .env("SECURITY_JWT_SECRET_KEY", SECRET)
        .env("PORT", &port)
        .env("DATA_DIR", data)
        .env("RATE_LIMIT_EMAIL", "1000/1h")
        .env("AUTH_RATE_LIMIT_EMAIL", "1000/1h")
        .env("AUTH_RATE_LIMIT_CREDENTIAL", "1000/15m")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the backend binary starts")
}

async fn healthy(client: &reqwest::Client, base: &str) {
    let started = Instant::now();
    loop {
        let health = client.get(format!("{base}/actuator/health")).send().await;
        if health.is_ok_and(|answer| answer.status() == 200) {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "never healthy");
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
}

fn email(n: usize) -> String {
    format!("user{n}@example.com")
}

/// Fires every signup at once and kills the process as soon as the first is answered;
/// returns which were answered 201 before the kill.
async fn signups_cut_short(client: &reqwest::Client, base: &str, process: &mut Child) -> Vec<bool> {
    let (sender, mut answers) = tokio::sync::mpsc::unbounded_channel();
    for n in 0..SIGNUPS {
        let (client, sender) = (client.clone(), sender.clone());
        let url = format!("{base}/api/v1/auth/signup");
        actix_web::rt::spawn(async move {
            let body = json!({ "email": email(n), "password": PASSWORD, "name": "U" });
            let answer = client.post(url).json(&body).send().await;
            let created = answer.is_ok_and(|answer| answer.status() == 201);
            let _gone = sender.send((n, created));
        });
    }
    drop(sender);
    let mut created = vec![false; SIGNUPS];
    if let Some((n, answered)) = answers.recv().await {
        process.kill().expect("killed");
        created[n] = answered;
    }
    while let Some((n, answered)) = answers.recv().await {
        created[n] = created[n] || answered;
    }
    process.wait().expect("reaped");
    created
}

/// Whether `email`'s outbox holds a code, waiting at most [`RECOVERY`] from `since`.
async fn code_mailed(data: &Path, email: &str, since: Instant) -> bool {
    loop {
        let text = std::fs::read_to_string(data.join("outbox.jsonl")).unwrap_or_default();
        if text
            .lines()
            .any(|line| line.contains(&format!("\"to\":\"{email}\"")))
        {
            return true;
        }
        if since.elapsed() > RECOVERY {
            return false;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
}

#[actix_web::test]
async fn every_stored_account_has_its_code_after_a_kill() {
    let data = tempfile::tempdir().expect("a temporary data directory");
    let client = reqwest::Client::new();
    let port = testkit::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut first = backend(data.path(), port);
    healthy(&client, &base).await;
    let created = signups_cut_short(&client, &base, &mut first).await;

    let mut second = backend(data.path(), port);
    healthy(&client, &base).await;
    let restarted = Instant::now();
    for (n, answered) in created.iter().enumerate() {
        let mailed = !answered || code_mailed(data.path(), &email(n), restarted).await;
        assert!(mailed, "{}: answered 201, then lost", email(n));
    }
    let mut stored_without_code = Vec::new();
    for n in 0..SIGNUPS {
        let login = json!({ "email": email(n), "password": PASSWORD });
        let url = format!("{base}/api/v1/auth/login");
        let answer = client.post(url).json(&login).send().await;
        let stored = answer.expect("the backend answers").status() == 403;
        if stored && !code_mailed(data.path(), &email(n), restarted).await {
            stored_without_code.push(email(n));
        }
    }
    second.kill().expect("stopped");
    second.wait().expect("reaped");
    assert_eq!(
        stored_without_code,
        Vec::<String>::new(),
        "stored without a code"
    );
}
