//! "What the edge does provide", as the ingress plays the edge: HSTS for a year including
//! subdomains on every HTTPS answer and none over plain HTTP (a browser ignores it there,
//! RFC 6797 §8.1), plain HTTP redirected to the same URL on HTTPS when the probe is told the
//! plain port (`--plain-url`), and the services' metrics not reachable on public hostnames
//! (the ingress map answers `http_status:404` there; docs/DESIGN.md, "Services, ports and hostnames" and "The ingress and the cluster").

use super::kit::Run;
use crate::report::Section;
use crate::service::Service;
use reqwest::Method;

/// The check's name.
pub const NAME: &str = "edge";
const TITLE: &str = "What the edge does provide";
/// The ingress's HSTS value (the same as a tunnel's edge sends, with a space before the `;`).
pub const HSTS: &str = "max-age=31536000; includeSubDomains";
/// How a report shows a header that is not there.
const NONE: &str = "(none)";

/// Runs the check.
pub async fn check(run: &mut Run) -> Section {
    let through: Vec<Service> = Service::ALL
        .into_iter()
        .filter(|service| run.estate.via_ingress(*service))
        .collect();
    if through.is_empty() {
        return Section::skipped(NAME, TITLE, "no service is reached through the ingress");
    }
    let mut section = Section::new(
        NAME,
        TITLE,
        "Each service's health through the ingress (HSTS over HTTPS only), the same URL over \
         plain HTTP when its port is given (a redirect, no HSTS), and its metrics path on its \
         public hostname.",
    );
    for service in through {
        let health_url = run.estate.url(service, service.health_path());
        let expected = if health_url.starts_with("https://") {
            HSTS
        } else {
            NONE
        };
        let health = run
            .estate
            .send(run.estate.request_url(Method::GET, &health_url))
            .await;
        let observed = health.header("strict-transport-security").unwrap_or(NONE);
        section.compare(
            &format!("{service}: `strict-transport-security`"),
            expected,
            observed,
        );
        let metrics = match service {
            Service::Backend => "/actuator/prometheus",
            _ => "/metrics",
        };
        let answer = run
            .estate
            .send(run.estate.request(Method::GET, service, metrics))
            .await;
        section.compare(
            &format!("{service}: `GET {metrics}`"),
            "404",
            answer.status_text(),
        );
        section.line(format!(
            "{service}  GET {}  {}  strict-transport-security: {observed}   GET {metrics}  {}",
            service.health_path(),
            health.status_text(),
            answer.status_text()
        ));
        plain(run, &mut section, service, &health_url).await;
    }
    section
}

/// Plain HTTP: a `308` to the HTTPS URL, and no HSTS.
async fn plain(run: &Run, section: &mut Section, service: Service, https_url: &str) {
    let Some(url) = run.estate.plain_url(service, service.health_path()) else {
        return;
    };
    let answer = run
        .estate
        .send(run.estate.request_url(Method::GET, &url))
        .await;
    let label = |what: &str| format!("{service}: plain HTTP {what}");
    section.compare(&label("status"), "308", answer.status_text());
    let location = answer.header("location").unwrap_or(NONE);
    section.compare(&label("`location`"), https_url, location);
    let hsts = answer.header("strict-transport-security").unwrap_or(NONE);
    section.compare(&label("`strict-transport-security`"), NONE, hsts);
    section.line(format!(
        "{service}  GET {url}  {}  location: {location}  strict-transport-security: {hsts}",
        answer.status_text()
    ));
}
