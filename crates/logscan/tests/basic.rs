//! The basic cases: the textbook form of each problem in each of the five languages (Python,
//! Rust, JavaScript/TypeScript, Java, Go) must be found, exactly once and by the right rule
//! (recall 100 %). The near misses real projects are full of are in `near_misses.rs`.

mod common;

use common::findings;
use logscan::Language;

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
    // Prints left in library code that show a value under its own name.
    (
        "app/warn.py",
        "import sys\n\ndef warn(msg):\n    print(\"msg =\", msg, file=sys.stderr)\n    print(f\"{msg=}\")\n",
        &[(PRINT, 4), (PRINT, 5)],
    ),
    // Printed to stderr, but neither an error told nor a warning: debugging.
    (
        "src/cache.rs",
        "fn get(v: &V) {\n    eprintln!(\"{v:?}\");\n}\n",
        &[(PRINT, 2)],
    ),
    // A comment above says the print is there to debug.
    (
        "src/Store.java",
        "class S {\n  void f() {\n    // debug\n    System.err.println(e);\n  }\n}\n",
        &[(PRINT, 4)],
    ),
    (
        "app/orders.py",
        "def total(order):\n    print(\"here\", order)\n",
        &[(PRINT, 2)],
    ),
    (
        "src/orders.rs",
        "fn total() {\n    println!(\"order = {:?}\", order);\n    dbg!(sum);\n}\n",
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
        "void total() {\n  System.out.println(\"id=\" + id);\n  try { x(); } catch (Exception e) { e.printStackTrace(); }\n}\n",
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
    (
        "app/pool.py",
        "logger.warning(\"Something went wrong\")\n",
        &[(CONTEXT, 1)],
    ),
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
        "try:\n    sync()\nexcept Exception as e:\n    logger.debug(\"sync failed: %s\", e)\n",
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
        "try { sync(); } catch (err: unknown) {\n  this.logger.debug(\"sync failed\", { err });\n}\n",
        &[(CAUGHT, 2)],
    ),
    (
        "src/Sync.java",
        "try { sync(); } catch (IOException e) {\n  log.debug(\"sync failed\", e);\n}\n",
        &[(CAUGHT, 2)],
    ),
    (
        "sync/sync.go",
        "if err := sync(); err != nil {\n\tlogger.Debug(\"sync failed\", \"err\", err)\n\treturn nil\n}\n",
        &[(CAUGHT, 2)],
    ),
    // Looking at the error's kind is not dealing with it: the line after is all it gets.
    (
        "app/fetch.py",
        "try:\n    fetch()\nexcept Exception as e:\n    if isinstance(e, Timeout):\n        count += 1\n    logger.debug(\"fetch failed: %s\", e)\n",
        &[(CAUGHT, 6)],
    ),
    // A failure swallowed at debug, where the message says it failed.
    (
        "install/chmod.py",
        "def chmod(path, mode):\n    try:\n        _chmod(path, mode)\n    except OSError as e:\n        log.debug(\"chmod failed: %s\", e)\n",
        &[(CAUGHT, 5)],
    ),
    // A print behind a debug switch is debugging, even in a command.
    (
        "setuptools/command/bdist.py",
        "def run(self):\n    if DEBUG:\n        print(\"vendor =\", self.vendor)\n",
        &[(PRINT, 3)],
    ),
    // A function named for printing that writes to stderr is a debugging aid.
    (
        "src/btree.rs",
        "impl Node {\n    fn print_node(&self) {\n        eprint!(\" key={:?}\", self.key);\n    }\n}\n",
        &[(PRINT, 3)],
    ),
    // A token in code that deals with credentials.
    (
        "oauth2/refresh.py",
        "def refresh(request, refresh_token):\n    log.debug(\"Refresh token %s lacks scopes\", refresh_token)\n",
        &[(SENSITIVE, 2)],
    ),
];

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
