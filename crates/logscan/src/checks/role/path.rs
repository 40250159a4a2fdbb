//! The role a file's path gives it, the way each ecosystem lays projects out: test
//! directories and names, example and benchmark directories (`examples/`, Airflow's
//! `example_dags/`), command-line directories and entry points, and modules whose job is
//! output.

use super::Role;

/// Directories that hold tests, as path segments: `t/` is where Perl-style projects (celery)
/// keep them. (`tests`, `testdata`, `testing` begin as test support does.)
const TEST_DIRECTORIES: [&str; 3] = ["__tests__", "spec", "t"];
/// How the names of directories of test support code begin: `test_helpers`, `testutil`,
/// `mocks`, `fakes`, a `dummyserver` that tests talk to.
const TEST_SUPPORT_PREFIXES: [&str; 5] = ["test", "mock", "fake", "dummy", "stub"];
/// How the names of files of test support code begin, whatever the language: `test.rs`,
/// `testutil.rs`, `test_stream.rs`, `testing.py`, `mock_server.go`, `fakes.ts`, `stubs.py`.
const TEST_FILE_PREFIXES: [&str; 4] = ["test", "mock", "fake", "stub"];
/// Endings of test file names.
const TEST_SUFFIXES: [&str; 6] = [
    "_test.go",
    "_test.py",
    "Test.java",
    "Tests.java",
    "_test.rs",
    "_tests.rs",
];
/// Infixes of test file names: `app.test.ts`, `view.spec.jsx`, in every script extension.
const TEST_INFIXES: [&str; 2] = [".test.", ".spec."];
/// Directories of examples and benchmarks, also as the first or last word of a directory's
/// name (`example_dags`, `bench_utils`).
const EXAMPLE_DIRECTORIES: [&str; 6] = [
    "examples",
    "example",
    "benches",
    "bench",
    "benchmarks",
    "_examples",
];
/// Directories of programs and command-line modules (`src/bin`, Go's `cmd/`, pip's
/// `commands/`, setuptools' `command/`), and the files that are a program's entry point.
const CLI_DIRECTORIES: [&str; 7] = [
    "bin",
    "cmd",
    "cli",
    "command",
    "commands",
    "subcommands",
    "scripts",
];
const CLI_FILES: [&str; 4] = ["main.rs", "build.rs", "__main__.py", "magefile.go"];
/// Names (before the extension, or their last word) of modules whose job is to put text in
/// front of a person: criterion's `report.rs`, scrapy's `shell.py` and `display.py`, a
/// `monitor_terminal.py`, a package `versions_report/`. Their prints are output, as are a
/// `commands.rs` or a `cli.py`'s.
const OUTPUT_MODULES: [&str; 10] = [
    "report",
    "reporter",
    "reporting",
    "display",
    "console",
    "printer",
    "pprint",
    "output",
    "shell",
    "terminal",
];

/// The role a path gives a file.
pub(super) fn role_of_path(path: &str) -> Role {
    let path = path.replace('\\', "/");
    let mut segments = path.split('/');
    let file_name = segments.next_back().unwrap_or_default();
    let directories: Vec<&str> = segments.collect();
    let in_directory = |names: &[&str]| directories.iter().any(|segment| names.contains(segment));
    let example_directory = directories.iter().any(|segment| {
        let mut words = segment.split(['_', '-']);
        let first = words.next().unwrap_or_default();
        let last = words.next_back().unwrap_or(first);
        EXAMPLE_DIRECTORIES.contains(&first) || EXAMPLE_DIRECTORIES.contains(&last)
    });
    let test_name = TEST_SUFFIXES
        .iter()
        .any(|suffix| file_name.ends_with(suffix))
        || TEST_INFIXES.iter().any(|infix| file_name.contains(infix))
        || (file_name.starts_with("test_") && file_name.ends_with(".py"))
        || matches!(file_name, "conftest.py" | "tests.rs")
        || TEST_FILE_PREFIXES
            .iter()
            .any(|prefix| file_name.to_ascii_lowercase().starts_with(prefix));
    let test_support = directories.iter().any(|segment| {
        let segment = segment.to_ascii_lowercase();
        TEST_SUPPORT_PREFIXES
            .iter()
            .any(|prefix| segment.starts_with(prefix))
    });
    // A package's `__init__.py` is named by its directory.
    let stem = match file_name {
        "__init__.py" => directories.last().copied().unwrap_or_default(),
        _ => file_name.split('.').next().unwrap_or_default(),
    };
    if test_name || test_support || in_directory(&TEST_DIRECTORIES) {
        Role::Test
    } else if example_directory {
        Role::Example
    } else if in_directory(&CLI_DIRECTORIES)
        || CLI_FILES.contains(&file_name)
        || CLI_DIRECTORIES.contains(&stem)
        || OUTPUT_MODULES.contains(&stem)
        || OUTPUT_MODULES.contains(&stem.rsplit('_').next().unwrap_or(stem))
    {
        Role::Cli
    } else {
        Role::Library
    }
}
