//! estate-probe against the real backend and analyzer, started in-process on port 0 (no
//! ingress: each service at its own URL), a stand-in origin for the restart window, and the
//! binary's exit status and report.

mod binary;
mod helpers;
mod restart;
mod whole_run;
