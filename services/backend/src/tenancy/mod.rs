//! Tenancy: workspaces and the fences around them. Who belongs to which workspace with which
//! role, what a workspace owns (projects, CI keys, invitations), and the three safety
//! properties the HTTP layer relies on (docs/DESIGN.md, "The backend"):
//!
//! - **Scope from the token only**: [`scope::WorkspaceScope`] takes the workspace from the
//!   token's `workspaceId` claim, never a parameter or body; an absent claim fails closed.
//! - **Another tenant's id is 404 with the same words**: [`ownership::Denial`] answers with
//!   the missing-row literal unless its compatibility switch asks for the old 403.
//! - **Roles are ranked**: [`roles::meets`] compares ranks, never names; unknown ranks -1.
//!
//! No HTTP lives here: routes call these repositories with the scope from the token and map
//! [`TenancyError`] to a status and envelope in one place (see [`error`] for the mapping).
//!
//! # Layout
//! - [`error`]: [`TenancyError`] and the fixed literals its `Display` shows.
//! - [`roles`]: [`Role`], `rank` and `meets`.
//! - [`ownership`]: [`Denial`] and [`Resource`]: how another tenant's record is refused.
//! - [`scope`]: [`WorkspaceScope`]: the workspace a request acts in.
//! - [`workspaces`], [`members`], [`invitations`], [`projects`], [`ci_keys`]: one repository
//!   each over [`crate::store::Store`]; every module's doc lists its key layout.
//! - [`workspace_names`]: a workspace name's canonical form (NFKC) and what refuses one.
//! - `validation`, `records`, `secrets` (private): name and key rules, key and JSON helpers,
//!   random secrets and the digests stored in their place.

pub mod ci_keys;
pub mod error;
pub mod invitations;
pub mod members;
pub mod ownership;
pub mod projects;
pub mod roles;
pub mod scope;
pub mod workspace_names;
pub mod workspaces;

mod records;
mod secrets;
mod validation;

pub use ci_keys::{CiKey, CiKeys};
pub use error::TenancyError;
pub use invitations::{Invitation, Invitations};
pub use members::{Members, Membership};
pub use ownership::{Denial, Resource};
pub use projects::{Project, Projects};
pub use roles::{Role, meets, rank};
pub use scope::{ScopeError, WorkspaceScope};
pub use workspaces::{Workspace, Workspaces};
