//! Path-by-path checks of the matcher, on a table shaped like the backend's.

use super::*;

fn table() -> RuleTable {
    RuleTable::new()
        .rule(
            &["POST"],
            "/api/v1/auth/signup",
            &["email", "email_recipient"],
        )
        .rule(&["POST"], "/api/v1/user/password/**", &["email"])
        .rule(&[], "/api/v1/auth/workspace", &["credential"])
        .rule(
            &["POST"],
            "/api/v1/workspace/invitations/**",
            &["credential"],
        )
        .rule(&["GET"], "/rules/*", &["read"])
}

#[test]
fn matched_and_unmatched_paths() {
    let table = table();
    let cases: &[(&str, &str, Option<&[&str]>)] = &[
        (
            "POST",
            "/api/v1/auth/signup",
            Some(&["email", "email_recipient"]),
        ),
        (
            "post",
            "/api/v1/auth/signup",
            Some(&["email", "email_recipient"]),
        ),
        ("GET", "/api/v1/auth/signup", None),
        ("POST", "/api/v1/auth/signup/extra", None),
        ("POST", "/api/v1/user/password", Some(&["email"])),
        ("POST", "/api/v1/user/password/change", Some(&["email"])),
        ("POST", "/api/v1/user/passwords", None),
        ("GET", "/api/v1/auth/workspace", Some(&["credential"])),
        ("POST", "/api/v1/auth/workspace", Some(&["credential"])),
        (
            "POST",
            "/api/v1/workspace/invitations/abc/accept",
            Some(&["credential"]),
        ),
        ("GET", "/rules/r1", Some(&["read"])),
        ("GET", "/rules", None),
        ("GET", "/rules/r1/versions", None),
        ("GET", "/actuator/health", None),
        ("GET", "/internal/anything", None),
        ("GET", "/api/v1/runs/42", None),
        ("GET", "/ws/runs/42", None),
        ("GET", "/api/v1/analytics/summary", None),
    ];
    for (method, path, expected) in cases {
        let groups = table.matching(method, path).map(Rule::groups);
        let expected = expected.map(|g| g.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(groups.map(<[String]>::to_vec), expected, "{method} {path}");
    }
}

#[test]
fn an_empty_table_meters_nothing() {
    assert!(
        RuleTable::new()
            .matching("POST", "/api/v1/auth/login")
            .is_none()
    );
}

#[test]
fn printed_table_is_readable() {
    let printed = table().to_string();
    assert!(
        printed.contains("POST         /api/v1/user/password/**"),
        "{printed}"
    );
    assert!(printed.contains("-> email + email_recipient"), "{printed}");
    assert!(
        printed.contains("*            /api/v1/auth/workspace"),
        "{printed}"
    );
}
