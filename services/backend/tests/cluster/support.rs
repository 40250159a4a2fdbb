//! Backend nodes on one Redis ([`testkit::Redis`], the one way every test binary starts it):
//! each a real [`Application`] on port 0 with `REDIS_URL` pointing at the container, on the
//! system clock (run leases must really expire), served by [`testkit::Served`].

use backend::{Application, BackendConfig};
use platform::MapEnv;
use serde_json::Value;
use std::path::Path;
pub use testkit::Redis;
use testkit::Served;

/// A strong test secret (64 hex characters), the same on every node as in a real cluster.
pub const SECRET: &str = "4f1c9a7e2b8d6053a1e4c7b9d2f608e35a7c1b9e4d2f6a8c0b3e5d7f9a1c3e5b";

/// The filters' refusal, as every node words it.
pub fn fail_body(secs: u64) -> String {
    format!(
        r#"{{"status":"FAIL","message":"Too many requests. Please try again in {secs} second(s)."}}"#
    )
}

/// One backend replica.
pub struct Node {
    served: Served,
}

impl std::ops::Deref for Node {
    type Target = Served;

    fn deref(&self) -> &Served {
        &self.served
    }
}

impl Node {
    /// A fresh replica on `redis`. `data_dir` holds only the outbox here: with `REDIS_URL`
    /// set the backend opens no embedded database, so replicas may share one directory.
    pub async fn start(redis: &Redis, data_dir: &Path, overrides: &[(&str, &str)]) -> Self {
        Self::start_on(&redis.url, data_dir, overrides).await
    }

    /// A fresh replica with `REDIS_URL` set to `redis_url` (either form).
    pub async fn start_on(redis_url: &str, data_dir: &Path, overrides: &[(&str, &str)]) -> Self {
        let data_dir = data_dir.to_string_lossy().into_owned();
        let mut settings = vec![
            ("SECURITY_JWT_SECRET_KEY", SECRET),
            ("PORT", "0"),
            ("DATA_DIR", data_dir.as_str()),
            ("REDIS_URL", redis_url),
        ];
        settings.extend_from_slice(overrides);
        let env: MapEnv = settings.into_iter().collect();
        let config = BackendConfig::from_env(&env).expect("test settings are valid");
        let app = Application::build(config).expect("the backend builds");
        let port = app.port();
        let node = Self {
            served: Served::run(port, app.into_server()),
        };
        node.warm_up().await;
        node
    }

    /// Opens the node's Redis connection (and loads the limiter's script) with a request in a
    /// bucket no test counts, so a cold connection cannot push a counted decision past the
    /// limiter's Redis timeout into a local one.
    async fn warm_up(&self) {
        let response = self.post("/api/v1/auth/refresh", &Value::Null).await;
        assert_eq!(response.status(), 400, "the warm-up answers");
    }

    /// Stops serving (graceful) and drops its connections.
    pub async fn stop(self) {
        self.served.stop().await;
    }

    pub async fn post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("the backend answers")
    }

    /// `POST /api/v1/auth/login`.
    pub async fn login(&self, email: &str, password: &str) -> reqwest::Response {
        let body = serde_json::json!({ "email": email, "password": password });
        self.post("/api/v1/auth/login", &body).await
    }

    /// One counter line of `/actuator/prometheus`, summed over its stripes (0 when absent).
    pub async fn limiter_count(&self, group: &str, outcome: &str) -> u64 {
        let text = self
            .client
            .get(self.url("/actuator/prometheus"))
            .send()
            .await
            .expect("the backend answers")
            .text()
            .await
            .expect("a scrape");
        let labels = format!("group=\"{group}\",outcome=\"{outcome}\"");
        text.lines()
            .filter(|line| line.starts_with("limiter_decisions_total") && line.contains(&labels))
            .filter_map(|line| line.rsplit(' ').next()?.parse::<u64>().ok())
            .sum()
    }
}

/// Status, `Retry-After` and body of an answer.
pub async fn answer(response: reqwest::Response) -> (u16, Option<String>, String) {
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().expect("an ASCII header").to_owned());
    (status, retry_after, response.text().await.expect("a body"))
}

/// The last mail of `kind` the shared outbox under `data_dir` holds for `email`, once there is
/// one (account mail is sent in the background; the wait returns when it arrives, and gives up
/// after ten seconds).
pub async fn last_mail(data_dir: &std::path::Path, email: &str, kind: &str) -> Value {
    let started = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(data_dir.join("outbox.jsonl")).unwrap_or_default();
        let mail = text
            .lines()
            .rev()
            .map(|line| serde_json::from_str::<Value>(line).expect("an outbox line"))
            .find(|mail| mail["to"] == email && mail["kind"] == kind);
        if let Some(mail) = mail {
            return mail;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "no {kind} mailed to {email}"
        );
        actix_web::rt::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
