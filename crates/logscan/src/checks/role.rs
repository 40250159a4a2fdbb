//! What a file, or a part of it, is for: library code (every check applies), tests (none do),
//! examples and benchmarks (demonstrations: only secrets still matter), or a program's
//! command-line entry point (its prints are its output). Read from the path the way each
//! ecosystem lays projects out (test support directories such as `test_helpers/`,
//! `testutil/`, `mocks/` or a `dummyserver/` count as tests), and from the code: `#[cfg(test)]`
//! items and `#[test]` functions are tests; Python's `if __name__ == "__main__":` suite and top-level `main()` are
//! a script's; a file with an entry point (a `main` function in Java or Rust, Go's `package
//! main`, a `#!` line) or that reads its command line (`argparse`, `click`, `sys.argv`,
//! `process.argv`, `os.Args`) is a program's.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::items::{attribute_end, next_block, top_level_suite};
use crate::Language;
use crate::source::Source;
use path::role_of_path;

/// The role of some code, from most to least checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Library,
    /// A program's entry point or command-line module: printing is what it is for.
    Cli,
    /// Examples and benchmarks: code written to be read or timed, not run in production.
    Example,
    Test,
}

/// What a marker marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// The item after it is a test (Rust's `#[cfg(test)]`, `#[test]`).
    TestItem,
    /// Its top-level suite is a script's (Python's `__main__` guard and `main()`).
    ScriptSuite,
    /// The whole file is a program's.
    Program,
}

/// Markers per language: a literal every match contains (searched first: most files have
/// none), and the pattern that confirms it.
const MARKERS: &[(&[Language], &str, Mark, &str)] = &[
    (
        RUST,
        "test",
        Mark::TestItem,
        r"#\s*\[\s*(?:cfg\s*\(\s*(?:all\s*\(|any\s*\()?\s*test(?-u:\b)|(?:tokio::)?test\s*\])",
    ),
    (
        PYTHON,
        "__main__",
        Mark::ScriptSuite,
        r"(?m)^if\s+__name__\s*==\s*['\x22]__main__['\x22]\s*:",
    ),
    (
        PYTHON,
        "def main",
        Mark::ScriptSuite,
        r"(?m)^def\s+main\s*\(",
    ),
    (
        JAVA,
        "main",
        Mark::Program,
        r"(?-u:\b)static\s+void\s+main\s*\(",
    ),
    (
        RUST,
        "fn main",
        Mark::Program,
        r"(?m)^\s*(?:pub\s+)?(?:async\s+)?fn\s+main\s*\(",
    ),
    (
        GO,
        "package main",
        Mark::Program,
        r"(?m)^package\s+main(?-u:\b)",
    ),
    (
        PYTHON,
        "argparse",
        Mark::Program,
        r"(?m)^\s*(?:import|from)\s+argparse(?-u:\b)",
    ),
    (
        PYTHON,
        "optparse",
        Mark::Program,
        r"(?m)^\s*(?:import|from)\s+optparse(?-u:\b)",
    ),
    (
        PYTHON,
        "click",
        Mark::Program,
        r"(?m)^\s*(?:import|from)\s+click(?-u:\b)",
    ),
    (
        PYTHON,
        "typer",
        Mark::Program,
        r"(?m)^\s*(?:import|from)\s+typer(?-u:\b)",
    ),
    (PYTHON, "argv", Mark::Program, r"(?-u:\b)sys\.argv(?-u:\b)"),
    // A command-line framework's own decorator: `@command("license-key", …)`.
    (
        PYTHON,
        "command",
        Mark::Program,
        r"(?m)^@(?:\w+\.)*command\s*\(",
    ),
    (PYTHON, "input(", Mark::Program, r"(?-u:\b)input\s*\("),
    (
        SCRIPT,
        "require",
        Mark::Program,
        r"require\(\s*['\x22](?:yargs|commander)['\x22]",
    ),
    (
        SCRIPT,
        "argv",
        Mark::Program,
        r"(?-u:\b)process\.argv(?-u:\b)",
    ),
    (
        RUST,
        "args",
        Mark::Program,
        r"(?-u:\b)std::env::args(?-u:\b)",
    ),
    (GO, "Args", Mark::Program, r"(?-u:\b)os\.Args(?-u:\b)"),
];
const RUST: &[Language] = &[Language::Rust];
const PYTHON: &[Language] = &[Language::Python];
const JAVA: &[Language] = &[Language::Java];
const GO: &[Language] = &[Language::Go];
const SCRIPT: &[Language] = &[Language::JavaScript, Language::TypeScript];

static COMPILED: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    MARKERS
        .iter()
        .map(|&(_, _, _, pattern)| Regex::new(pattern).expect("the role markers compile"))
        .collect()
});

/// The roles of one file: its own, and the regions of code whose role differs.
pub(crate) struct Roles {
    file: Role,
    /// Test and script regions, in file order (they may nest).
    regions: Vec<(Range<usize>, Role)>,
}

impl Roles {
    /// Library code throughout.
    pub(crate) fn library() -> Self {
        Self {
            file: Role::Library,
            regions: Vec::new(),
        }
    }

    pub(crate) fn new(source: &Source<'_>) -> Self {
        let mut file = role_of_path(source.path);
        let mut regions = Vec::new();
        // A `#!` line makes a script of any language.
        if source.text.starts_with("#!") {
            file = file.max_with(Role::Cli);
        }
        for (&(languages, needle, mark, _), regex) in MARKERS.iter().zip(COMPILED.iter()) {
            if !languages.contains(&source.language) || !source.text.contains(needle) {
                continue;
            }
            for found in regex.find_iter(source.text) {
                let at = found.start();
                if !source.is_code(at) {
                    continue;
                }
                match mark {
                    Mark::TestItem => regions.extend(
                        next_block(source, attribute_end(source, at))
                            .map(|block| (block, Role::Test)),
                    ),
                    Mark::ScriptSuite => regions.push((top_level_suite(source, at), Role::Cli)),
                    Mark::Program => file = file.max_with(Role::Cli),
                }
            }
        }
        Self { file, regions }
    }

    /// The role of the code at `offset`: the file's, unless a region says more.
    pub(crate) fn at(&self, offset: usize) -> Role {
        self.regions
            .iter()
            .filter(|(range, _)| range.contains(&offset))
            .fold(self.file, |role, &(_, region)| role.max_with(region))
    }
}

impl Role {
    /// The less checked of two roles.
    fn max_with(self, other: Self) -> Self {
        let rank = |role: Self| match role {
            Self::Library => 0,
            Self::Cli => 1,
            Self::Example => 2,
            Self::Test => 3,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

mod path;
#[cfg(test)]
mod tests;
