//! The guard against real containers: two from the offline base image, one writing its data
//! into its writable layer and one writing it to a named volume. The first is refused and the
//! second allowed, by the library and by the `estate-deploy` binary (exit 3 and 0).
//!
//! Needs Docker and `estate/base:bookworm` (`scripts/offline-images.sh`; `BASE_IMAGE`
//! overrides it). Skipped when `ESTATE_SKIP_DOCKER=1`, except under `CI=true`.

use deploy::engine::{ComposeProject, DockerCli};
use deploy::guard::check_container;
use deploy::verdict::Finding;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Containers and a volume made by one test, removed when it ends (pass or fail).
struct Scratch {
    prefix: String,
    containers: Vec<String>,
}

impl Scratch {
    fn new() -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("a clock after 1970")
            .subsec_nanos();
        Self {
            prefix: format!("estate-deploy-test-{}-{nanos}", std::process::id()),
            containers: Vec::new(),
        }
    }

    fn volume(&self) -> String {
        format!("{}-data", self.prefix)
    }

    /// Starts a container that runs `script` then sleeps; returns its name once `script` ran.
    fn start(&mut self, suffix: &str, options: &[&str], script: &str) -> String {
        let name = format!("{}-{suffix}", self.prefix);
        let image = std::env::var("BASE_IMAGE").unwrap_or_else(|_| "estate/base:bookworm".into());
        let mut args = vec!["run", "-d", "--name", &name];
        args.extend_from_slice(options);
        let script = format!("{script} && touch /run/ready && sleep 300");
        args.extend_from_slice(&[&image, "sh", "-c", &script]);
        docker(&args);
        self.containers.push(name.clone());
        let deadline = Instant::now() + Duration::from_secs(20);
        while !Command::new("docker")
            .args(["exec", &name, "test", "-e", "/run/ready"])
            .output()
            .is_ok_and(|out| out.status.success())
        {
            assert!(Instant::now() < deadline, "{name} did not run its script");
            std::thread::sleep(Duration::from_millis(100));
        }
        name
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for name in &self.containers {
            let _ = Command::new("docker").args(["rm", "-f", name]).output();
        }
        let _ = Command::new("docker")
            .args(["volume", "rm", "-f", &self.volume()])
            .output();
    }
}

fn docker(args: &[&str]) -> String {
    let out = Command::new("docker")
        .args(args)
        .output()
        .expect("the docker CLI");
    assert!(
        out.status.success(),
        "docker {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn skip() -> bool {
    let skip = std::env::var("ESTATE_SKIP_DOCKER").is_ok_and(|v| v == "1");
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if skip && !ci {
        eprintln!("ESTATE_SKIP_DOCKER=1: skipping the deploy guard's Docker test");
    }
    skip && !ci
}

fn engine() -> DockerCli {
    DockerCli {
        program: "docker".to_owned(),
        project: ComposeProject::default(),
    }
}

/// `estate-deploy check-container NAME`: its exit code and stdout.
fn binary_check(name: &str) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_estate-deploy"))
        .args(["check-container", name])
        .output()
        .expect("the estate-deploy binary");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn data_in_the_writable_layer_is_refused_and_data_on_a_volume_is_allowed() {
    if skip() {
        return;
    }
    let mut scratch = Scratch::new();
    let volume = format!("{}:/data", scratch.volume());
    let in_layer = scratch.start(
        "layer",
        &["-e", "DATA_DIR=/data"],
        "mkdir -p /data && echo ledger > /data/ledger",
    );
    let on_volume = scratch.start(
        "volume",
        &["-e", "DATA_DIR=/data", "-v", &volume],
        "echo ledger > /data/ledger",
    );

    let refused = check_container(&engine(), &in_layer);
    assert_eq!(
        refused.findings,
        vec![
            Finding::DataInLayer {
                origin: "DATA_DIR".to_owned(),
                path: "/data".to_owned()
            },
            Finding::UnaccountedWrites {
                paths: vec!["/data/ledger".to_owned()],
                more: 0
            },
        ]
    );
    assert_eq!(
        refused.notes[0], "writable layer: 7 B",
        "measured, not assumed"
    );
    let allowed = check_container(&engine(), &on_volume);
    assert!(allowed.is_safe(), "{:?}", allowed.findings);
    assert_eq!(
        allowed.notes,
        [
            "writable layer: 0 B".to_owned(),
            format!(
                "data path /data (DATA_DIR) is on the volume {}",
                scratch.volume()
            ),
        ]
    );

    let (code, stdout) = binary_check(&in_layer);
    assert_eq!(code, Some(3), "{stdout}");
    assert!(
        stdout.starts_with(&format!(
            "UNSAFE  {in_layer}: data path /data (DATA_DIR) is in the writable layer"
        )),
        "{stdout}"
    );
    let (code, stdout) = binary_check(&on_volume);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.starts_with(&format!("SAFE    {on_volume}: writable layer: 0 B")),
        "{stdout}"
    );
}

#[test]
fn an_unknown_container_is_refused() {
    if skip() {
        return;
    }
    let name = format!("{}-missing", Scratch::new().prefix);
    let verdict = check_container(&engine(), &name);
    let [Finding::UnknownContainer(why)] = verdict.findings.as_slice() else {
        panic!("unknown container expected, got {:?}", verdict.findings);
    };
    assert!(why.contains("No such"), "{why}");
    assert_eq!(binary_check(&name).0, Some(3));
}
