//! Sessions: one per sign-in (a password, a one-time code, a magic link, the MFA step), named
//! by a random id that each of its tokens carries (`sid`), and ended in the store, so an ended
//! session is refused by every replica.
//!
//! # Records (the `Sessions` space)
//! - `session:{id}` → the user id, with the session's remaining lifetime as its TTL. It is the
//!   one read an access-token check makes; deleting it ends the session: its access tokens and
//!   every refresh token descended from its sign-in are refused from then on.
//! - `refresh:{token id}` → the session id: the one refresh token of the session that may still
//!   be used. A refresh takes it (one atomic `take`), so of any number of requests presenting
//!   one token, at most one rotates it.
//! - the set `user:{id}` → the ids of the user's sessions, so a credential change can end them
//!   all. Opening a session drops the ids of ended ones, so the set stays as small as the
//!   user's live sessions.
//!
//! # Reuse
//! A validly signed refresh token whose record is gone was used already (or its session has
//! ended): its session ends. Whoever refreshed first, a thief or the victim, the other one's
//! use ends the session for both, and both must sign in again.

use crate::store::{Space, Store, StoreResult};
use std::time::Duration;

/// The ids a new session starts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    /// The session's id (`sid`).
    pub session: String,
    /// The id of its first refresh token (`jti`).
    pub refresh_id: String,
}

/// What presenting a refresh token came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rotation {
    /// The token is spent; this is the id of the one that replaces it.
    Rotated {
        /// The new refresh token's id.
        refresh_id: String,
    },
    /// The token was used already, or its session has ended: the session is over.
    Refused,
}

/// The session repository: cheap to clone.
#[derive(Clone, Debug)]
pub struct Sessions {
    store: Store,
}

impl Sessions {
    /// Sessions in `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Opens a session of `user_id` that lasts `lifetime` (rotations never extend it).
    pub async fn open(&self, user_id: &str, lifetime: Duration) -> StoreResult<Opened> {
        let opened = Opened {
            session: new_id(),
            refresh_id: new_id(),
        };
        let session = session_key(&opened.session);
        let store = &self.store;
        store
            .put(
                Space::Sessions,
                &session,
                user_id.as_bytes(),
                Some(lifetime),
            )
            .await?;
        store
            .add_to_set(Space::Sessions, &user_set(user_id), &opened.session)
            .await?;
        store
            .put(
                Space::Sessions,
                &refresh_key(&opened.refresh_id),
                opened.session.as_bytes(),
                Some(lifetime),
            )
            .await?;
        self.forget_ended(user_id, &opened.session).await?;
        Ok(opened)
    }

    /// Whether the session is live and belongs to `user_id`: one read.
    pub async fn is_live(&self, session: &str, user_id: &str) -> StoreResult<bool> {
        let owner = self
            .store
            .get(Space::Sessions, &session_key(session))
            .await?;
        Ok(owner.is_some_and(|owner| owner == user_id.as_bytes()))
    }

    /// Spends the refresh token `refresh_id` of `session` and names its successor, which lives
    /// for the `remaining` lifetime of the session. A token that was spent already ends its
    /// session.
    pub async fn rotate(
        &self,
        session: &str,
        user_id: &str,
        refresh_id: &str,
        remaining: Duration,
    ) -> StoreResult<Rotation> {
        let store = &self.store;
        let taken = store
            .take(Space::Sessions, &refresh_key(refresh_id))
            .await?;
        if taken.as_deref() != Some(session.as_bytes()) {
            if store.delete(Space::Sessions, &session_key(session)).await? {
                tracing::warn!(
                    user = user_id,
                    "a spent refresh token came back; session ended"
                );
            }
            return Ok(Rotation::Refused);
        }
        if !self.is_live(session, user_id).await? {
            return Ok(Rotation::Refused);
        }
        let next = new_id();
        store
            .put(
                Space::Sessions,
                &refresh_key(&next),
                session.as_bytes(),
                Some(remaining),
            )
            .await?;
        Ok(Rotation::Rotated { refresh_id: next })
    }

    /// Ends one session.
    pub async fn end(&self, session: &str) -> StoreResult<()> {
        self.store
            .delete(Space::Sessions, &session_key(session))
            .await?;
        Ok(())
    }

    /// Ends every session of `user_id`; how many were live.
    pub async fn end_all(&self, user_id: &str) -> StoreResult<usize> {
        let set = user_set(user_id);
        let mut ended = 0;
        for session in self.store.set_members(Space::Sessions, &set).await? {
            if self
                .store
                .delete(Space::Sessions, &session_key(&session))
                .await?
            {
                ended += 1;
            }
            self.store
                .remove_from_set(Space::Sessions, &set, &session)
                .await?;
        }
        Ok(ended)
    }

    /// Drops from the user's set the ids of sessions that have ended (expired or reused).
    async fn forget_ended(&self, user_id: &str, opened: &str) -> StoreResult<()> {
        let set = user_set(user_id);
        let members = self.store.set_members(Space::Sessions, &set).await?;
        let keys: Vec<String> = members.iter().map(|id| session_key(id)).collect();
        let records = self.store.get_many(Space::Sessions, &keys).await?;
        for (session, record) in members.iter().zip(records) {
            if record.is_none() && session != opened {
                self.store
                    .remove_from_set(Space::Sessions, &set, session)
                    .await?;
            }
        }
        Ok(())
    }
}

/// 128 random bits, in hex.
fn new_id() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

fn session_key(session: &str) -> String {
    format!("session:{session}")
}

fn refresh_key(refresh_id: &str) -> String {
    format!("refresh:{refresh_id}")
}

fn user_set(user_id: &str) -> String {
    format!("user:{user_id}")
}
