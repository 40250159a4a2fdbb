//! `estate-deploy`: the deploy guard and the roll (`scripts/deploy` runs it); see cli.rs.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let project = std::env::var("COMPOSE_PROJECT_NAME")
        .ok()
        .filter(|name| !name.is_empty());
    ExitCode::from(deploy::cli::main(&args, project))
}
