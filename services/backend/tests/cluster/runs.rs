//! A scan run on two replicas: the replica driving it keeps its lease, so the other one
//! never ends it, however long it polls; once the driving replica is gone, the other one's
//! socket ends the run with `ERROR: analyze: runner stopped` and a normal close.

use crate::support::{Node, Redis, SECRET};
use awc::ws::{CloseCode, Frame};
use backend::auth::sessions::Sessions;
use backend::store::Store;
use backend::tenancy::{Denial, Projects, Workspaces};
use futures_util::StreamExt;
use platform::MapEnv;
use platform::jwt::{JwtKeys, Subject, TokenKind};
use serde_json::{Value, json};
use std::time::Duration;

/// Alice's access token, of a session opened in the cluster's Redis, scoped to a new workspace
/// with one project, all written under the backend's key prefix; (token, project id).
async fn tenant(redis: &Redis) -> (String, String) {
    let store = Store::redis(&redis.url, "backend").expect("the Redis store is prepared");
    let workspace = Workspaces::new(store.clone())
        .create("user-alice", "Alpha")
        .await
        .expect("the workspace is created");
    let workspace_id = workspace.id.to_string();
    let project = Projects::new(store.clone(), Denial::default())
        .create(&workspace_id, "Main", "ALP")
        .await
        .expect("the project is created");
    let keys = JwtKeys::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)]))
        .expect("the test secret is valid");
    let opened = Sessions::new(store)
        .open("user-alice", Duration::from_secs(3600))
        .await
        .expect("the session opens");
    let subject = Subject {
        workspace_id: Some(workspace_id),
        role: Some("OWNER".into()),
        session: Some(opened.session),
        ..Subject::user("user-alice")
    };
    let token = keys
        .issue(TokenKind::Access, &subject, Duration::from_secs(3600))
        .expect("the token is signed");
    (token, project.id.to_string())
}

async fn run_status(node: &Node, token: &str, run_id: &str) -> Value {
    let url = format!("{}/api/v1/runs/{run_id}", node.base);
    let response = node.client.get(url).bearer_auth(token).send().await;
    let run: Value = response
        .expect("the backend answers")
        .json()
        .await
        .expect("a run");
    run["status"].clone()
}

/// Every text frame on `node`'s socket for the run, and its close code (30 s at most).
async fn socket(node: &Node, token: &str, run_id: &str) -> (Vec<String>, Option<CloseCode>) {
    let url = format!("{}/ws/runs/{run_id}?token={token}", node.base);
    let (_, mut socket) = awc::Client::new()
        .ws(url)
        .connect()
        .await
        .expect("upgraded");
    let mut frames = Vec::new();
    loop {
        let next = tokio::time::timeout(Duration::from_secs(30), socket.next());
        match next.await.expect("the socket ends within 30 s") {
            Some(Ok(Frame::Text(text))) => frames.push(String::from_utf8_lossy(&text).into()),
            Some(Ok(Frame::Close(reason))) => return (frames, reason.map(|r| r.code)),
            Some(Ok(_)) => {}
            other => panic!("the socket ended without a close frame: {other:?}"),
        }
    }
}

#[actix_web::test]
async fn a_run_is_left_alone_while_its_replica_lives_and_ended_once_it_is_gone() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    // An analyzer that accepts connections and never answers: the run stays in `analyze`.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let analyzer = format!("http://{}", silent.local_addr().expect("an address"));
    let settings = [
        ("ANALYZER_URL", analyzer.as_str()),
        ("ANALYZER_TOKEN", "test-analyzer-token-0123456789"),
        ("SCAN_LEASE_SECONDS", "2"),
    ];
    let data = tempfile::tempdir().expect("a temporary data directory");
    let (driver, reader) = (
        Node::start(&redis, data.path(), &settings).await,
        Node::start(&redis, data.path(), &settings).await,
    );
    let (token, project_id) = tenant(&redis).await;
    let files = json!([{ "path": "a.rs", "content": "fn main() {}" }]);
    let body = json!({ "projectId": project_id, "files": files });
    let url = format!("{}/api/v1/scan/initiate", driver.base);
    let response = driver
        .client
        .post(url)
        .bearer_auth(&token)
        .json(&body)
        .send()
        .await;
    let accepted: Value = response.expect("202").json().await.expect("a body");
    let run_id = accepted["runId"].as_str().expect("a run id").to_owned();

    for _ in 0..6 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(run_status(&reader, &token, &run_id).await, "RUNNING");
    }
    driver.stop().await;
    let (frames, close) = socket(&reader, &token, &run_id).await;
    assert_eq!(
        frames,
        [
            "PROGRESS: validate: 1 files",
            "PROGRESS: analyze: batch 1/1 (1 files)",
            "ERROR: analyze: runner stopped",
        ]
    );
    assert_eq!(close, Some(CloseCode::Normal));
    assert_eq!(run_status(&reader, &token, &run_id).await, "ERROR");
    reader.stop().await;
    drop(silent);
}
