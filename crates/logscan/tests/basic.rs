//! The basic cases: the textbook form of each problem in each of the five languages (Python,
//! Rust, JavaScript/TypeScript, Java, Go) must be found, exactly once and by the right rule
//! (recall 100 %); and the near misses real projects are full of must not be.

use logscan::{Bounds, Language, SourceFile, analyze};

const SENSITIVE: &str = "sensitive-data-in-logs";
const PRINT: &str = "print-debugging";
const CONTEXT: &str = "log-without-context";
const CAUGHT: &str = "wrong-level-for-caught-error";

/// (path, code, the findings expected as (rule, line)).
type Case = (&'static str, &'static str, &'static [(&'static str, u32)]);

const TRUE_CASES: &[Case] = &[
    // A secret or personal data in a log call.
    (
        "app/auth.py",
        "logger.info(\"login %s password=%s\", user, password)\n",
        &[(SENSITIVE, 1)],
    ),
    (
        "src/auth.rs",
        "info!(\"user {} api_key={}\", user, api_key);\n",
        &[(SENSITIVE, 1)],
    ),
    (
        "web/pay.js",
        "logger.info(`charging ${cardNumber}`);\n",
        &[(SENSITIVE, 1)],
    ),
    (
        "web/pay.ts",
        "this.logger.debug(\"auth\", { authorization: req.headers.authorization });\n",
        &[(SENSITIVE, 1)],
    ),
    (
        "src/Auth.java",
        "log.info(\"Reset token {}\", resetToken);\n",
        &[(SENSITIVE, 1)],
    ),
    (
        "auth/auth.go",
        "logger.Info(\"login\", \"password\", pw)\n",
        &[(SENSITIVE, 1)],
    ),
    // A secret stored into a container that is then logged whole.
    (
        "app/client.py",
        "def send(auth_msg):\n    headers = {\"Accept\": \"json\"}\n    name = \"Authorization\"\n    headers[name] = \"NTLM %s\" % auth_msg\n    log.debug(\"Request headers: %s\", headers)\n",
        &[(SENSITIVE, 5)],
    ),
    (
        "client/client.go",
        "func send(tok string) {\n\treq.Header.Set(\"Authorization\", \"Bearer \"+tok)\n\tlog.Printf(\"headers: %v\", req.Header)\n}\n",
        &[(SENSITIVE, 3)],
    ),
    // A printed secret is one problem, reported once.
    ("app/debug.py", "print(password)\n", &[(SENSITIVE, 1)]),
    // Prints left in library code.
    (
        "app/orders.py",
        "def total(order):\n    print(\"here\", order)\n",
        &[(PRINT, 2)],
    ),
    (
        "src/orders.rs",
        "fn total() {\n    println!(\"got {:?}\", order);\n    dbg!(sum);\n}\n",
        &[(PRINT, 2), (PRINT, 3)],
    ),
    (
        "src/orders.js",
        "function total(order) {\n  console.log(\"here\", order);\n}\n",
        &[(PRINT, 2)],
    ),
    (
        "src/orders.ts",
        "export function total(order: Order) {\n  console.debug(order);\n}\n",
        &[(PRINT, 2)],
    ),
    (
        "src/Orders.java",
        "void total() {\n  System.out.println(\"order \" + id);\n  try { x(); } catch (Exception e) { e.printStackTrace(); }\n}\n",
        &[(PRINT, 2), (PRINT, 3)],
    ),
    (
        "orders/orders.go",
        "package orders\n\nfunc total() {\n\tfmt.Println(\"here\", order)\n}\n",
        &[(PRINT, 4)],
    ),
    // A program's output is not print debugging, but a print that says it is, is.
    (
        "tools/export.py",
        "#!/usr/bin/env python3\nimport argparse\nprint(\"DEBUG rows\", rows)\n",
        &[(PRINT, 3)],
    ),
    // Log calls with nothing to act on.
    ("app/jobs.py", "logger.error(\"failed\")\n", &[(CONTEXT, 1)]),
    ("src/jobs.rs", "error!(\"Error\");\n", &[(CONTEXT, 1)]),
    ("web/jobs.js", "logger.warn(\"oops\");\n", &[(CONTEXT, 1)]),
    (
        "web/jobs.ts",
        "this.logger.error(\"request failed\");\n",
        &[(CONTEXT, 1)],
    ),
    ("src/Jobs.java", "log.error(\"Error\");\n", &[(CONTEXT, 1)]),
    (
        "jobs/jobs.go",
        "log.Println(\"error\")\nlogger.Error(\"failed\")\n",
        &[(CONTEXT, 1), (CONTEXT, 2)],
    ),
    // A caught error swallowed at a low level.
    (
        "app/sync.py",
        "try:\n    sync()\nexcept Exception as e:\n    logger.info(\"sync failed: %s\", e)\n",
        &[(CAUGHT, 4)],
    ),
    (
        "src/sync.rs",
        "match sync() {\n    Ok(v) => v,\n    Err(e) => {\n        debug!(\"sync failed: {e}\");\n        return Ok(());\n    }\n}\n",
        &[(CAUGHT, 4)],
    ),
    (
        "web/sync.js",
        "try { sync(); } catch (err) {\n  logger.debug(\"sync failed\", err);\n}\n",
        &[(CAUGHT, 2)],
    ),
    (
        "web/sync.ts",
        "try { sync(); } catch (err: unknown) {\n  this.logger.info(\"sync failed\", { err });\n}\n",
        &[(CAUGHT, 2)],
    ),
    (
        "src/Sync.java",
        "try { sync(); } catch (IOException e) {\n  log.info(\"sync failed\", e);\n}\n",
        &[(CAUGHT, 2)],
    ),
    (
        "sync/sync.go",
        "if err := sync(); err != nil {\n\tlogger.Debug(\"sync failed\", \"err\", err)\n\treturn nil\n}\n",
        &[(CAUGHT, 2)],
    ),
    // The caught error's level is the problem: its context finding would repeat it.
    (
        "src/Retry.java",
        "try { x(); } catch (InterruptedException e) {\n  log.info(\"Interrupted\");\n}\n",
        &[(CAUGHT, 2)],
    ),
];

