//! Workspace roles, ranked: VIEWER < MEMBER < ADMIN < OWNER.
//!
//! An action names a floor and a member passes when `rank(role) >= rank(floor)`; roles are
//! never compared for equality (an equality check once locked a workspace's creator out of
//! it when a higher role was added). A stored role this build does not know ranks -1, so it
//! is refused rather than waved through.

use serde::{Deserialize, Serialize};

/// A member's role in a workspace. Serialised in upper case, as tokens and clients spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Role {
    /// Reads the workspace's projects and scans.
    Viewer,
    /// Also creates and runs things.
    Member,
    /// Also manages members, invitations and CI keys.
    Admin,
    /// Also owns the workspace itself.
    Owner,
}

/// The rank of a role nobody knows: below every floor.
pub const UNKNOWN_RANK: i32 = -1;

impl Role {
    /// Every role, lowest rank first.
    pub const ALL: [Self; 4] = [Self::Viewer, Self::Member, Self::Admin, Self::Owner];

    /// The role named `text`, in any letter case; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|role| role.as_str().eq_ignore_ascii_case(text))
    }

    /// The stored and serialised name: `VIEWER`, `MEMBER`, `ADMIN`, `OWNER`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Viewer => "VIEWER",
            Self::Member => "MEMBER",
            Self::Admin => "ADMIN",
            Self::Owner => "OWNER",
        }
    }

    /// 0 for VIEWER up to 3 for OWNER.
    pub const fn rank(self) -> i32 {
        match self {
            Self::Viewer => 0,
            Self::Member => 1,
            Self::Admin => 2,
            Self::Owner => 3,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// The rank of a stored role name (any letter case); [`UNKNOWN_RANK`] for an unknown one.
pub fn rank(role: &str) -> i32 {
    Role::parse(role).map_or(UNKNOWN_RANK, Role::rank)
}

/// Whether `role` reaches `floor`. An unknown role never does.
pub fn meets(role: &str, floor: Role) -> bool {
    rank(role) >= floor.rank()
}
