//! Projects, always reached through the workspace of the caller's token.
//!
//! # Keys (space `Projects`)
//! - `id:{uuid}` → [`Project`] (JSON). The key deliberately leaves the workspace out: a
//!   lookup finds another tenant's project and then denies it with [`Denial::deny`], which by
//!   default is the very error a missing row gets (`NotFound("project not found")`). One
//!   code path decides "not yours", so the two answers cannot drift apart.
//! - `key:{workspace}:{KEY}` → the project id: claimed with `insert_new` before the record
//!   is written, so a key is unique per workspace (across replicas too); listing a
//!   workspace's projects reads this prefix.

use super::error::{PROJECT_KEY_TAKEN, TenancyError};
use super::ownership::{Denial, Resource};
use super::records::{now_ms, parse_id};
use super::validation::{self, PROJECT_NAME_MAX};
use crate::store::{Space, Store};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A project inside one workspace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// Minted at creation.
    pub id: Uuid,
    /// The owning workspace; never changes.
    pub workspace_id: Uuid,
    /// Trimmed, 1 to 100 characters.
    pub name: String,
    /// 2 to 10 of `[A-Z][A-Z0-9]*`, unique in the workspace; never changes.
    pub key: String,
    /// Creation time, unix milliseconds.
    pub created_at_ms: u64,
}

/// The project repository. Every call takes the workspace from the caller's token.
#[derive(Clone, Debug)]
pub struct Projects {
    store: Store,
    denial: Denial,
}

impl Projects {
    /// Projects in `store`, answering for other tenants' projects as `denial` says.
    pub const fn new(store: Store, denial: Denial) -> Self {
        Self { store, denial }
    }

    /// A new project in `workspace`. The key is upper-cased before it is checked and stored;
    /// [`PROJECT_KEY_TAKEN`] when the workspace already has it.
    pub async fn create(
        &self,
        workspace: &str,
        name: &str,
        key: &str,
    ) -> Result<Project, TenancyError> {
        let Some(workspace_id) = parse_id(workspace) else {
            return Err(Resource::Workspace.missing());
        };
        let project = Project {
            id: Uuid::new_v4(),
            workspace_id,
            name: validation::name(name, PROJECT_NAME_MAX)?,
            key: validation::project_key(key)?,
            created_at_ms: now_ms(),
        };
        let claim = key_index(workspace_id, &project.key);
        let id_text = project.id.to_string();
        if !self
            .store
            .insert_new(Space::Projects, &claim, id_text.as_bytes(), None)
            .await?
        {
            return Err(TenancyError::Conflict(PROJECT_KEY_TAKEN));
        }
        if let Err(error) = self
            .store
            .put_json(Space::Projects, &id_key(project.id), &project, None)
            .await
        {
            if let Err(undo) = self.store.delete(Space::Projects, &claim).await {
                tracing::warn!(project = %project.id, error = %undo, "could not free a project key");
            }
            return Err(error.into());
        }
        Ok(project)
    }

    /// The project `id` names, if it is in `workspace`. A missing project, an id that is no
    /// UUID and (by default) another workspace's project all answer "project not found".
    pub async fn get(&self, workspace: &str, id: &str) -> Result<Project, TenancyError> {
        let Some(id) = parse_id(id) else {
            return Err(Resource::Project.missing());
        };
        let Some(project) = self
            .store
            .get_json::<Project>(Space::Projects, &id_key(id))
            .await?
        else {
            return Err(Resource::Project.missing());
        };
        if parse_id(workspace) == Some(project.workspace_id) {
            Ok(project)
        } else {
            Err(self.denial.deny(Resource::Project))
        }
    }

    /// Renames a project of `workspace` (scoped exactly like [`Projects::get`]).
    pub async fn update(
        &self,
        workspace: &str,
        id: &str,
        name: &str,
    ) -> Result<Project, TenancyError> {
        let name = validation::name(name, PROJECT_NAME_MAX)?;
        let mut project = self.get(workspace, id).await?;
        project.name = name;
        self.store
            .put_json(Space::Projects, &id_key(project.id), &project, None)
            .await?;
        Ok(project)
    }

    /// Deletes a project of `workspace` (scoped exactly like [`Projects::get`]) and frees its
    /// key. Its CI keys and scans are not touched here.
    pub async fn delete(&self, workspace: &str, id: &str) -> Result<(), TenancyError> {
        let project = self.get(workspace, id).await?;
        self.store
            .delete(Space::Projects, &id_key(project.id))
            .await?;
        self.store
            .delete(
                Space::Projects,
                &key_index(project.workspace_id, &project.key),
            )
            .await?;
        Ok(())
    }

    /// Every project of `workspace`, ordered by key.
    pub async fn list(&self, workspace: &str) -> Result<Vec<Project>, TenancyError> {
        let Some(workspace_id) = parse_id(workspace) else {
            return Ok(Vec::new());
        };
        let prefix = format!("key:{workspace_id}:");
        let mut projects = Vec::new();
        for (_, id) in self.store.list(Space::Projects, &prefix).await? {
            let Some(id) = std::str::from_utf8(&id).ok().and_then(parse_id) else {
                continue;
            };
            let project = self
                .store
                .get_json::<Project>(Space::Projects, &id_key(id))
                .await?;
            projects.extend(project.filter(|project| project.workspace_id == workspace_id));
        }
        Ok(projects)
    }
}

fn id_key(id: Uuid) -> String {
    format!("id:{id}")
}

fn key_index(workspace: Uuid, key: &str) -> String {
    format!("key:{workspace}:{key}")
}