/// Code each rule must leave alone.
const NEAR_MISSES: &[(&str, &str)] = &[
    (
        "examples/bloom.rs",
        "fn main() {\n    println!(\"Adding some elements to {KEY}\");\n}\n",
    ),
    (
        "benches/parse.rs",
        "fn bench() {\n    println!(\"{:?}\", elapsed);\n}\n",
    ),
    (
        "src/bin/tool.rs",
        "fn main() {\n    println!(\"{}\", report);\n}\n",
    ),
    (
        "src/reaper.rs",
        "#[cfg(all(test, not(loom)))]\nmod tests {\n    fn t() { eprintln!(\"skip this test\"); }\n}\n",
    ),
    ("pkg/__main__.py", "print(version)\n"),
    (
        "pkg/help.py",
        "def main():\n    print(info())\n\nif __name__ == \"__main__\":\n    main()\n",
    ),
    (
        "pkg/cli.py",
        "import sys\n\ndef fail(msg):\n    print('Error: ' + msg, file=sys.stderr)\n    sys.exit(1)\n",
    ),
    ("pkg/util.py", "def show(x):\n    print(x)  # noqa: T201\n"),
    (
        "web/out.js",
        "// eslint-disable-next-line no-console\nconsole.log(result);\n",
    ),
    (
        "out/out.go",
        "package out\n\nfunc show() {\n\tfmt.Println(result) //nolint:forbidigo\n}\n",
    ),
    (
        "src/report.rs",
        concat!(
            "#[",
            "allow(clippy::print_stdout)]\nfn report() {\n    println!(\"{}\", table);\n}\n"
        ),
    ),
    (
        "web/logger.js",
        "const out = { log(...args) { console.log(...args); } };\n",
    ),
    (
        "cmd/tool/main.go",
        "package main\n\nfunc main() {\n\tfmt.Println(\"done\")\n}\n",
    ),
    (
        "src/exit.rs",
        "fn die() {\n    eprintln!(\"worker panicking; aborting\");\n    std::process::abort();\n}\n",
    ),
    (
        "src/Main.java",
        "public class Main {\n  public static void main(String[] args) {\n    System.out.println(usage());\n  }\n}\n",
    ),
    (
        "pkg/compat.py",
        "try:\n    import bz2\nexcept ImportError:\n    logger.debug(\"bz2 module is not available\")\n",
    ),
    (
        "pkg/io.py",
        "try:\n    x()\nexcept OSError as e:\n    logger.debug(\"x failed: %s\", e)\n    raise\n",
    ),
    (
        "src/send.rs",
        "match send() {\n    Err(e) => {\n        debug!(\"send response error: {}\", e);\n        return Err(e.into());\n    }\n}\n",
    ),
    (
        "src/read.rs",
        "let text = read().map_err(|e| {\n    trace!(\"read failed: {e}\");\n    Error::Read(e)\n})?;\n",
    ),
    (
        "src/recv.rs",
        "match recv() {\n    Err(_canceled) => {\n        trace!(\"receiver dropped\");\n    }\n}\n",
    ),
    (
        "src/state.rs",
        "fn close(&mut self) {\n    trace!(\"State::close()\");\n    debug!(\"done\");\n}\n",
    ),
    ("web/npm.js", "log.info('token', 'getting list');\n"),
    (
        "app/lexer.py",
        "class Lexer:\n    def run(self, tokens):\n        logger.debug(\"%d tokens\", len(tokens))\n        logger.debug(\"next %s\", token.kind)\n",
    ),
    (
        "app/mask.py",
        "logger.info(\"using token %s\", token[:4] + \"***\")\n",
    ),
    (
        "app/h.py",
        "logger.info(\"Cache contents:\\n\")\nlogger.info(\"\")\n",
    ),
    (
        "save/save.go",
        "if err != nil {\n\tlog.Printf(\"save failed: %v\", err)\n\thttp.Error(w, \"bad\", 400)\n}\n",
    ),
    (
        "save/retry.go",
        "if err != nil {\n\tlogger.Info(\"save failed\", \"err\", err)\n\treturn err\n}\n",
    ),
    (
        "app/tests/test_x.py",
        "logger.info(\"password=%s\", password)\nprint(x)\n",
    ),
];

