//! `ingress validate`: cloudflared's output ("Validating rules from …", then "OK") and, for
//! each refusal, the exact message after "Validation failed: ", with exit status 1.

use crate::process::run;

/// The message `ingress validate` gives for `yaml` (and checks the rest of the output).
fn refusal(yaml: &str) -> String {
    let out = run(&["validate"], yaml);
    assert_eq!(out.code, 1, "{yaml}\nstdout: {}", out.stdout);
    assert_eq!(out.stdout, format!("Validating rules from {}\n", out.path));
    out.stderr
        .strip_prefix("Validation failed: ")
        .and_then(|rest| rest.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("unexpected stderr: {}", out.stderr))
        .to_owned()
}

fn rules(list: &str) -> String {
    format!("ingress:\n{list}")
}

#[test]
fn a_valid_file_is_ok_and_unknown_keys_are_ignored() {
    let yaml = r#"
tunnel: 6ff42ae2
credentials-file: /etc/cloudflared/x.json
warp-routing: {enabled: true}
originRequest: {noTLSVerify: true, connectTimeout: 10s}
ingress:
  - hostname: a.example.com
    service: http://127.0.0.1:1
    originRequest: {access: {required: false}, proxyType: socks}
  - service: http_status:404
estate: {drainTimeout: 1s, somethingNew: 1}
"#;
    let out = run(&["validate"], yaml);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    assert_eq!(
        out.stdout,
        format!("Validating rules from {}\nOK\n", out.path)
    );
}

#[test]
fn cloudflared_rule_messages_word_for_word() {
    let cases = [
        (
            "tunnel: x\n".to_owned(),
            "The config file doesn't contain any ingress rules",
        ),
        (
            rules("  - hostname: a.example.com\n    service: http://127.0.0.1:1\n"),
            "The last ingress rule must match all URLs (i.e. it should not have a hostname or path filter)",
        ),
        (
            rules("  - path: ^/x\n    service: http_status:404\n"),
            "The last ingress rule must match all URLs (i.e. it should not have a hostname or path filter)",
        ),
        (
            rules(
                "  - hostname: a.example.com\n    service: http://127.0.0.1:1\n  - hostname: \"*\"\n    service: http_status:404\n  - service: http_status:404\n",
            ),
            "Rule #2 is matching the hostname '*', but this will match every hostname, meaning the rules which follow it will never be triggered.",
        ),
        (
            rules("  - service: http://127.0.0.1:1\n  - service: http_status:404\n"),
            "Rule #1 is matching the hostname '', but this will match every hostname, meaning the rules which follow it will never be triggered.",
        ),
        (
            rules(
                "  - hostname: a.example.com:443\n    service: http://127.0.0.1:1\n  - service: http_status:404\n",
            ),
            "Hostname cannot contain a port",
        ),
        (
            rules(
                "  - hostname: a.*.example.com\n    service: http://127.0.0.1:1\n  - service: http_status:404\n",
            ),
            "Hostname patterns can have at most one wildcard character (\"*\") and it can only be used for subdomains, e.g. \"*.example.com\"",
        ),
    ];
    for (yaml, message) in cases {
        assert_eq!(refusal(&yaml), message, "{yaml}");
    }
}

#[test]
fn an_invalid_regex_names_its_rule() {
    let yaml = rules(
        "  - hostname: a.example.com\n    service: http://127.0.0.1:1\n  - hostname: b.example.com\n    path: /(unclosed\n    service: http://127.0.0.1:1\n  - service: http_status:404\n",
    );
    let message = refusal(&yaml);
    assert!(
        message.starts_with("Rule #2 has an invalid regex: "),
        "{message}"
    );
}

#[test]
fn cloudflared_service_messages_word_for_word() {
    let service = |service: &str| {
        rules(&format!(
            "  - hostname: a.example.com\n    service: {service}\n  - service: http_status:404\n"
        ))
    };
    let cases = [
        ("http_status:1000", "invalid HTTP status code: 1000"),
        ("http_status:99", "invalid HTTP status code: 99"),
        (
            "http_status:teapot",
            "invalid HTTP status code: strconv.Atoi: parsing \"teapot\": invalid syntax",
        ),
        (
            "localhost:8000",
            "localhost:8000 is an invalid address, please make sure it has a scheme and a hostname",
        ),
        (
            "http://localhost:8000/api",
            "http://localhost:8000/api is an invalid address, ingress rules don't support proxying to a different path on the origin service. The path will be the same as the eyeball request's path",
        ),
    ];
    for (value, message) in cases {
        assert_eq!(refusal(&service(value)), message, "{value}");
    }
}

#[test]
fn this_ingress_names_what_it_does_not_serve_and_the_key_at_fault() {
    let cases = [
        (
            rules("  - hostname: a.example.com\n    service: https://localhost:8443\n  - service: http_status:404\n"),
            "https://localhost:8443 is not supported by this ingress: a service is http://host:port or http_status:NNN",
        ),
        (
            rules("  - hostname: a.example.com\n    service: hello_world\n  - service: http_status:404\n"),
            "hello_world is not supported by this ingress: a service is http://host:port or http_status:NNN",
        ),
        (
            "originRequest:\n  connectTimeout: soon\ningress:\n  - service: http_status:404\n".to_owned(),
            "originRequest.connectTimeout is not a duration: expected number at 0 (write it like \"30s\", \"1m30s\" or \"500ms\")",
        ),
        (
            "ingress:\n  - service: http_status:404\nestate:\n  pools:\n    - service: http://127.0.0.1:1\n".to_owned(),
            "estate.pools[0].service: 'http://127.0.0.1:1' is not the service of any ingress rule",
        ),
        (
            "ingress:\n  - service: http://127.0.0.1:1\nestate:\n  pools:\n    - service: http://127.0.0.1:1\n      origins: [http://127.0.0.1:1/x]\n".to_owned(),
            "estate.pools[0].origins[0]: http://127.0.0.1:1/x is an invalid address, ingress rules don't support proxying to a different path on the origin service. The path will be the same as the eyeball request's path",
        ),
        (
            "ingress:\n  - service: http://127.0.0.1:1\nestate:\n  healthCheck: {path: health}\n  pools:\n    - service: http://127.0.0.1:1\n".to_owned(),
            "estate.pools[0].healthCheck.path: must start with '/'",
        ),
    ];
    for (yaml, message) in cases {
        assert_eq!(refusal(&yaml), message, "{yaml}");
    }
}

#[test]
fn a_missing_file_is_named() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ingress"))
        .arg("validate")
        .env("INGRESS_CONFIG", "/nonexistent/ingress.yml")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Validation failed: cannot read the ingress file /nonexistent/ingress.yml: No such file or directory (os error 2)\n"
    );
}

#[test]
fn serving_a_refused_file_exits_64_with_the_reason() {
    let yaml = rules("  - hostname: a.example.com\n    service: http://127.0.0.1:1\n");
    let (_dir, path) = {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("ingress.yml");
        std::fs::write(&path, yaml).expect("written");
        (dir, path)
    };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ingress"))
        .env("INGRESS_CONFIG", &path)
        .env("PORT", "0")
        .env("INGRESS_ADMIN_PORT", "0")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(64));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ingress: The last ingress rule must match all URLs (i.e. it should not have a hostname or path filter)\n"
    );
}
