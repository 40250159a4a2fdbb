//! `print-debugging` per language: a print left in, and prints that are fine (tests, methods).

use crate::Language;
use crate::catalog::PRINT_DEBUGGING;
use crate::checks::testing::{lines, run_at};

fn found(language: Language, content: &str) -> Vec<u32> {
    lines(PRINT_DEBUGGING, language, content)
}

fn found_at(path: &str, language: Language, content: &str) -> usize {
    run_at(PRINT_DEBUGGING, language, path, content).len()
}

#[test]
fn rust() {
    let content = "fn f() {\n    println!(\"a = {}\", a);\n    dbg!(x);\n    // println!(\"b\");\n    let s = \"eprintln!(c)\";\n}\n#[cfg(test)]\nmod tests {\n    fn t() { println!(\"d\"); }\n}\n";
    assert_eq!(found(Language::Rust, content), [2, 3]);
    assert_eq!(
        found_at("crate/tests/it.rs", Language::Rust, "println!(\"a\");"),
        0
    );
}

#[test]
fn java() {
    let content = "System.out.println(\"a=\" + a);\ntry { x(); } catch (E e) { e.printStackTrace(); }\nreport.print();\nout.println(b);\n";
    assert_eq!(found(Language::Java, content), [1, 2]);
    assert_eq!(
        found_at(
            "src/test/java/AppTest.java",
            Language::Java,
            "System.out.println(a);"
        ),
        0
    );
    assert_eq!(
        found_at("src/AppTest.java", Language::Java, "System.out.println(a);"),
        0
    );
}

#[test]
fn python() {
    let content = "print('a:', a)\nreport.print()\ndef print(self):\n    pass\nsys.stdout.write('b')\n    print(x)  # TODO remove\n";
    assert_eq!(found(Language::Python, content), [1, 6]);
    assert_eq!(
        found_at("pkg/test_app.py", Language::Python, "print('a')"),
        0
    );
    assert_eq!(
        found_at("pkg/app_test.py", Language::Python, "print('a')"),
        0
    );
}

#[test]
fn javascript_and_typescript() {
    let content = "console.log(\"a\", a);\nconsole.debug(b);\nconsole.error('failed', e);\nlogger.log('info', c);\n";
    assert_eq!(found(Language::JavaScript, content), [1, 2]);
    assert_eq!(found(Language::TypeScript, content), [1, 2]);
    assert_eq!(
        found_at("web/app.test.ts", Language::TypeScript, "console.log(a);"),
        0
    );
    assert_eq!(
        found_at("web/app.spec.ts", Language::TypeScript, "console.log(a);"),
        0
    );
}

#[test]
fn go() {
    let content = "fmt.Println(\"a\", a)\nfmt.Printf(\"b=%d\", b)\nprintln(\"c:\", c)\nfmt.Fprintf(os.Stderr, \"d\")\ns := fmt.Sprintf(\"e\")\n";
    assert_eq!(found(Language::Go, content), [1, 2, 3]);
    assert_eq!(
        found_at("pkg/app_test.go", Language::Go, "fmt.Println(a)"),
        0
    );
}
