//! Near misses: code real projects are full of, which looks like a problem to a pattern and is
//! not one (examples, entry points, suppressed lines, errors handled on purpose, sizes and
//! kinds of tokens). Every built-in rule must leave each of them alone.

mod common;
mod forms;

/// Code each rule must leave alone: (path, code).
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
        "pkg/report.py",
        "def dump(rows, fh):\n    for row in rows:\n        print(row, file=fh)\n",
    ),
    (
        "pkg/boot.py",
        "def fail(e):\n    print(\"Error: %s\" % e, file=sys.stderr)\n    sys.stderr.flush()\n    sys.exit(1)\n",
    ),
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
        "src/test_helpers/client.rs",
        "fn serve() {\n    println!(\"Listening on {addr}\");\n}\n",
    ),
    (
        "dummyserver/handlers.py",
        "def start(kind):\n    print(\"New test %s\" % kind)\n",
    ),
    (
        "src/select/Evaluator.java",
        "class E {\n  void m() {\n    System.err.println(\"WARNING: :matchText is deprecated\");\n  }\n}\n",
    ),
    (
        "src/helper/Regex.java",
        "class R {\n  void load() {\n    try { re2(); } catch (Exception e) {\n      System.err.println(\"couldn't access re2j: \" + e);\n    }\n  }\n}\n",
    ),
    (
        "werkzeug/serving.py",
        "def bind(s):\n    try:\n        s.bind()\n    except OSError as e:\n        print(e.strerror, file=sys.stderr)\n",
    ),
    (
        "src/h1/dispatcher.rs",
        "match parse() {\n    Err(err) => {\n        trace!(\"parse error {}\", &err);\n        *this.error = Some(err.into());\n    }\n}\n",
    ),
    (
        "src/connect.rs",
        "match connect(addr) {\n    Err(mut e) => {\n        trace!(\"connect error: {:?}\", e);\n        first = Some(e);\n    }\n}\n",
    ),
    (
        "src/query.rs",
        "parse(q).unwrap_or_else(move |err| {\n    log::debug!(\"query failed\");\n    ready(Err(err))\n})\n",
    ),
    (
        "app/batch.py",
        "try:\n    run()\nexcept OSError as e:\n    logger.debug(\"run failed: %s\", e)\n    self.errors.append(e)\n",
    ),
    (
        "app/tests/test_x.py",
        "logger.info(\"password=%s\", password)\nprint(x)\n",
    ),
    // Test support files, not only directories.
    (
        "src/testutil.rs",
        "pub fn check() {\n    println!(\"Line: {}\", text);\n}\n",
    ),
    (
        "pyparsing/testing.py",
        "def run(result):\n    print(result.dump())\n",
    ),
    // setuptools' `command/` modules are a program's commands.
    (
        "setuptools/command/alias.py",
        "def run(self):\n    print(\"Command Aliases\")\n",
    ),
    // A warning on stderr after an escaped line break.
    (
        "src/group.rs",
        "fn set(n: usize) {\n    eprintln!(\"\\nWarning: It is not recommended to reduce nresamples below 1000.\");\n}\n",
    ),
    // Lines of the protocols stdout carries: cargo's directives, a CGI response.
    (
        "src/tool.rs",
        "fn rerun() {\n    println!(\"cargo:rerun-if-env-changed=CC\");\n}\n",
    ),
    (
        "xmlrpc/server.py",
        "def handle(self, response):\n    print('Content-Type: text/xml')\n    print()\n    sys.stdout.write(response)\n",
    ),
    // A function named for printing, and a module whose job is output.
    (
        "email/parser.py",
        "class Token:\n    def pprint(self, indent=''):\n        print(self.ppstr(indent=indent))\n",
    ),
    (
        "scrapy/utils/display.py",
        "def show(obj):\n    print(pformat(obj))\n",
    ),
    // Caught errors logged low on purpose: protocol tracing, a peer's or teardown's event, an
    // expected outcome, a second failure while the first is raised.
    (
        "src/endpoint.rs",
        "match decode(buf) {\n    Ok(p) => handle(p),\n    Err(e) => {\n        trace!(\"malformed header: {}\", e);\n    }\n}\n",
    ),
    (
        "app/sock.py",
        "try:\n    sock.close()\nexcept OSError as e:\n    log.info(\"Error while closing socket %s\", e)\n",
    ),
    (
        "app/charge.py",
        "try:\n    gateway.charge(card)\nexcept CardDeclined:\n    logger.info(\"card declined for %s\", invoice)\n",
    ),
    (
        "app/loop.py",
        "try:\n    run()\nexcept OSError as exc:\n    try:\n        reset()\n    except OSError as nexc:\n        logger.info(\"reset failed: %s\", nexc)\n    raise\n",
    ),
    // A step of the process's own life, told at info.
    (
        "uvicorn/server.py",
        "async def shutdown(self):\n    logger.info(\"Shutting down\")\n",
    ),
    // `token` where nothing speaks of credentials, and a label before a verdict.
    (
        "src/poll.rs",
        "fn register(token: Token) {\n    trace!(\"registering event source: token={:?}\", token);\n}\n",
    ),
    (
        "oauth1/resource.py",
        "def validate(request, access_token):\n    log.info(\"Valid token: %s\", valid_resource_owner)\n",
    ),
    // Log lines below warn, and short warnings that name a state rather than a failure: a
    // breadcrumb or progress line is read with its neighbours.
    (
        "app/jobs.py",
        "logger.info(\"done\")\nlogger.warning(\"Pool recreating\")\n",
    ),
    (
        "src/Retry.java",
        "try { x(); } catch (InterruptedException e) {\n  log.info(\"Interrupted\");\n}\n",
    ),
    // A caught error told at info is told where the code runs; an accept error is one peer's.
    (
        "app/sync.py",
        "try:\n    sync()\nexcept Exception as e:\n    logger.info(\"sync failed: %s\", e)\n",
    ),
    (
        "src/serve.rs",
        "loop {\n    match listener.accept().await {\n        Ok(s) => spawn(s),\n        Err(e) => debug!(\"server accept error: {:?}\", e),\n    }\n}\n",
    ),
    // A library printing a sentence or a bare value may be doing its job: not told apart.
    (
        "app/warn.py",
        "import sys\n\ndef warn(msg):\n    print(msg, file=sys.stderr)\n",
    ),
    (
        "app/perms.py",
        "def add(perm):\n    print(\"Adding permission '%s'\" % perm)\n",
    ),
    (
        "src/cache.rs",
        "fn get(v: &V) {\n    eprintln!(\"value {v:?}\");\n}\n",
    ),
    (
        "src/Store.java",
        "class S {\n  void f() {\n    try { x(); } catch (E e) {\n      log.error(\"save failed\", e);\n      System.err.println(e);\n    }\n  }\n}\n",
    ),
    // A token that marks a position, and a nonce in code about authenticated packets.
    (
        "botocore/paginate.py",
        "def parse(self):\n    log.debug(\"For token: %s\", self._starting_token)\n",
    ),
    (
        "src/path.rs",
        "fn on_packet(authenticated: bool, token: u64) {\n    trace!(\"PATH_CHALLENGE {:08x}\", token);\n}\n",
    ),
];

forms::near_misses_and_true_forms!(NEAR_MISSES);
