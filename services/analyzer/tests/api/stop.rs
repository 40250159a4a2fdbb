//! The real binary under SIGTERM: health turns 503 at once while requests are still served for
//! `SHUTDOWN_DELAY_MS`, then the process drains and exits 0.

use crate::helpers::TOKEN;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const DELAY_MS: u64 = 1500;

struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("an address").port()
}

async fn health(client: &reqwest::Client, base: &str) -> Option<(u16, String)> {
    let response = client.get(format!("{base}/health")).send().await.ok()?;
    let status = response.status().as_u16();
    Some((status, response.text().await.ok()?))
}

async fn wait_until_up(client: &reqwest::Client, base: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while health(client, base)
        .await
        .is_none_or(|(status, _)| status != 200)
    {
        assert!(
            Instant::now() < deadline,
            "the analyzer never became healthy"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[actix_web::test]
async fn sigterm_turns_health_to_503_while_requests_are_still_served_then_exits() {
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = Command::new(env!("CARGO_BIN_EXE_analyzer"))
        .env("PORT", port.to_string())
        .env("ANALYZER_TOKEN", TOKEN)
        .env("SHUTDOWN_DELAY_MS", DELAY_MS.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the analyzer starts");
    let mut process = Process(child);
    let client = reqwest::Client::new();
    wait_until_up(&client, &base).await;

    let killed = Command::new("kill")
        .args(["-TERM", &process.0.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let stopped_at = Instant::now();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        health(&client, &base).await,
        Some((503, r#"{"status":"DOWN"}"#.to_owned()))
    );
    let types = client
        .get(format!("{base}/analysis-types"))
        .header("x-analyzer-token", TOKEN)
        .send()
        .await
        .expect("still served during the delay");
    assert_eq!(types.status(), 200);

    let status = tokio::task::spawn_blocking(move || process.0.wait())
        .await
        .expect("waited")
        .expect("an exit status");
    let took = stopped_at.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(took >= Duration::from_millis(DELAY_MS), "{took:?}");
    assert!(took < Duration::from_secs(15), "{took:?}");
}
