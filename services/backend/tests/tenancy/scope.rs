//! The workspace comes from the token's claim only; a missing claim fails closed.

use backend::tenancy::{ScopeError, WorkspaceScope};

const CLAIMED: &str = "0b6f3a56-3f1e-4a61-9d55-2a7c1c6c9f10";
const FALLBACK: &str = "5d0c2d43-8f3b-4d8e-b3a4-70e1f4cf1a2b";

#[test]
fn the_claim_wins_whatever_the_switch() {
    for allow_legacy in [false, true] {
        let scope = WorkspaceScope::from_claim(Some(CLAIMED), allow_legacy, Some(FALLBACK));
        assert_eq!(scope.as_deref(), Ok(CLAIMED));
    }
}

#[test]
fn a_missing_or_blank_claim_is_refused_by_default() {
    for claim in [None, Some(""), Some("   ")] {
        let scope = WorkspaceScope::from_claim(claim, false, Some(FALLBACK));
        assert_eq!(scope, Err(ScopeError::MissingWorkspace), "{claim:?}");
    }
    assert_eq!(
        ScopeError::MissingWorkspace.to_string(),
        "token has no workspace"
    );
}

#[test]
fn the_compatibility_switch_uses_a_sole_workspace_only() {
    let one = [FALLBACK.to_owned()];
    let scope = WorkspaceScope::from_claim(None, true, WorkspaceScope::sole(&one));
    assert_eq!(scope.as_deref(), Ok(FALLBACK));

    let two = [FALLBACK, CLAIMED];
    let none: [&str; 0] = [];
    for candidates in [&two[..], &none[..]] {
        let fallback = WorkspaceScope::sole(candidates);
        assert_eq!(fallback, None);
        let scope = WorkspaceScope::from_claim(None, true, fallback);
        assert_eq!(scope, Err(ScopeError::MissingWorkspace));
    }
    let blank = WorkspaceScope::from_claim(None, true, Some(" "));
    assert_eq!(blank, Err(ScopeError::MissingWorkspace));
}
