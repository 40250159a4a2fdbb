//! The golden corpus over HTTP: every corpus file in one `/analyze` batch with the corpus's
//! custom rules must return exactly the pinned findings, through the real service.

use crate::helpers::TestApp;
use serde_json::{Value, json};
use std::path::Path;

fn corpus_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn read_json(name: &str) -> Value {
    let text = std::fs::read_to_string(corpus_dir().join(name)).expect("a corpus file");
    serde_json::from_str(&text).expect("corpus JSON")
}

fn corpus_files() -> Vec<Value> {
    let mut paths: Vec<_> = std::fs::read_dir(corpus_dir())
        .expect("the corpus directory")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_none_or(|extension| extension != "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let name = path
                .file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            json!({ "path": name, "content": std::fs::read_to_string(path).expect("UTF-8 source") })
        })
        .collect()
}

#[actix_web::test]
async fn the_service_returns_exactly_the_pinned_findings() {
    let app = TestApp::spawn(&[]).await;
    let batch = json!({ "files": corpus_files(), "rules": read_json("rules.json") });
    let response = app.post("/analyze", &batch).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("JSON");
    let expected = read_json("expected.json");
    let (found, pinned) = (
        body["findings"].as_array().expect("findings"),
        expected.as_array().expect("array"),
    );
    let missing: Vec<_> = pinned
        .iter()
        .filter(|finding| !found.contains(finding))
        .collect();
    let unexpected: Vec<_> = found
        .iter()
        .filter(|finding| !pinned.contains(finding))
        .collect();
    assert!(
        missing.is_empty() && unexpected.is_empty(),
        "missing: {missing:#?}\nunexpected: {unexpected:#?}"
    );
    assert_eq!(found, pinned, "same findings, same order");
    assert_eq!(body["summary"]["findings"], pinned.len());
}

/// Text beyond ASCII right before a string or a bracket, which once panicked the analysis:
/// every language answers 200 with its findings, never a 500.
#[actix_web::test]
async fn text_beyond_ascii_next_to_strings_is_analyzed() {
    let app = TestApp::spawn(&[]).await;
    let content =
        "log.debug(🙂(password))\nlog.debug(\"x\", é\"secret\", x)\nprint(字[\"token\"])\n";
    let files: Vec<Value> = ["a.py", "a.rs", "a.js", "a.ts", "a.go", "A.java"]
        .iter()
        .map(|path| json!({ "path": path, "content": content }))
        .collect();
    let response = app.post("/analyze", &json!({ "files": files })).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("JSON");
    assert!(body["findings"].is_array(), "{body}");
}
