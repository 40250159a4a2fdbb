//! The ingress binary: dispatch the command line (serve, `validate`, `rule URL`,
//! `--healthcheck`, `--help`); see [`ingress::cli`].

use std::process::ExitCode;

// The proxied port runs on its own worker threads (`ingress::workers`); this thread keeps
// the signals, the admin port and the health checks.
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    ingress::cli::main(std::env::args().skip(1)).await
}
