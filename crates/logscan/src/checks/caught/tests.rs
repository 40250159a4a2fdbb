//! `wrong-level-for-caught-error` per language: a caught error logged low, and one logged right.

use crate::Language;
use crate::catalog::WRONG_LEVEL_FOR_CAUGHT_ERROR;
use crate::checks::testing::{lines, run_at};

fn found(language: Language, content: &str) -> Vec<u32> {
    lines(WRONG_LEVEL_FOR_CAUGHT_ERROR, language, content)
}

#[test]
fn rust() {
    let content = r#"match load() {
    Ok(v) => info!("loaded {}", v),
    Err(e) => debug!("load failed: {e}"),
}
if let Err(e) = save(&x).await {
    debug!("save failed: {e}");
}
match sync() {
    Err(e) => {
        error!("sync failed: {e}");
    }
    Ok(()) => info!("synced"),
}
let v = parse().map_err(|e| { trace!("bad input: {e}"); e })?;
info!("after");
match fetch() {
    Err(e) if e.is_timeout() => debug!("sync failed: {e}"),
    _ => {}
}
"#;
    // `map_err` hands the error on: its trace line is not all the failure gets.
    assert_eq!(found(Language::Rust, content), [3, 6, 17]);
}

#[test]
fn java() {
    let content = r#"try {
    log.info("saving {}", id);
    repo.save(order);
} catch (SQLException e) {
    log.debug("save failed", e);
}
try { x(); } catch (IOException | TimeoutException e) { log.error("x failed", e); }
log.info("done {}", id);
"#;
    assert_eq!(found(Language::Java, content), [5]);
}

#[test]
fn python() {
    let content = r#"try:
    logger.info("saving %s", oid)
except ValueError as e:
# TODO a comment at the outer indentation does not end the suite (and owes the handling)
    logging.debug("conversion failed: %s", e)
except KeyError: logger.debug("lookup failed")
except OSError as e:
    logger.error("io failed: %s", e)
logger.info("done")
"#;
    assert_eq!(found(Language::Python, content), [5, 6]);
}

#[test]
fn javascript_and_typescript() {
    let content = r#"try {
  await save(order);
} catch (err) {
  logger.debug("save failed", err);
}
loadAll().catch((e) => logger.debug(`load failed ${e}`));
try { x(); } catch { logger.error("x failed"); }
logger.info("done");
"#;
    assert_eq!(found(Language::JavaScript, content), [4, 6]);
    assert_eq!(found(Language::TypeScript, content), [4, 6]);
}

#[test]
fn go() {
    let content = r#"if err := db.Ping(); err != nil {
	log.Printf("ping failed: %v", err)
}
if user != nil {
	logger.Info("found user")
}
if err != nil {
	logger.Error("save failed", zap.Error(err))
	return err
}
if saveErr != nil && !retry {
	logger.Debug("save failed")
}
"#;
    // Go's standard `log.Printf` has no level to be wrong.
    assert_eq!(found(Language::Go, content), [12]);
}

#[test]
fn a_finding_says_the_level() {
    let content = "try { a(); } catch (E e) { log.debug(\"a failed\", e); }";
    let findings = run_at(
        WRONG_LEVEL_FOR_CAUGHT_ERROR,
        Language::Java,
        "A.java",
        content,
    );
    assert_eq!(
        findings[0].message,
        "caught error logged at debug level by `log.debug`"
    );
    assert_eq!(
        findings[0].fix.as_deref(),
        Some("log caught errors at warn or error, with the error")
    );
}
