//! The restart window against a stand-in origin reached as `analyzer.localhost` at one base
//! address (as through the ingress): it answers the edge's `error code: 502` while a flag file
//! exists, and the restart command creates the file for a while.

use actix_web::{App, HttpResponse, HttpServer, web};
use probe::checks::restart::Plan;
use probe::estate::Targets;
use probe::expect::Expectations;
use probe::report::Report;
use probe::service::Service;
use probe::{Settings, checks};
use std::path::PathBuf;
use std::time::Duration;

async fn health(flag: web::Data<PathBuf>) -> HttpResponse {
    if flag.exists() {
        HttpResponse::BadGateway().body("error code: 502")
    } else {
        HttpResponse::Ok().json(serde_json::json!({ "status": "UP" }))
    }
}

fn settings(base: &str, command: String) -> Settings {
    let mut targets = Targets::ingress(base);
    targets.services = vec![Service::Analyzer];
    Settings {
        targets,
        expect: Expectations::from_env(&platform_core::MapEnv::default()).expect("defaults"),
        analyzer_token: None,
        checks: checks::select(&["restart".to_owned()], &[]).expect("a check"),
        restart: Some(Plan {
            command,
            service: Service::Analyzer,
            path: "/health".to_owned(),
            interval: Duration::from_millis(20),
            timeout: Duration::from_secs(30),
            max_failures: None,
        }),
        commit: None,
    }
}

fn observed<'a>(report: &'a Report, measurement: &str) -> &'a str {
    let section = report.section("restart").expect("ran");
    section
        .rows
        .iter()
        .find(|row| row.measurement.starts_with(measurement))
        .map(|row| row.observed.as_str())
        .expect("a row")
}

#[actix_web::test]
async fn the_window_is_measured_and_every_failure_is_the_edges_502() {
    let dir = tempfile::tempdir().expect("a directory");
    let flag = dir.path().join("down");
    let data = web::Data::new(flag.clone());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/health", web::get().to(health))
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .expect("a port");
    let base = format!("http://127.0.0.1:{}", server.addrs()[0].port());
    actix_web::rt::spawn(server.run());

    let flag = flag.display();
    let command = format!("touch {flag} && sleep 0.5 && rm {flag}");
    let report = probe::run(settings(&base, command)).await.expect("runs");
    let markdown = probe::render::markdown(&report);
    assert_eq!(report.mismatches(), 0, "{markdown}");
    let failures = observed(&report, "every failure");
    assert!(failures.ends_with(" × 502 `error code: 502`"), "{failures}");
    let window = observed(&report, "the window");
    let millis: u64 = window
        .split(' ')
        .next()
        .and_then(|ms| ms.parse().ok())
        .expect("ms");
    assert!((400..2_000).contains(&millis), "{window}");

    let failing = probe::run(settings(&base, "exit 3".to_owned()))
        .await
        .expect("runs");
    assert_eq!(failing.mismatches(), 1);
    assert_eq!(observed(&failing, "`exit 3`"), "exit 3");
}
