//! Parsing the file: the extension, the match order, and messages that need the whole file.

use super::*;
use std::time::Duration;

fn parse(text: &str) -> Result<IngressConfig, IngressError> {
    IngressConfig::parse(text, Path::new("test.yml"))
}

const FILE: &str = r#"
tunnel: ignored-by-us
originRequest:
  connectTimeout: 2s
ingress:
  - hostname: "*.localhost"
    path: ^/metrics
    service: http_status:404
  - hostname: api.localhost
    service: http://127.0.0.1:9800
    originRequest:
      httpHostHeader: backend
  - hostname: "*.example.com"
    service: http://127.0.0.1:9001
  - service: http_status:404
estate:
  drainTimeout: 10s
  connectRetryDeadline: 3s
  healthCheck:
    path: /health
    interval: 500ms
  pools:
    - service: http://127.0.0.1:9800
      origins: [http://127.0.0.1:9800, http://127.0.0.1:9801]
      healthCheck:
        path: /actuator/health
"#;

#[test]
fn reads_rules_origin_requests_and_the_extension() {
    let config = parse(FILE).expect("valid");
    assert_eq!(config.rules.len(), 4);
    assert_eq!(
        config.rules[1].origin_request.connect_timeout,
        Duration::from_secs(2)
    );
    assert_eq!(
        config.rules[1]
            .origin_request
            .http_host_header
            .as_ref()
            .map(|v| v.as_bytes()),
        Some(&b"backend"[..])
    );
    assert_eq!(config.estate.drain_timeout, Duration::from_secs(10));
    assert_eq!(config.estate.connect_retry_deadline, Duration::from_secs(3));
    assert!(config.estate.hsts);
    let pool = config
        .estate
        .pool("http://127.0.0.1:9800")
        .expect("declared");
    let dials: Vec<&str> = pool.origins.iter().map(|o| o.dial.as_str()).collect();
    assert_eq!(dials, ["127.0.0.1:9800", "127.0.0.1:9801"]);
    let check = pool.health_check.as_ref().expect("configured");
    assert_eq!(check.path, "/actuator/health", "the pool's own path");
    assert_eq!(
        check.interval,
        Duration::from_millis(500),
        "the default's interval"
    );
    assert_eq!(
        check.timeout,
        Duration::from_secs(1),
        "the built-in timeout"
    );
}

#[test]
fn first_match_wins_and_the_last_rule_catches_the_rest() {
    let config = parse(FILE).expect("valid");
    let index = |host: &str, path: &str| config.find(host, path).0;
    assert_eq!(index("api.localhost", "/metrics"), 0);
    assert_eq!(index("api.localhost:8080", "/api/v1/x"), 1);
    assert_eq!(index("a.b.example.com", "/"), 2);
    assert_eq!(index("example.com", "/"), 3);
    assert_eq!(index("", "/"), 3);
    assert_eq!(
        config.rules[1].describe(),
        "\thostname: api.localhost\n\tservice: http://127.0.0.1:9800"
    );
}

#[test]
fn the_extension_is_checked_against_the_rules() {
    let bad_pool = FILE.replace(
        "    - service: http://127.0.0.1:9800\n",
        "    - service: http://nowhere:1\n",
    );
    assert_eq!(
        parse(&bad_pool).expect_err("unknown service").to_string(),
        "estate.pools[0].service: 'http://nowhere:1' is not the service of any ingress rule"
    );
    let bad_origin = FILE.replace("http://127.0.0.1:9801]", "127.0.0.1:9801]");
    assert_eq!(
        parse(&bad_origin).expect_err("no scheme").to_string(),
        "estate.pools[0].origins[1]: 127.0.0.1:9801 is an invalid address, please make sure it has a scheme and a hostname"
    );
    let bad_path = FILE.replace("path: /actuator/health", "path: actuator/health");
    assert_eq!(
        parse(&bad_path).expect_err("relative").to_string(),
        "estate.pools[0].healthCheck.path: must start with '/'"
    );
}

#[test]
fn an_empty_file_has_no_rules_and_bad_yaml_names_the_file() {
    assert_eq!(
        parse("tunnel: x\n").expect_err("empty").to_string(),
        "The config file doesn't contain any ingress rules"
    );
    let error = parse("ingress: [").expect_err("bad yaml").to_string();
    assert!(
        error.starts_with("test.yml is not a valid ingress file: "),
        "{error}"
    );
}

#[test]
fn the_http2_idle_timeout_defaults_to_75s_and_must_be_more_than_zero() {
    let base = "ingress:\n  - service: http_status:404\n";
    let default = parse(base).expect("valid");
    assert_eq!(default.estate.http2_idle_timeout, Duration::from_secs(75));
    let set = parse(&format!("{base}estate:\n  http2IdleTimeout: 1m30s\n")).expect("valid");
    assert_eq!(set.estate.http2_idle_timeout, Duration::from_secs(90));
    let zero = parse(&format!("{base}estate:\n  http2IdleTimeout: 0s\n")).expect_err("zero");
    assert_eq!(
        zero.to_string(),
        "estate.http2IdleTimeout: must be more than 0s"
    );
}

#[test]
fn the_send_timeout_defaults_to_60s_and_must_be_more_than_zero() {
    let base = "ingress:\n  - service: http_status:404\n";
    let default = parse(base).expect("valid");
    assert_eq!(default.estate.send_timeout, Duration::from_secs(60));
    let set = parse(&format!("{base}estate:\n  sendTimeout: 2m\n")).expect("valid");
    assert_eq!(set.estate.send_timeout, Duration::from_secs(120));
    let zero = parse(&format!("{base}estate:\n  sendTimeout: 0s\n")).expect_err("zero");
    assert_eq!(zero.to_string(), "estate.sendTimeout: must be more than 0s");
}

#[test]
fn the_client_bounds_default_as_documented_and_refuse_zero() {
    let base = "ingress:\n  - service: http_status:404\n";
    let default = parse(base).expect("valid").estate.bounds;
    assert_eq!(default, super::ClientBounds::DEFAULT);
    assert_eq!(
        (
            default.max_connections,
            default.max_connections_per_client,
            default.max_streams_per_client
        ),
        (4096, 256, 1024)
    );
    assert_eq!(default.request_body_timeout, Duration::from_secs(60));
    assert_eq!(default.websocket_idle_timeout, Duration::from_secs(100));
    assert_eq!(default.cancelled_streams_per_client, 1000);
    assert_eq!(default.max_request_body_bytes, 100 * 1024 * 1024);
    let set = parse(&format!(
        "{base}estate:\n  maxConnections: 10\n  maxConnectionsPerClient: 3\n  \
         maxStreamsPerClient: 7\n  requestBodyTimeout: 5s\n  websocketIdleTimeout: 1m\n"
    ))
    .expect("valid")
    .estate
    .bounds;
    assert_eq!(
        (
            set.max_connections,
            set.max_connections_per_client,
            set.max_streams_per_client
        ),
        (10, 3, 7)
    );
    assert_eq!(set.request_body_timeout, Duration::from_secs(5));
    assert_eq!(set.websocket_idle_timeout, Duration::from_secs(60));
    for (key, value, reason) in [
        ("maxConnections", "0", "must be at least 1"),
        ("maxConnectionsPerClient", "0", "must be at least 1"),
        ("maxStreamsPerClient", "0", "must be at least 1"),
        ("cancelledStreamsPerClient", "0", "must be at least 1"),
        ("maxRequestBodyBytes", "0", "must be at least 1"),
        ("requestBodyTimeout", "0s", "must be more than 0s"),
        ("websocketIdleTimeout", "0ms", "must be more than 0s"),
    ] {
        let error = parse(&format!("{base}estate:\n  {key}: {value}\n")).expect_err(key);
        assert_eq!(error.to_string(), format!("estate.{key}: {reason}"));
    }
    let negative = parse(&format!("{base}estate:\n  maxConnections: -1\n"));
    assert!(negative.is_err(), "a negative count is refused");
}
