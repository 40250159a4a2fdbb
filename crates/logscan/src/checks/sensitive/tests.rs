//! `sensitive-data-in-logs` per language: a leak, and a near miss that only talks about one.

use crate::Language;
use crate::catalog::SENSITIVE_DATA;
use crate::checks::testing::{lines, run_at};

fn found(language: Language, content: &str) -> Vec<u32> {
    lines(SENSITIVE_DATA, language, content)
}

#[test]
fn rust() {
    let content = r#"
info!(user = %name, password = %password, "login");
debug!("token={}", t);
println!("{api_key}");
warn!("password for {} rejected", name);
info!(policy = ?password_policy, "loaded");
info!("refresh token {token_state}");
"#;
    assert_eq!(found(Language::Rust, content), [2, 3, 4]);
}

#[test]
fn java() {
    let content = r#"
log.info("User {} logged in", user.getEmail());
LOGGER.debug("Authorization: Bearer {}", header);
System.out.println("card " + cardNumber);
log.info("Password changed for user {}", user.getId());
log.info("token {}", mask(token));
log.debug("Hash {}", user.getPasswordHash());
"#;
    assert_eq!(found(Language::Java, content), [2, 3, 4]);
}

#[test]
fn python() {
    let content = r#"
logger.info(f"reset requested by {user.email}")
logging.debug("login %s password=%s", user, pw)
log.warning("auth", extra={"api_key": key})
print(secret)
logger.info("Password reset email sent to user %s", user_id)
logger.info("%d tokens used", token_count)
"#;
    assert_eq!(found(Language::Python, content), [2, 3, 4, 5]);
}

#[test]
fn javascript_and_typescript() {
    let content = r#"
console.log(`token ${accessToken}`);
logger.info({ email }, "signup");
logger.error("headers", req.headers["authorization"]);
logger.info("Sent password reset link to user", userId);
logger.info("policy loaded", passwordPolicy);
"#;
    assert_eq!(found(Language::JavaScript, content), [2, 3, 4]);
    assert_eq!(found(Language::TypeScript, content), [2, 3, 4]);
}

#[test]
fn go() {
    let content = r#"
logger.Info("login", zap.String("password", p))
log.Printf("ssn=%s", s)
fmt.Println("key:", cfg.APIKey)
slog.Info("user created", "id", user.ID)
log.Printf("invalid token for %s", user)
"#;
    assert_eq!(found(Language::Go, content), [2, 3, 4]);
}

#[test]
fn a_finding_names_the_call_and_what_it_logs() {
    let findings = run_at(
        SENSITIVE_DATA,
        Language::Java,
        "A.java",
        "  log.info(\"x {}\", password);",
    );
    assert_eq!(findings.len(), 1);
    assert_eq!((findings[0].line, findings[0].column), (1, 3));
    assert_eq!(
        findings[0].message,
        "`log.info` logs `password`, which looks like a secret or personal data"
    );
    assert_eq!(
        findings[0].fix.as_deref(),
        Some("log a digest or drop the field")
    );
}
