//! The rule-matching table, asked two ways: `ingress rule URL` (cloudflared's output) and a
//! real request through the proxy (which origin answered, or which status).

use crate::origins::Origin;
use crate::process::{Ingress, run};

/// Rules: 0 blocks metrics on every *.localhost (anchored path regex), 1 an exact host, 2 an
/// exact host before the wildcard that would also match it, 3 a `*.` wildcard, 4 a path-only
/// rule (unanchored regex), 5 the catch-all.
fn file(api: &Origin, wild: &Origin, assets: &Origin) -> String {
    format!(
        r#"
ingress:
  - hostname: "*.localhost"
    path: ^/metrics
    service: http_status:403
  - hostname: api.localhost
    service: {api}
  - hostname: admin.example.com
    service: http_status:410
  - hostname: "*.example.com"
    service: {wild}
  - path: /static/.*\.css
    service: {assets}
  - service: http_status:404
"#,
        api = api.url(),
        wild = wild.url(),
        assets = assets.url(),
    )
}

/// (host, path, matched rule, what answers: an origin's name or a status).
const TABLE: [(&str, &str, usize, &str); 21] = [
    ("api.localhost", "/api/v1/projects", 1, "api"),
    ("api.localhost:8080", "/", 1, "api"),
    ("api.localhost", "/metrics", 0, "403"),
    ("api.localhost", "/%6detrics", 0, "403"),
    ("api.localhost", "/x/../metrics", 0, "403"),
    ("api.localhost", "/%2e/metrics;x", 0, "403"),
    ("api.localhost", "//metrics", 0, "403"),
    ("ai.localhost", "/metrics/x", 0, "403"),
    ("api.localhost", "/v1/metrics", 1, "api"),
    ("API.Localhost", "/metrics", 0, "403"),
    ("api.localhost.", "/metrics", 0, "403"),
    ("api.localhost.:8080", "/", 1, "api"),
    ("Admin.Example.COM.", "/", 2, "410"),
    ("a.example.com.", "/", 3, "wild"),
    ("admin.example.com", "/", 2, "410"),
    ("a.example.com", "/", 3, "wild"),
    ("a.b.example.com", "/x", 3, "wild"),
    ("example.com", "/", 5, "404"),
    ("other.test", "/v2/static/site.css", 4, "assets"),
    ("example.com", "/static/a.css?v=1", 4, "assets"),
    ("other.test", "/static/a.js", 5, "404"),
];

#[actix_web::test]
async fn ingress_rule_prints_the_matched_rule_counting_from_zero() {
    let (api, wild, assets) = (
        Origin::start("api"),
        Origin::start("wild"),
        Origin::start("assets"),
    );
    let yaml = file(&api, &wild, &assets);
    for (host, path, index, _) in TABLE {
        let url = format!("http://{host}{path}");
        let out = run(&["rule", &url], &yaml);
        assert_eq!(out.code, 0, "{url}: {}", out.stderr);
        let expected = format!("Using rules from {}\nMatched rule #{index}\n", out.path);
        assert!(out.stdout.starts_with(&expected), "{url}:\n{}", out.stdout);
    }
    let out = run(&["rule", "https://a.b.example.com/x"], &yaml);
    assert_eq!(
        out.stdout,
        format!(
            "Using rules from {}\nMatched rule #3\n\thostname: *.example.com\n\tservice: {}\n",
            out.path,
            wild.url()
        )
    );
    let out = run(&["rule", "http://api.localhost/metrics"], &yaml);
    assert!(out.stdout.ends_with(
        "Matched rule #0\n\thostname: *.localhost\n\tpath: ^/metrics\n\tservice: http_status:403\n"
    ));
}

#[actix_web::test]
async fn ingress_rule_says_which_paths_the_edge_refuses() {
    let yaml = "ingress:\n  - service: http_status:404\n";
    let out = run(&["rule", "http://a.test/a%2fb"], yaml);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "http://a.test/a%2fb is refused with 400 before any rule: an encoded '/' or a '\\' in the path\n"
    );
}

#[actix_web::test]
async fn ingress_rule_refuses_a_url_without_a_host() {
    let yaml = "ingress:\n  - service: http_status:404\n";
    let out = run(&["rule", "example.com/x"], yaml);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "example.com/x doesn't have a hostname, consider adding a scheme\n"
    );
}

#[actix_web::test]
async fn real_requests_follow_the_same_table() {
    let (api, wild, assets) = (
        Origin::start("api"),
        Origin::start("wild"),
        Origin::start("assets"),
    );
    let ingress = Ingress::start(&file(&api, &wild, &assets));
    let client = crate::client();
    for (host, path, index, answer) in TABLE {
        let response = client
            .get(ingress.url(path))
            .header("host", host)
            .send()
            .await
            .expect("the ingress answers");
        let status = response.status().as_u16();
        match answer.parse::<u16>() {
            Ok(code) => {
                assert_eq!(status, code, "{host}{path} (rule #{index})");
                assert_eq!(response.text().await.expect("body"), "", "{host}{path}");
            }
            Err(_) => {
                assert_eq!(status, 200, "{host}{path} (rule #{index})");
                let seen: serde_json::Value = response.json().await.expect("the echo");
                assert_eq!(seen["origin"], answer, "{host}{path} (rule #{index})");
                let raw_path = path.split('?').next().expect("a path");
                assert_eq!(seen["path"], raw_path, "the origin sees the path as sent");
            }
        }
    }
    let metrics = ingress.metrics().await;
    assert!(
        metrics.contains(r#"ingress_requests_total{rule="0",code="403"} 8"#),
        "{metrics}"
    );
    assert!(
        metrics.contains(r#"ingress_requests_total{rule="3",code="200"} 3"#),
        "{metrics}"
    );
}
