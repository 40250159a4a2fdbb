//! Invitations into a workspace: a single-use token sent to one e-mail address.
//!
//! The token (32 random bytes, URL-safe base64) is returned once, for the e-mail; the store
//! only holds its SHA-256, so a copy of the store cannot accept anything.
//!
//! # Keys (space `Invitations`, both with the invitation's TTL)
//! - `token:{sha256 hex}` → [`Invitation`] (JSON): taken atomically on accept, so of any
//!   number of concurrent accepts (on any replica) exactly one succeeds.
//! - `ws:{workspace}:{sha256 hex}` → the same record: the pending list. Removed after an
//!   accept; otherwise it expires with the token.
//!
//! Every failed accept (unknown, expired, already used, or addressed to someone else) is the
//! same `NotFound("invitation not found")`, so a token reveals nothing about its state.

use super::error::{INVITATION_NOT_FOUND, TenancyError};
use super::members::{Members, Membership};
use super::ownership::Resource;
use super::records::{decode, now_ms, parse_id};
use super::roles::Role;
use super::secrets::{sha256_hex, url_safe_random};
use crate::store::{Space, Store};
use serde::{Deserialize, Serialize};
use std::time::Duration;
use uuid::Uuid;

/// The random bytes in an invitation token.
pub const TOKEN_BYTES: usize = 32;
/// How long an invitation stays valid unless the caller says otherwise.
pub const DEFAULT_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// A pending invitation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Invitation {
    /// The workspace the invitee joins.
    pub workspace_id: Uuid,
    /// The invitee's normalised e-mail address.
    pub email: String,
    /// The role they join with.
    pub role: Role,
    /// Creation time, unix milliseconds.
    pub created_at_ms: u64,
    /// When the token stops working, unix milliseconds.
    pub expires_at_ms: u64,
}

/// The invitation repository.
#[derive(Clone, Debug)]
pub struct Invitations {
    store: Store,
    members: Members,
}

impl Invitations {
    /// Invitations in `store`.
    pub fn new(store: Store) -> Self {
        let members = Members::new(store.clone());
        Self { store, members }
    }

    /// Invites `email` (already normalised by the caller) into `workspace` as `role` for
    /// `ttl` (normally [`DEFAULT_TTL`]); returns the token to send, which is never stored.
    pub async fn invite(
        &self,
        workspace: &str,
        email: &str,
        role: Role,
        ttl: Duration,
    ) -> Result<String, TenancyError> {
        let Some(workspace_id) = parse_id(workspace) else {
            return Err(Resource::Workspace.missing());
        };
        if email.trim().is_empty() {
            return Err(TenancyError::Invalid("email is required".to_owned()));
        }
        let created_at_ms = now_ms();
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        let invitation = Invitation {
            workspace_id,
            email: email.trim().to_owned(),
            role,
            created_at_ms,
            expires_at_ms: created_at_ms.saturating_add(ttl_ms),
        };
        let token = url_safe_random(TOKEN_BYTES);
        let digest = sha256_hex(&token);
        let pending = pending_key(workspace_id, &digest);
        self.store
            .put_json(Space::Invitations, &pending, &invitation, Some(ttl))
            .await?;
        self.store
            .put_json(
                Space::Invitations,
                &token_key(&digest),
                &invitation,
                Some(ttl),
            )
            .await?;
        Ok(token)
    }

    /// The live invitation `token` opens, without using it.
    pub async fn peek(&self, token: &str) -> Result<Option<Invitation>, TenancyError> {
        let key = token_key(&sha256_hex(token));
        Ok(self.store.get_json(Space::Invitations, &key).await?)
    }

    /// Uses `token` for `user_id`, whose account e-mail must be the invitation's (compared
    /// trimmed and ignoring letter case); any failure is "invitation not found", and a wrong
    /// e-mail does not use the token up. [`super::error::ALREADY_A_MEMBER`] when the user
    /// already belongs to the workspace (the token is used up then).
    pub async fn accept(
        &self,
        token: &str,
        user_id: &str,
        user_email: &str,
    ) -> Result<Membership, TenancyError> {
        let digest = sha256_hex(token);
        let addressed_to_user = self
            .peek(token)
            .await?
            .is_some_and(|invitation| same_email(&invitation.email, user_email));
        if !addressed_to_user {
            return Err(TenancyError::NotFound(INVITATION_NOT_FOUND));
        }
        let Some(bytes) = self
            .store
            .take(Space::Invitations, &token_key(&digest))
            .await?
        else {
            return Err(TenancyError::NotFound(INVITATION_NOT_FOUND));
        };
        let invitation: Invitation = decode(&bytes)?;
        let joined = self
            .members
            .add(
                &invitation.workspace_id.to_string(),
                user_id,
                invitation.role,
            )
            .await;
        let pending = pending_key(invitation.workspace_id, &digest);
        if let Err(error) = self.store.delete(Space::Invitations, &pending).await {
            tracing::warn!(%error, "an accepted invitation stays listed until it expires");
        }
        joined
    }

    /// The invitations of `workspace` that are neither accepted nor expired, oldest first.
    pub async fn list_pending(&self, workspace: &str) -> Result<Vec<Invitation>, TenancyError> {
        let Some(workspace_id) = parse_id(workspace) else {
            return Ok(Vec::new());
        };
        let records = self
            .store
            .list(Space::Invitations, &format!("ws:{workspace_id}:"))
            .await?;
        let mut pending = records
            .iter()
            .map(|(_, bytes)| decode::<Invitation>(bytes))
            .collect::<Result<Vec<_>, _>>()?;
        pending.sort_by_key(|invitation| invitation.created_at_ms);
        Ok(pending)
    }
}

fn same_email(invited: &str, presented: &str) -> bool {
    invited.trim().to_lowercase() == presented.trim().to_lowercase()
}

fn token_key(digest: &str) -> String {
    format!("token:{digest}")
}

fn pending_key(workspace: Uuid, digest: &str) -> String {
    format!("ws:{workspace}:{digest}")
}
