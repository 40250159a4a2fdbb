//! `GET /install.sh`: a POSIX `sh` script that registers this server with an MCP client
//! (`claude mcp add`, or a `.mcp.json` entry written or merged). The script is rendered once at
//! start-up from `assets/install.sh` and the validated public URL (see [`crate::public_url`]):
//! nothing a request says can reach a script people pipe to `sh`.

use crate::public_url::PublicUrl;
use crate::state::AppState;
use actix_web::http::header::CACHE_CONTROL;
use actix_web::{HttpResponse, web};

const TEMPLATE: &str = include_str!("../../assets/install.sh");
const URL_PLACEHOLDER: &str = "__ESTATE_MCP_URL__";

/// The script for a server reached at `url`.
pub fn render(url: &PublicUrl) -> String {
    TEMPLATE.replace(URL_PLACEHOLDER, &url.endpoint())
}

/// The rendered script.
pub async fn script(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/x-shellscript; charset=utf-8")
        .insert_header((CACHE_CONTROL, "no-cache"))
        .body(state.installer.clone())
}
