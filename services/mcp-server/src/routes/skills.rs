//! `GET /skills/package`: the estate's agent skills as one `.tar.gz` (see [`crate::skills`]).

use crate::skills::ARCHIVE_NAME;
use crate::state::AppState;
use actix_web::http::header::{CACHE_CONTROL, CONTENT_DISPOSITION};
use actix_web::{HttpResponse, web};

/// The archive, built at start-up.
pub async fn package(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/gzip")
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"{ARCHIVE_NAME}\""),
        ))
        .insert_header((CACHE_CONTROL, "no-cache"))
        .body(state.skills_package.clone())
}
