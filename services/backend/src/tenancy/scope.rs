//! Which workspace a request acts in: the token's `workspaceId` claim, and nothing else.
//!
//! The workspace is never read from a path parameter, a query string or a body field, so a
//! caller cannot name a tenant they were not issued a token for; routes take the `String`
//! returned here and pass it to every repository call. A token without the claim fails
//! closed. The compatibility switch `allow_legacy_tokens` (off by default) serves tokens
//! minted before the claim existed: it then falls back to the user's workspace, but only when
//! the user has exactly one ([`WorkspaceScope::sole`]); otherwise it still fails.

/// Why a request has no workspace scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    /// The token carries no (or a blank) `workspaceId` claim and no fallback applies.
    #[error("token has no workspace")]
    MissingWorkspace,
}

/// Resolves the workspace scope of a request from its token.
#[derive(Clone, Copy, Debug)]
pub struct WorkspaceScope;

impl WorkspaceScope {
    /// The workspace id from the `workspace_id` claim. An absent or blank claim is
    /// [`ScopeError::MissingWorkspace`], unless `allow_legacy_tokens` is on and `fallback`
    /// (the user's single workspace, see [`WorkspaceScope::sole`]) is present.
    pub fn from_claim(
        workspace_id: Option<&str>,
        allow_legacy_tokens: bool,
        fallback: Option<&str>,
    ) -> Result<String, ScopeError> {
        if let Some(claimed) = non_blank(workspace_id) {
            return Ok(claimed.to_owned());
        }
        if !allow_legacy_tokens {
            return Err(ScopeError::MissingWorkspace);
        }
        non_blank(fallback)
            .map(str::to_owned)
            .ok_or(ScopeError::MissingWorkspace)
    }

    /// The one id in `workspace_ids`, or `None` when there are none or several: the only
    /// fallback a legacy token may use.
    pub fn sole<T: AsRef<str>>(workspace_ids: &[T]) -> Option<&str> {
        match workspace_ids {
            [only] => Some(only.as_ref()),
            _ => None,
        }
    }
}

fn non_blank(value: Option<&str>) -> Option<&str> {
    value.filter(|text| !text.trim().is_empty())
}