fn findings(path: &str, code: &str) -> Vec<(String, u32)> {
    let language = Language::from_path(path).expect("a known extension");
    let file = SourceFile {
        path,
        content: code,
        language,
    };
    let bounds = Bounds {
        max_findings: usize::MAX,
        deadline_passed: &|| false,
    };
    analyze(&[file], &[], &[], &bounds)
        .expect("all built-in types")
        .findings
        .into_iter()
        .map(|finding| (finding.rule_id, finding.line))
        .collect()
}

#[test]
fn every_basic_case_is_found_once_by_its_rule() {
    let mut missed = Vec::new();
    for &(path, code, expected) in TRUE_CASES {
        let expected: Vec<(String, u32)> = expected
            .iter()
            .map(|&(rule, line)| (rule.to_owned(), line))
            .collect();
        let found = findings(path, code);
        if found != expected {
            missed.push(format!("{path}: expected {expected:?}, found {found:?}"));
        }
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

#[test]
fn the_basic_cases_cover_five_languages_and_four_rules() {
    let mut languages: Vec<&str> = TRUE_CASES
        .iter()
        .filter_map(|&(path, _, _)| Language::from_path(path))
        .map(Language::name)
        .collect();
    languages.sort_unstable();
    languages.dedup();
    assert_eq!(
        languages,
        ["go", "java", "javascript", "python", "rust", "typescript"]
    );
    for rule in [SENSITIVE, PRINT, CONTEXT, CAUGHT] {
        let cases = TRUE_CASES
            .iter()
            .filter(|(_, _, expected)| expected.iter().any(|&(id, _)| id == rule))
            .count();
        assert!(cases >= 5, "{rule}: {cases} cases");
    }
}

#[test]
fn near_misses_are_not_reported() {
    let reported: Vec<String> = NEAR_MISSES
        .iter()
        .filter_map(|&(path, code)| {
            let found = findings(path, code);
            (!found.is_empty()).then(|| format!("{path}: {found:?}"))
        })
        .collect();
    assert!(reported.is_empty(), "{}", reported.join("\n"));
}
