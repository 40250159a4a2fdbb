//! Tests of argument reading: the names a call mentions, and sole constant messages.

use super::{mentioned_names, sole_literal};
use crate::calls::find_calls;
use crate::source::Source;
use crate::{Language, SourceFile};

/// The names mentioned by the first call in `content`.
fn names(language: Language, content: &str) -> Vec<String> {
    let source = Source::new(&SourceFile {
        path: "x",
        content,
        language,
    });
    let call = find_calls(&source).into_iter().next().expect("a call");
    mentioned_names(&source, call.args)
        .into_iter()
        .map(|name| name.value)
        .collect()
}

#[test]
fn names_come_from_code_interpolations_and_keys() {
    assert_eq!(
        names(Language::Java, r#"log.info("a {}", user.getEmail());"#),
        ["getEmail"]
    );
    assert_eq!(
        names(Language::Python, r#"logger.info(f"t={tok} {{x}}")"#),
        ["tok"]
    );
    assert_eq!(
        names(Language::TypeScript, "logger.info(`k ${key.id}`)"),
        ["id"]
    );
    assert_eq!(
        names(Language::Rust, r#"info!("{pw:?} {} {{n}}", a)"#),
        ["a", "pw"]
    );
    assert_eq!(
        names(
            Language::Go,
            r#"logger.Info("login", zap.String("password", p))"#
        ),
        ["zap", "p", "password"]
    );
    // A message, and a prefix followed by its message, are not keys.
    assert_eq!(
        names(Language::JavaScript, "log.info('token', 'getting list')"),
        Vec::<String>::new()
    );
    assert_eq!(
        names(
            Language::Python,
            r#"log.debug("sent", headers.get("Authorization"))"#
        ),
        ["Authorization"]
    );
}

#[test]
fn a_sole_literal_is_the_whole_argument_list() {
    let content = "logging.error( f'failed' ) ; logging.error('a', b)";
    let source = Source::new(&SourceFile {
        path: "x",
        content,
        language: Language::Python,
    });
    let calls = find_calls(&source);
    assert!(sole_literal(&source, calls[0].args.clone()).is_some());
    assert!(sole_literal(&source, calls[1].args.clone()).is_none());
}

#[test]
fn keys_inside_size_calls_show_nothing_and_any_text_may_precede_a_key() {
    assert!(
        names(
            Language::Python,
            r#"log.debug("n {}".format(len(response["accessToken"])))"#
        )
        .iter()
        .all(|name| name != "accessToken")
    );
    // Text that is not ASCII right before a key's literal.
    let found = names(
        Language::Python,
        "log.debug(\"x\", é[\"password\"], ü(\"token\"), é\"secret\", x)",
    );
    assert!(found.contains(&"password".to_owned()), "{found:?}");
}
