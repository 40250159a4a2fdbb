//! Memberships: who belongs to which workspace, with which role, and the role floor check.
//!
//! # Keys (space `Members`)
//! - `ws:{workspace}:{user}` → [`Membership`] (JSON): the record every check reads.
//! - `user:{user}:{workspace}` → the workspace id: the index behind "my workspaces". It is
//!   written after the record and removed with it; a reader of the index re-checks the
//!   record, so an index entry left behind by a failed write grants nothing.
//!
//! User ids are key segments with `%` and `:` percent-escaped, so one user id cannot reach
//! into another's key prefix; workspace ids are parsed, so any spelling of a UUID names the
//! same record and a non-UUID names none.

use super::error::{
    ALREADY_A_MEMBER, INSUFFICIENT_ROLE, LAST_OWNER, MEMBER_NOT_FOUND, TenancyError,
};
use super::ownership::{Denial, Resource};
use super::records::{decode, encode, parse_id, segment};
use super::roles::{Role, meets};
use crate::store::{Space, Store};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// One user's role in one workspace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Membership {
    /// The workspace.
    pub workspace_id: Uuid,
    /// The member.
    pub user_id: String,
    /// The role's stored name. Kept as text so a role this build does not know is read, ranked
    /// -1 and refused, instead of failing to decode.
    pub role: String,
}

/// The membership repository.
#[derive(Clone, Debug)]
pub struct Members {
    store: Store,
    denial: Denial,
}

impl Members {
    /// Memberships in `store`, denying non-members with the default [`Denial`].
    pub fn new(store: Store) -> Self {
        Self::with_denial(store, Denial::default())
    }

    /// Memberships in `store`, denying non-members as `denial` says.
    pub const fn with_denial(store: Store, denial: Denial) -> Self {
        Self { store, denial }
    }

    /// The membership of `user` in `workspace`, if any.
    pub async fn get(
        &self,
        workspace: &str,
        user: &str,
    ) -> Result<Option<Membership>, TenancyError> {
        let Some(workspace) = parse_id(workspace) else {
            return Ok(None);
        };
        Ok(self
            .store
            .get_json(Space::Members, &record_key(workspace, user))
            .await?)
    }

    /// Makes `user` a member of `workspace` with `role`; [`ALREADY_A_MEMBER`] if they are one.
    /// Whether the workspace exists is the caller's business (it holds the id from a token or
    /// from [`super::workspaces::Workspaces::create`]); an id that is no UUID is
    /// "workspace not found".
    pub async fn add(
        &self,
        workspace: &str,
        user: &str,
        role: Role,
    ) -> Result<Membership, TenancyError> {
        let Some(workspace) = parse_id(workspace) else {
            return Err(Resource::Workspace.missing());
        };
        let membership = Membership {
            workspace_id: workspace,
            user_id: user.to_owned(),
            role: role.as_str().to_owned(),
        };
        let record = encode(&membership)?;
        let key = record_key(workspace, user);
        if !self
            .store
            .insert_new(Space::Members, &key, &record, None)
            .await?
        {
            return Err(TenancyError::Conflict(ALREADY_A_MEMBER));
        }
        let index = index_key(user, workspace);
        self.store
            .put(
                Space::Members,
                &index,
                workspace.to_string().as_bytes(),
                None,
            )
            .await?;
        Ok(membership)
    }

    /// Gives a member a new role. [`LAST_OWNER`] when that would leave no OWNER.
    pub async fn set_role(
        &self,
        workspace: &str,
        user: &str,
        role: Role,
    ) -> Result<Membership, TenancyError> {
        let mut membership = self.existing(workspace, user).await?;
        if role != Role::Owner {
            self.keep_an_owner(&membership).await?;
        }
        role.as_str().clone_into(&mut membership.role);
        let key = record_key(membership.workspace_id, user);
        self.store
            .put_json(Space::Members, &key, &membership, None)
            .await?;
        Ok(membership)
    }

    /// Removes a member. [`LAST_OWNER`] when they are the only OWNER.
    pub async fn remove(&self, workspace: &str, user: &str) -> Result<(), TenancyError> {
        let membership = self.existing(workspace, user).await?;
        self.keep_an_owner(&membership).await?;
        let workspace = membership.workspace_id;
        self.store
            .delete(Space::Members, &record_key(workspace, user))
            .await?;
        self.store
            .delete(Space::Members, &index_key(user, workspace))
            .await?;
        Ok(())
    }

    /// Every member of `workspace`, ordered by user id.
    pub async fn list(&self, workspace: &str) -> Result<Vec<Membership>, TenancyError> {
        let Some(workspace) = parse_id(workspace) else {
            return Ok(Vec::new());
        };
        let records = self
            .store
            .list(Space::Members, &format!("ws:{workspace}:"))
            .await?;
        records
            .into_iter()
            .map(|(_, bytes)| decode(&bytes).map_err(TenancyError::from))
            .collect()
    }

    /// The ids of the workspaces `user` belongs to, each confirmed against its record.
    pub async fn workspace_ids_of(&self, user: &str) -> Result<Vec<Uuid>, TenancyError> {
        let prefix = format!("user:{}:", segment(user));
        let mut confirmed = Vec::new();
        for (key, _) in self.store.list(Space::Members, &prefix).await? {
            let Some(workspace) = key.strip_prefix(&prefix).and_then(parse_id) else {
                continue;
            };
            if self.get(&workspace.to_string(), user).await?.is_some() {
                confirmed.push(workspace);
            }
        }
        Ok(confirmed)
    }

    /// The membership of `user` in `workspace` if its role reaches `floor`. A non-member is
    /// denied like a missing workspace ([`Denial::deny`]); a member below the floor, or with
    /// a role this build does not know, is [`TenancyError::Forbidden`].
    pub async fn require(
        &self,
        workspace: &str,
        user: &str,
        floor: Role,
    ) -> Result<Membership, TenancyError> {
        let Some(membership) = self.get(workspace, user).await? else {
            return Err(self.denial.deny(Resource::Workspace));
        };
        if meets(&membership.role, floor) {
            Ok(membership)
        } else {
            Err(TenancyError::Forbidden(INSUFFICIENT_ROLE))
        }
    }

    async fn existing(&self, workspace: &str, user: &str) -> Result<Membership, TenancyError> {
        self.get(workspace, user)
            .await?
            .ok_or(TenancyError::NotFound(MEMBER_NOT_FOUND))
    }

    /// Refuses to take OWNER away from `membership` when no other member holds it. Not atomic
    /// with the write that follows: two owners demoting each other at once can both pass.
    async fn keep_an_owner(&self, membership: &Membership) -> Result<(), TenancyError> {
        if !meets(&membership.role, Role::Owner) {
            return Ok(());
        }
        let members = self.list(&membership.workspace_id.to_string()).await?;
        let other_owner = members
            .iter()
            .any(|other| other.user_id != membership.user_id && meets(&other.role, Role::Owner));
        if other_owner {
            Ok(())
        } else {
            Err(TenancyError::Conflict(LAST_OWNER))
        }
    }
}

fn record_key(workspace: Uuid, user: &str) -> String {
    format!("ws:{workspace}:{}", segment(user))
}

fn index_key(user: &str, workspace: Uuid) -> String {
    format!("user:{}:{workspace}", segment(user))
}
