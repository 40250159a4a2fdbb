//! "What the edge does provide", as the ingress plays the edge: HSTS for a year including
//! subdomains on every answer, and the services' metrics not reachable on public hostnames
//! (the ingress map answers `http_status:404` there; DESIGN.md §4.14, §9).

use super::Run;
use crate::report::Section;
use crate::service::Service;
use reqwest::Method;

/// The check's name.
pub const NAME: &str = "edge";
const TITLE: &str = "What the edge does provide";
/// The ingress's HSTS value (the seed's edge sent the same, with a space before the `;`).
pub const HSTS: &str = "max-age=31536000; includeSubDomains";

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
        "Each service's health through the ingress, and its metrics path on its public hostname.",
    );
    for service in through {
        let request = run
            .estate
            .request(Method::GET, service, service.health_path());
        let health = run.estate.send(request).await;
        let observed = health
            .header("strict-transport-security")
            .unwrap_or("(none)");
        let label = format!("{service}: `strict-transport-security`");
        section.compare(&label, HSTS, observed);
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
    }
    section
}
