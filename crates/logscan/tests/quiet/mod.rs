//! What the suites of near misses share: the cases that give a finding, which must be none.

use crate::common::findings;

/// Each case of `cases` (path, code) that gives any finding, as `path: [findings]`.
pub fn reported(cases: &[(&str, &str)]) -> Vec<String> {
    cases
        .iter()
        .filter_map(|&(path, code)| {
            let found = findings(path, code);
            (!found.is_empty()).then(|| format!("{path}: {found:?}"))
        })
        .collect()
}
