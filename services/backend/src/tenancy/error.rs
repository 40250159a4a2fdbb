//! The tenancy layer's one error type, and the literals its `Display` shows.
//!
//! `Display` is exactly what a client may read, so every message is a fixed literal (never a
//! key, an id or the store's text). The literals are `pub` so the route layer and its tests
//! compare against the same bytes the domain produced. Which variant maps to which status:
//! `NotFound` 404, `Forbidden` and `LegacyForbidden` 403, `Conflict` 409, `Invalid` 400,
//! `Store` 503 (the store could not answer; fail closed) or 500 (an unreadable record).

use crate::store::StoreError;

/// A missing project, and (by default) another workspace's project.
pub const PROJECT_NOT_FOUND: &str = "project not found";
/// A missing scan, and (by default) another workspace's scan.
pub const SCAN_NOT_FOUND: &str = "scan not found";
/// A missing workspace, and (by default) one the caller is not a member of.
pub const WORKSPACE_NOT_FOUND: &str = "workspace not found";
/// An unknown, used, expired or someone else's invitation token.
pub const INVITATION_NOT_FOUND: &str = "invitation not found";
/// A membership that does not exist.
pub const MEMBER_NOT_FOUND: &str = "member not found";
/// A CI key that does not exist in the caller's workspace.
pub const CI_KEY_NOT_FOUND: &str = "ci key not found";
/// A member whose role ranks below the floor an action needs.
pub const INSUFFICIENT_ROLE: &str = "insufficient role";
/// A project key already used in the same workspace.
pub const PROJECT_KEY_TAKEN: &str = "project key already exists";
/// Adding (or inviting into) a membership that already exists.
pub const ALREADY_A_MEMBER: &str = "already a member";
/// A workspace name already used, compared case-insensitively.
pub const WORKSPACE_NAME_TAKEN: &str = "workspace name already taken";
/// Demoting or removing the last OWNER, which would leave nobody able to administer it.
pub const LAST_OWNER: &str = "a workspace needs an owner";

/// Why a tenancy operation did not happen.
#[derive(Debug, thiserror::Error)]
pub enum TenancyError {
    /// 404. The literal is the same whether the row is missing or belongs to another tenant.
    #[error("{0}")]
    NotFound(&'static str),
    /// 403: a member whose role ranks below the floor ([`INSUFFICIENT_ROLE`]).
    #[error("{0}")]
    Forbidden(&'static str),
    /// 403 with the pre-fix wording, only when the compatibility switch
    /// ([`super::ownership::Denial::legacy_forbidden`]) is on.
    #[error("{0}")]
    LegacyForbidden(&'static str),
    /// 409: a unique name, key or membership already exists.
    #[error("{0}")]
    Conflict(&'static str),
    /// 400: a name, key or role that fails validation; the text says which rule.
    #[error("{0}")]
    Invalid(String),
    /// The store did not answer or held an unreadable record; its `Display` names neither.
    #[error(transparent)]
    Store(#[from] StoreError),
}
