//! `REDIS_URL`: two replicas on one real Redis (Docker; skipped when `ESTATE_SKIP_DOCKER=1`)
//! share the `mcp` and `installer` budgets exactly — requests alternating between them meet
//! one budget, the refusals in the service's envelopes — and no decision falls back to local.

use crate::helpers::{Answer, TestApp};

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
const MCP_BUDGET: u32 = 20;
const INSTALLER_BUDGET: u32 = 10;
/// Requests beyond each budget, alternating between the replicas like the rest.
const BEYOND: u32 = 6;

fn retry_after(answer: &Answer) -> u64 {
    answer
        .header("retry-after")
        .expect("a refusal says how long")
        .parse()
        .expect("whole seconds")
}

fn refused_rpc(seconds: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32010,"message":"Too many requests. Please try again in {seconds} second(s).","data":{{"retryAfterSeconds":{seconds}}}}}}}"#
    )
}

fn refused(seconds: u64) -> String {
    format!(
        r#"{{"error":"rate_limited","message":"Too many requests. Please try again in {seconds} second(s)."}}"#
    )
}

/// A counter of `/metrics`, 0 when the line is absent.
async fn decisions(app: &TestApp, group: &str, outcome: &str) -> u32 {
    let metrics = app.get("/metrics", &[]).await;
    let prefix = format!(
        r#"limiter_decisions_total{{service="mcp-server",group="{group}",outcome="{outcome}"}} "#
    );
    metrics
        .body
        .lines()
        .find_map(|line| line.strip_prefix(prefix.as_str()))
        .map_or(0, |count| count.parse().expect("a count"))
}

#[actix_web::test]
async fn two_replicas_share_the_mcp_and_installer_budgets_exactly() {
    let Some(redis) = testkit::Redis::start().await else {
        return;
    };
    let mcp = format!("{MCP_BUDGET}/60s");
    let installer = format!("{INSTALLER_BUDGET}/60s");
    // Redis decides every request here: a loaded machine can take longer than the default 50 ms
    // (the first call also opens the connection), which would decide locally instead.
    let settings = [
        ("REDIS_URL", redis.url.as_str()),
        ("RATE_LIMIT_REDIS_TIMEOUT_MS", "2000"),
        ("MCP_RATE_LIMIT_MCP", mcp.as_str()),
        ("MCP_RATE_LIMIT_INSTALLER", installer.as_str()),
    ];
    let replicas = [
        TestApp::spawn(&settings).await,
        TestApp::spawn(&settings).await,
    ];
    for replica in &replicas {
        // Opens the replica's Redis connection in a group no assertion counts.
        assert_eq!(replica.get("/skills/package", &[]).await.status, 200);
    }

    for call in 0..MCP_BUDGET + BEYOND {
        let answer = replicas[(call % 2) as usize].post_mcp(PING, &[]).await;
        if call < MCP_BUDGET {
            assert_eq!(answer.status, 200, "ping {call}: within the one budget");
        } else {
            let seconds = retry_after(&answer);
            assert_eq!(
                (answer.status, answer.body),
                (429, refused_rpc(seconds)),
                "ping {call}"
            );
        }
    }
    for call in 0..INSTALLER_BUDGET + BEYOND {
        let answer = replicas[(call % 2) as usize].get("/install.sh", &[]).await;
        if call < INSTALLER_BUDGET {
            assert_eq!(
                answer.status, 200,
                "installer {call}: within the one budget"
            );
        } else {
            let seconds = retry_after(&answer);
            assert_eq!(
                (answer.status, answer.body),
                (429, refused(seconds)),
                "installer {call}"
            );
        }
    }

    for (group, budget) in [("mcp", MCP_BUDGET), ("installer", INSTALLER_BUDGET)] {
        let mut allowed = 0;
        let mut refused_count = 0;
        for replica in &replicas {
            assert_eq!(decisions(replica, group, "fallback").await, 0, "{group}");
            allowed += decisions(replica, group, "allowed").await;
            refused_count += decisions(replica, group, "refused").await;
        }
        assert_eq!((allowed, refused_count), (budget, BEYOND), "{group}");
    }
}
