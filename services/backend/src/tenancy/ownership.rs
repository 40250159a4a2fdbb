//! What a caller is told about a record that exists in another tenant's workspace.
//!
//! By default, exactly what they would be told if it did not exist: the same `NotFound`
//! variant with the same literal ("project not found", "scan not found", "workspace not
//! found"), so the status *and* the body are byte-identical. Matching the status is not
//! enough: a different message re-opens the enumeration oracle in the body.
//!
//! [`Denial::legacy_forbidden`] is a compatibility switch, off by default, for clients that
//! still branch on the pre-fix answer. It restores that answer verbatim, a 403 with the
//! [`LEGACY_PROJECT_FORBIDDEN`], [`LEGACY_SCAN_FORBIDDEN`] or [`LEGACY_WORKSPACE_FORBIDDEN`]
//! text, never an approximation of it. Turning it on re-opens the oracle.

use super::error::{PROJECT_NOT_FOUND, SCAN_NOT_FOUND, TenancyError, WORKSPACE_NOT_FOUND};

/// The pre-fix 403 text for another tenant's project (kept verbatim for the switch).
pub const LEGACY_PROJECT_FORBIDDEN: &str = "You do not have access to this project";
/// The pre-fix 403 text for another tenant's scan (kept verbatim for the switch).
pub const LEGACY_SCAN_FORBIDDEN: &str = "You do not have access to this scan";
/// The pre-fix 403 text for a workspace the caller is not a member of (kept verbatim).
pub const LEGACY_WORKSPACE_FORBIDDEN: &str = "You do not have access to this workspace";

/// The kinds of record a tenant fence guards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    /// A project.
    Project,
    /// A scan run.
    Scan,
    /// A workspace.
    Workspace,
}

impl Resource {
    /// The literal a missing record of this kind answers with.
    pub const fn not_found(self) -> &'static str {
        match self {
            Self::Project => PROJECT_NOT_FOUND,
            Self::Scan => SCAN_NOT_FOUND,
            Self::Workspace => WORKSPACE_NOT_FOUND,
        }
    }

    /// The pre-fix 403 text for this kind.
    pub const fn legacy_forbidden(self) -> &'static str {
        match self {
            Self::Project => LEGACY_PROJECT_FORBIDDEN,
            Self::Scan => LEGACY_SCAN_FORBIDDEN,
            Self::Workspace => LEGACY_WORKSPACE_FORBIDDEN,
        }
    }

    /// The error for a record of this kind that does not exist (for every caller).
    pub const fn missing(self) -> TenancyError {
        TenancyError::NotFound(self.not_found())
    }
}

/// How another tenant's record is denied. `Default` is the safe answer (404, same words).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Denial {
    /// The compatibility switch: answer with the pre-fix 403 wording. Off by default.
    pub legacy_forbidden: bool,
}

impl Denial {
    /// The error for a `resource` that exists but belongs to another tenant.
    pub const fn deny(self, resource: Resource) -> TenancyError {
        if self.legacy_forbidden {
            TenancyError::LegacyForbidden(resource.legacy_forbidden())
        } else {
            resource.missing()
        }
    }
}
