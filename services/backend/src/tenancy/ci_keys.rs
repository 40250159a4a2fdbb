//! CI keys: per-project secrets a pipeline presents as a bearer to `/gatekeeper/check`.
//!
//! The secret (`ci_` and 40 random URL-safe base64 characters, 240 bits) is returned once, at
//! creation; the store keeps its SHA-256 (hex) and the first 8 characters for display, so a
//! copy of the store cannot authenticate.
//!
//! # Keys (space `CiKeys`)
//! - `secret:{sha256 hex}` → [`CiKey`] (JSON): what [`CiKeys::authenticate`] reads.
//! - `ws:{workspace}:{key id}` → the digest: written first, so every key that can
//!   authenticate can also be listed and revoked; an entry whose record is gone is skipped.

use super::error::{CI_KEY_NOT_FOUND, TenancyError};
use super::ownership::Denial;
use super::projects::Projects;
use super::records::{now_ms, parse_id};
use super::secrets::{sha256_hex, url_safe_random};
use super::validation::{self, CI_KEY_NAME_MAX};
use crate::store::{Space, Store, StoreError};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// What every CI secret starts with, so one pasted in the wrong place is recognisable.
pub const SECRET_PREFIX: &str = "ci_";
/// Random bytes after the prefix: 30 bytes are 40 base64 characters.
const SECRET_RANDOM_BYTES: usize = 30;
/// How much of the secret is kept for display.
pub const DISPLAY_PREFIX_CHARS: usize = 8;

/// A CI key as stored and listed: never its secret.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CiKey {
    /// Minted at creation; what [`CiKeys::revoke`] takes.
    pub id: Uuid,
    /// The workspace it acts in.
    pub workspace_id: Uuid,
    /// The project it checks.
    pub project_id: Uuid,
    /// A label chosen by its creator.
    pub name: String,
    /// The secret's first 8 characters, so a person can tell keys apart.
    pub prefix: String,
    /// Creation time, unix milliseconds.
    pub created_at_ms: u64,
}

/// The CI key repository.
#[derive(Clone, Debug)]
pub struct CiKeys {
    store: Store,
    projects: Projects,
}

impl CiKeys {
    /// CI keys in `store`; another tenant's project is denied with the default [`Denial`].
    pub fn new(store: Store) -> Self {
        Self::with_denial(store, Denial::default())
    }

    /// CI keys in `store`, denying another tenant's project as `denial` says.
    pub fn with_denial(store: Store, denial: Denial) -> Self {
        let projects = Projects::new(store.clone(), denial);
        Self { store, projects }
    }

    /// A new key for `project_id`, which must be in `workspace` (else "project not found").
    /// Returns the key and its secret; the secret is never available again.
    pub async fn create(
        &self,
        workspace: &str,
        project_id: &str,
        name: &str,
    ) -> Result<(CiKey, String), TenancyError> {
        let name = validation::name(name, CI_KEY_NAME_MAX)?;
        let project = self.projects.get(workspace, project_id).await?;
        let secret = format!("{SECRET_PREFIX}{}", url_safe_random(SECRET_RANDOM_BYTES));
        let key = CiKey {
            id: Uuid::new_v4(),
            workspace_id: project.workspace_id,
            project_id: project.id,
            name,
            prefix: secret.chars().take(DISPLAY_PREFIX_CHARS).collect(),
            created_at_ms: now_ms(),
        };
        let digest = sha256_hex(&secret);
        let index = index_key(key.workspace_id, key.id);
        self.store
            .put(Space::CiKeys, &index, digest.as_bytes(), None)
            .await?;
        self.store
            .put_json(Space::CiKeys, &secret_key(&digest), &key, None)
            .await?;
        Ok((key, secret))
    }

    /// The live key whose secret is `secret`, if any.
    pub async fn authenticate(&self, secret: &str) -> Result<Option<CiKey>, StoreError> {
        if !secret.starts_with(SECRET_PREFIX) {
            return Ok(None);
        }
        self.store
            .get_json(Space::CiKeys, &secret_key(&sha256_hex(secret)))
            .await
    }

    /// Revokes `key_id` of `workspace`: it stops authenticating at once. A key of another
    /// workspace is "ci key not found", like one that never existed.
    pub async fn revoke(&self, workspace: &str, key_id: &str) -> Result<(), TenancyError> {
        let index = parse_id(workspace).zip(parse_id(key_id));
        let index = index.map(|(workspace, key)| index_key(workspace, key));
        let Some(index) = index else {
            return Err(TenancyError::NotFound(CI_KEY_NOT_FOUND));
        };
        let Some(digest) = self.store.get(Space::CiKeys, &index).await? else {
            return Err(TenancyError::NotFound(CI_KEY_NOT_FOUND));
        };
        let digest = String::from_utf8_lossy(&digest);
        self.store
            .delete(Space::CiKeys, &secret_key(&digest))
            .await?;
        self.store.delete(Space::CiKeys, &index).await?;
        Ok(())
    }

    /// Every live key of `workspace`, oldest first.
    pub async fn list(&self, workspace: &str) -> Result<Vec<CiKey>, TenancyError> {
        let Some(workspace_id) = parse_id(workspace) else {
            return Ok(Vec::new());
        };
        let mut keys = Vec::new();
        for (_, digest) in self
            .store
            .list(Space::CiKeys, &format!("ws:{workspace_id}:"))
            .await?
        {
            let digest = String::from_utf8_lossy(&digest);
            let key = self
                .store
                .get_json::<CiKey>(Space::CiKeys, &secret_key(&digest))
                .await?;
            keys.extend(key.filter(|key| key.workspace_id == workspace_id));
        }
        keys.sort_by_key(|key| key.created_at_ms);
        Ok(keys)
    }
}

fn secret_key(digest: &str) -> String {
    format!("secret:{digest}")
}

fn index_key(workspace: Uuid, key: Uuid) -> String {
    format!("ws:{workspace}:{key}")
}
