//! A Redis primary, one replica and three Sentinels from the local Redis image, on a Docker
//! bridge network of their own, to fail the primary under a test.
//!
//! No port is published: the host reaches a container's address on a user bridge network
//! directly (Linux), and those addresses are what the Sentinels announce, so the URL a test
//! gets is the one a service would be given. Everything is removed when the set is dropped.

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The name the Sentinels know the primary by.
pub const PRIMARY_NAME: &str = "estate";

/// How long a Sentinel waits before it calls an unanswering primary down.
const DOWN_AFTER_MS: u32 = 1000;
/// The longest the set may take to be ready (every Sentinel sees the replica and the others).
const READY_WITHIN: Duration = Duration::from_secs(60);

static SETS: AtomicU32 = AtomicU32::new(0);

/// A running primary, replica and three Sentinels.
pub struct SentinelSet {
    network: String,
    containers: Vec<String>,
    primary: String,
    primary_ip: String,
    replica_ip: String,
    sentinel_ips: Vec<String>,
}

fn docker(arguments: &[&str]) -> String {
    let output = Command::new("docker")
        .args(arguments)
        .output()
        .expect("the docker command");
    assert!(
        output.status.success(),
        "docker {arguments:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

impl SentinelSet {
    /// Starts the set and waits until a failover could happen, or returns `None` after a skip
    /// line when `ESTATE_SKIP_DOCKER=1`.
    ///
    /// # Panics
    /// When Docker or the image is missing, or the set is not ready within a minute.
    pub async fn start() -> Option<Self> {
        if std::env::var("ESTATE_SKIP_DOCKER").is_ok_and(|value| value == "1") {
            eprintln!("ESTATE_SKIP_DOCKER=1: skipping a Sentinel-backed test");
            return None;
        }
        let image =
            std::env::var("REDIS_IMAGE").unwrap_or_else(|_| crate::DEFAULT_REDIS_IMAGE.to_owned());
        let network = format!(
            "estate-sentinel-{}-{}",
            std::process::id(),
            SETS.fetch_add(1, Ordering::Relaxed)
        );
        docker(&["network", "create", &network]);
        let mut set = Self {
            network,
            containers: Vec::new(),
            primary: String::new(),
            primary_ip: String::new(),
            replica_ip: String::new(),
            sentinel_ips: Vec::new(),
        };
        let server = [
            "redis-server",
            "--bind",
            "0.0.0.0",
            "--protected-mode",
            "no",
        ];
        set.primary = set.run(&image, &server);
        set.primary_ip = set.ip_of(&set.primary);
        let primary_ip = set.primary_ip.clone();
        let replica_of = [&server[..], &["--replicaof", &primary_ip, "6379"]].concat();
        let replica = set.run(&image, &replica_of);
        set.replica_ip = set.ip_of(&replica);
        let config = sentinel_config(&set.primary_ip);
        for _ in 0..3 {
            let sentinel = set.run(&image, &["sh", "-c", &config]);
            let ip = set.ip_of(&sentinel);
            set.sentinel_ips.push(ip);
        }
        set.wait_until_ready().await;
        Some(set)
    }

    fn run(&mut self, image: &str, command: &[&str]) -> String {
        let id = docker(
            &[
                &["run", "-d", "--network", &self.network, image][..],
                command,
            ]
            .concat(),
        );
        self.containers.push(id.clone());
        id
    }

    fn ip_of(&self, container: &str) -> String {
        let format = format!(
            "{{{{(index .NetworkSettings.Networks \"{}\").IPAddress}}}}",
            self.network
        );
        docker(&["inspect", "-f", &format, container])
    }

    /// `redis-sentinel://<sentinel>:26379,…#estate`: what a service is given as `REDIS_URL`.
    pub fn url(&self) -> String {
        let sentinels: Vec<String> = self
            .sentinel_ips
            .iter()
            .map(|ip| format!("{ip}:26379"))
            .collect();
        format!("redis-sentinel://{}#{PRIMARY_NAME}", sentinels.join(","))
    }

    /// `redis://…` of the first primary, to read or write it directly.
    pub fn primary_url(&self) -> String {
        format!("redis://{}:6379", self.primary_ip)
    }

    /// `redis://…` of the replica, the node a failover promotes.
    pub fn replica_url(&self) -> String {
        format!("redis://{}:6379", self.replica_ip)
    }

    /// Freezes the primary: connections stay open and nothing answers.
    pub fn pause_primary(&self) {
        docker(&["pause", &self.primary]);
    }

    /// Lets a paused primary run again (the Sentinels turn it into a replica).
    pub fn unpause_primary(&self) {
        docker(&["unpause", &self.primary]);
    }

    /// Kills the primary: its address refuses or drops every connection.
    pub fn kill_primary(&self) {
        docker(&["kill", &self.primary]);
    }

    /// Which address the first Sentinel now names as primary, if it answers.
    pub fn named_primary(&self) -> Option<String> {
        let client = redis::Client::open(format!("redis://{}:26379", self.sentinel_ips[0])).ok()?;
        let mut connection = client
            .get_connection_with_timeout(Duration::from_secs(1))
            .ok()?;
        let (host, _port): (String, String) = redis::cmd("SENTINEL")
            .arg("get-master-addr-by-name")
            .arg(PRIMARY_NAME)
            .query(&mut connection)
            .ok()?;
        Some(host)
    }

    /// Every Sentinel knows the replica and the two other Sentinels, and the replica is in
    /// sync: a failover can happen from here on.
    async fn wait_until_ready(&self) {
        let started = Instant::now();
        while !self.ready() {
            assert!(
                started.elapsed() < READY_WITHIN,
                "the Sentinel set was not ready within {READY_WITHIN:?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    fn ready(&self) -> bool {
        let in_sync = query_info(&self.replica_url(), "replication")
            .is_some_and(|info| info.contains("master_link_status:up"));
        in_sync
            && self.sentinel_ips.iter().all(|ip| {
                let url = format!("redis://{ip}:26379");
                count(&url, "replicas") == Some(1) && count(&url, "sentinels") == Some(2)
            })
    }
}

fn sentinel_config(primary_ip: &str) -> String {
    let lines = [
        "port 26379".to_owned(),
        "bind 0.0.0.0".to_owned(),
        "protected-mode no".to_owned(),
        format!("sentinel monitor {PRIMARY_NAME} {primary_ip} 6379 2"),
        format!("sentinel down-after-milliseconds {PRIMARY_NAME} {DOWN_AFTER_MS}"),
        format!("sentinel failover-timeout {PRIMARY_NAME} 3000"),
        format!("sentinel parallel-syncs {PRIMARY_NAME} 1"),
    ];
    format!(
        "printf '{}\\n' > /tmp/sentinel.conf && exec redis-server /tmp/sentinel.conf --sentinel",
        lines.join("\\n")
    )
}

fn connection(url: &str) -> Option<redis::Connection> {
    redis::Client::open(url)
        .ok()?
        .get_connection_with_timeout(Duration::from_secs(1))
        .ok()
}

fn query_info(url: &str, section: &str) -> Option<String> {
    redis::cmd("INFO")
        .arg(section)
        .query(&mut connection(url)?)
        .ok()
}

fn count(sentinel_url: &str, what: &str) -> Option<usize> {
    let entries: Vec<redis::Value> = redis::cmd("SENTINEL")
        .arg(what)
        .arg(PRIMARY_NAME)
        .query(&mut connection(sentinel_url)?)
        .ok()?;
    Some(entries.len())
}

impl Drop for SentinelSet {
    fn drop(&mut self) {
        let mut removal = vec!["rm", "-f", "-v"];
        removal.extend(self.containers.iter().map(String::as_str));
        let _removed = Command::new("docker").args(&removal).output();
        let _network = Command::new("docker")
            .args(["network", "rm", &self.network])
            .output();
    }
}
