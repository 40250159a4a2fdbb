//! The binary: its exit status says whether every measurement agreed; the report is on stdout.

use crate::helpers::Estate;
use std::process::Output;

const EXPECT_NAMES: [&str; 10] = probe::expect::NAMES;

async fn probe_binary(args: &[&str]) -> Output {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_estate-probe"));
    command
        .args(args)
        .env_remove("ANALYZER_TOKEN")
        .env_remove("ESTATE_BASE_URL")
        .env_remove("ESTATE_COMMIT");
    for name in EXPECT_NAMES {
        command.env_remove(name);
    }
    command.output().await.expect("the binary runs")
}

#[actix_web::test]
async fn the_exit_status_follows_the_measurements() {
    let estate = Estate::start().await;
    let direct = [
        "--services",
        "backend",
        "--backend-url",
        estate.backend.as_str(),
    ];
    let mut args = vec!["--only", "cors", "--commit", "abc123"];
    args.extend(direct);
    let agreed = probe_binary(&args).await;
    let stdout = String::from_utf8_lossy(&agreed.stdout);
    assert_eq!(agreed.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("commit `abc123`"), "{stdout}");
    assert!(stdout.contains("### CORS on a 401\n"), "{stdout}");
    assert!(
        stdout.contains("| its access-control-* headers | none | none | ok |"),
        "{stdout}"
    );

    args.extend(["--expect", "CORS_ALLOWED_ORIGINS=http://elsewhere.example"]);
    let mismatched = probe_binary(&args).await;
    let stdout = String::from_utf8_lossy(&mismatched.stdout);
    assert_eq!(mismatched.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("**MISMATCH**"), "{stdout}");
}

#[actix_web::test]
async fn bad_arguments_are_refused_before_anything_is_sent() {
    let unknown = probe_binary(&["--only", "everything"]).await;
    assert_eq!(unknown.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown check \"everything\""));
    let expect = probe_binary(&["--expect", "PORT=1"]).await;
    assert_eq!(expect.status.code(), Some(64));
    let help = probe_binary(&["--help"]).await;
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("--skip per-ip"));
}
