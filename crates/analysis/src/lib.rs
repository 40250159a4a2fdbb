//! The analysis contract of the estate: what `POST /analyze` takes and answers, in one place
//! for the analyzer that answers it and for every service that asks it or relays its answer
//! (the backend, the ai-service, the mcp-server).
//!
//! # Layout
//! - [`severity`]: [`Severity`], ordered `Info < Warning < Error`, so "at least an error" is
//!   a comparison, never a string match.
//! - [`finding`]: [`Finding`], one problem at one place in one file.
//! - [`request`]: [`AnalyzeRequest`] and its [`AnalyzeFile`]s.
//! - [`answer`]: [`AnalyzeAnswer`], the findings and their [`Summary`].
//! - [`bounds`]: how an answer is bounded: [`Summary`], the [`Truncation`] marker and its
//!   [`Cut`], [`keep_within`], and the most bytes a relay reads of an answer.

pub mod answer;
pub mod bounds;
pub mod finding;
pub mod request;
pub mod severity;

pub use answer::AnalyzeAnswer;
pub use bounds::{Cut, MAX_ANALYSIS_ANSWER_BYTES, Summary, Truncation, keep_within};
pub use finding::Finding;
pub use request::{AnalyzeFile, AnalyzeRequest};
pub use severity::{Severity, UnknownSeverity};
