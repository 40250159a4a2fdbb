//! "CORS is an allow-list, mounted where it cannot be skipped": a 401 from an auth check on a
//! protected route carries `access-control-allow-origin` for an allowed origin (so a browser
//! shows the 401, not a CORS failure) and no `access-control-*` header for any other origin.

use super::kit::Run;
use crate::report::Section;
use crate::service::Service;
use reqwest::Method;

/// The check's name.
pub const NAME: &str = "cors";
const TITLE: &str = "CORS on a 401";
/// The backend's 401 for a missing token.
pub const UNAUTHORIZED: &str = r#"{"status":"UNAUTHORIZED","message":"authentication required"}"#;
/// An origin no estate allows.
pub const DISALLOWED_ORIGIN: &str = "https://evil.example";
const PATH: &str = "/api/v1/projects";

/// Runs the check.
pub async fn check(run: &mut Run) -> Section {
    if let Some(reason) = run.missing(Service::Backend) {
        return Section::skipped(NAME, TITLE, reason);
    }
    let allowed = run.expect.allowed_origin.clone();
    let mut section = Section::new(
        NAME,
        TITLE,
        format!(
            "`GET {PATH}` without a token, once with `Origin: {allowed}` (allowed) and once \
             with `Origin: {DISALLOWED_ORIGIN}`."
        ),
    );
    for origin in [allowed.as_str(), DISALLOWED_ORIGIN] {
        let request = run
            .estate
            .request(Method::GET, Service::Backend, PATH)
            .header("origin", origin);
        let answer = run.estate.send(request).await;
        let observed = format!("{} {}", answer.status_text(), answer.body);
        section.compare(
            &format!("from {origin}"),
            format!("401 {UNAUTHORIZED}"),
            observed,
        );
        let cors = answer.cors_headers();
        if origin == allowed {
            let header = answer
                .header("access-control-allow-origin")
                .unwrap_or("(none)");
            section.compare("its access-control-allow-origin", allowed.clone(), header);
        } else {
            let observed = if cors.is_empty() {
                "none".to_owned()
            } else {
                cors.join(", ")
            };
            section.compare("its access-control-* headers", "none", observed);
        }
        section.line(format!(
            "Origin: {origin}  →  {}  access-control-allow-origin: {}",
            answer.status_text(),
            answer.header("access-control-allow-origin").unwrap_or("-")
        ));
    }
    section
}
