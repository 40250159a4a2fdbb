//! The answer of `POST /analyze`: `{"findings":[…],"summary":{…}}`, as the analyzer writes it
//! and every relay reads it.

use crate::{Finding, Summary};
use serde::{Deserialize, Serialize};

/// The analyzer's answer to one request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzeAnswer {
    /// Every finding kept, in the analyzer's order (path, line, column, rule id).
    pub findings: Vec<Finding>,
    /// The counts, and the `truncated` marker when a bound cut the findings.
    pub summary: Summary,
}
