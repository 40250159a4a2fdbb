//! Workspaces: created by a user who becomes their OWNER, found by id or by name.
//!
//! # Keys (space `Workspaces`)
//! - `id:{uuid}` → [`Workspace`] (JSON).
//! - `name:{key}` → the id, where the key is the lower-cased canonical name
//!   ([`super::workspace_names`]: NFKC, invisible characters refused): claimed with
//!   `insert_new` before the record is written, which is what makes names unique regardless of
//!   letter case and Unicode spelling, across replicas too.

use super::error::{TenancyError, WORKSPACE_NAME_TAKEN, WORKSPACE_NOT_FOUND};
use super::members::Members;
use super::records::{now_ms, parse_id};
use super::roles::Role;
use super::workspace_names::{self, NameRefusal};
use crate::store::{Space, Store};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A tenant: everything else (projects, members, CI keys, scans) belongs to one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Workspace {
    /// Minted at creation.
    pub id: Uuid,
    /// Canonical (NFKC, white space collapsed, trimmed), 1 to 64 characters, unique regardless
    /// of letter case and Unicode spelling.
    pub name: String,
    /// The user who created it.
    pub owner_id: String,
    /// Creation time, unix milliseconds.
    pub created_at_ms: u64,
}

/// The workspace repository.
#[derive(Clone, Debug)]
pub struct Workspaces {
    store: Store,
    members: Members,
}

impl Workspaces {
    /// Workspaces in `store`.
    pub fn new(store: Store) -> Self {
        let members = Members::new(store.clone());
        Self { store, members }
    }

    /// A new workspace named `name`, with `owner_user_id` as its OWNER.
    /// [`WORKSPACE_NAME_TAKEN`] when the name is used in any letter case or spelling;
    /// [`TenancyError::Invalid`] for a name with an invisible character or of the wrong length.
    pub async fn create(&self, owner_user_id: &str, name: &str) -> Result<Workspace, TenancyError> {
        let name = workspace_names::canonical(name)?;
        let workspace = Workspace {
            id: Uuid::new_v4(),
            name,
            owner_id: owner_user_id.to_owned(),
            created_at_ms: now_ms(),
        };
        let name_key = name_key(&workspace.name);
        let id_text = workspace.id.to_string();
        if !self
            .store
            .insert_new(Space::Workspaces, &name_key, id_text.as_bytes(), None)
            .await?
        {
            return Err(TenancyError::Conflict(WORKSPACE_NAME_TAKEN));
        }
        let written = self
            .store
            .put_json(Space::Workspaces, &id_key(workspace.id), &workspace, None)
            .await;
        let owned = match written {
            Ok(()) => self
                .members
                .add(&id_text, owner_user_id, Role::Owner)
                .await
                .map(drop),
            Err(error) => Err(error.into()),
        };
        if let Err(error) = owned {
            self.release(&workspace).await;
            return Err(error);
        }
        Ok(workspace)
    }

    /// The workspace `id` names; [`WORKSPACE_NOT_FOUND`] when none (or `id` is no UUID).
    /// Whether the caller may see it is [`Members::require`]'s question, asked first.
    pub async fn get(&self, id: &str) -> Result<Workspace, TenancyError> {
        let Some(id) = parse_id(id) else {
            return Err(TenancyError::NotFound(WORKSPACE_NOT_FOUND));
        };
        self.store
            .get_json(Space::Workspaces, &id_key(id))
            .await?
            .ok_or(TenancyError::NotFound(WORKSPACE_NOT_FOUND))
    }

    /// The workspace called `name` in any letter case or Unicode spelling (the public
    /// `GET /auth/workspace`). A name with an invisible character is refused as it would be
    /// at creation; one of a length no workspace has is simply not found.
    pub async fn find_by_name(&self, name: &str) -> Result<Workspace, TenancyError> {
        let name = match workspace_names::canonical(name) {
            Ok(name) => name,
            Err(NameRefusal::Length) => return Err(TenancyError::NotFound(WORKSPACE_NOT_FOUND)),
            Err(refusal) => return Err(refusal.into()),
        };
        let id = self.store.get(Space::Workspaces, &name_key(&name)).await?;
        let id = id.and_then(|bytes| String::from_utf8(bytes).ok());
        self.get(id.as_deref().unwrap_or_default()).await
    }

    /// Every workspace `user_id` is a member of, oldest first.
    pub async fn list_for_user(&self, user_id: &str) -> Result<Vec<Workspace>, TenancyError> {
        let mut workspaces = Vec::new();
        for id in self.members.workspace_ids_of(user_id).await? {
            if let Some(workspace) = self.store.get_json(Space::Workspaces, &id_key(id)).await? {
                workspaces.push(workspace);
            }
        }
        workspaces.sort_by_key(|workspace: &Workspace| (workspace.created_at_ms, workspace.id));
        Ok(workspaces)
    }

    /// Undoes a half-made workspace so its name is free again. Best effort: the caller is
    /// already returning the error that got us here, and a leftover name claim only blocks
    /// that one name.
    async fn release(&self, workspace: &Workspace) {
        for key in [id_key(workspace.id), name_key(&workspace.name)] {
            if let Err(error) = self.store.delete(Space::Workspaces, &key).await {
                tracing::warn!(workspace = %workspace.id, %error, "could not undo a workspace");
            }
        }
    }
}

fn id_key(id: Uuid) -> String {
    format!("id:{id}")
}

fn name_key(canonical: &str) -> String {
    format!("name:{}", workspace_names::uniqueness_key(canonical))
}
