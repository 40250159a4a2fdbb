//! `estate-probe`: the estate's reference measurements against a running estate (`--help`).

use clap::Parser;
use platform_core::ProcessEnv;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let settings = match probe::cli::Args::parse().settings(&ProcessEnv) {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("estate-probe: {error}");
            return ExitCode::from(64);
        }
    };
    match probe::run(settings).await {
        Ok(report) => {
            print!("{}", probe::render::markdown(&report));
            let mismatches = report.mismatches();
            eprintln!(
                "estate-probe: {} agree, {mismatches} mismatched",
                report.passes()
            );
            if mismatches == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("estate-probe: {error}");
            ExitCode::from(2)
        }
    }
}
