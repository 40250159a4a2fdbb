//! The ai-service binary: settings from the environment, build, serve until SIGTERM, drain.

use ai_service::{AiConfig, Application, SERVICE};
use std::process::ExitCode;

#[actix_web::main]
async fn main() -> ExitCode {
    platform::cli::main(&SERVICE, |env| async move {
        let config = AiConfig::from_env(&env)?;
        Application::build(config)?.run_until_stopped().await
    })
    .await
}
