//! The ingress binary: dispatch the command line (serve, `validate`, `rule URL`,
//! `--healthcheck`, `--help`); see [`ingress::cli`].

use std::process::ExitCode;

/// Every request allocates its head, headers and futures and frees them within microseconds:
/// mimalloc's per-thread pages serve that without glibc's locks and consolidation.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The proxied port runs on its own worker threads (`ingress::workers`); this thread keeps
// the signals, the admin port and the health checks.
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    ingress::cli::main(std::env::args().skip(1)).await
}
