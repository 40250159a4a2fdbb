//! The ingress binary: dispatch the command line (serve, `validate`, `rule URL`,
//! `--healthcheck`, `--help`); see [`ingress::cli`].

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    ingress::cli::main(std::env::args().skip(1)).await
}
