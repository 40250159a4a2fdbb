//! Accounts in the store's `Users` space. The record lives under its normalised e-mail
//! (`email:{address}`), so creating one is a single atomic `insert_new` and two sign-ups with
//! the same address cannot both succeed; `id:{uuid}` maps the stable id back to the address.
//! Updates read, change and write the record: two concurrent updates of one account may lose
//! one of them (last write wins), which the flows that update (verify, reset, MFA) tolerate.

use super::signups::SignupDetails;
use super::{AuthError, email};
use crate::store::{Space, Store, StoreError, now_ms};
use serde::{Deserialize, Serialize};

/// One account.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    /// A UUID v4, fixed for the life of the account.
    pub id: String,
    /// The normalised address.
    pub email: String,
    /// The display name.
    pub name: String,
    /// The argon2id PHC string ([`super::passwords`]).
    pub password_hash: String,
    /// Whether the address has been proven with a one-time code.
    pub verified: bool,
    /// Whether login asks for a second factor.
    pub mfa_enabled: bool,
    /// When the account was created, unix milliseconds.
    pub created_at_ms: u64,
}

/// Everything but the password hash.
impl std::fmt::Debug for User {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("User")
            .field("id", &self.id)
            .field("email", &self.email)
            .field("name", &self.name)
            .field("verified", &self.verified)
            .field("mfa_enabled", &self.mfa_enabled)
            .field("created_at_ms", &self.created_at_ms)
            .finish_non_exhaustive()
    }
}

/// The account repository: cheap to clone.
#[derive(Clone, Debug)]
pub struct Users {
    store: Store,
}

impl Users {
    /// A repository over `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Creates an unverified account without MFA. [`AuthError::InvalidEmail`] when the
    /// address does not normalise, [`AuthError::EmailTaken`] when it already has an account.
    pub async fn create(
        &self,
        email: &str,
        name: &str,
        password_hash: &str,
    ) -> Result<User, AuthError> {
        let email = email::normalise(email).ok_or(AuthError::InvalidEmail)?;
        let user = User {
            id: uuid::Uuid::new_v4().to_string(),
            email,
            name: name.to_owned(),
            password_hash: password_hash.to_owned(),
            verified: false,
            mfa_enabled: false,
            created_at_ms: now_ms(),
        };
        let record = serde_json::to_vec(&user)
            .map_err(|error| StoreError::Corrupt(format!("user record: {error}")))?;
        let email_key = email_key(&user.email);
        if !self
            .store
            .insert_new(Space::Users, &email_key, &record, None)
            .await?
        {
            return Err(AuthError::EmailTaken);
        }
        let indexed = self
            .store
            .put(Space::Users, &id_key(&user.id), user.email.as_bytes(), None)
            .await;
        if let Err(error) = indexed {
            // Without its id entry the account could never be updated: undo it, so the
            // address is free to sign up again once the store answers.
            let _undone = self.store.delete(Space::Users, &email_key).await;
            return Err(error.into());
        }
        Ok(user)
    }

    /// The account with this address (any case or surrounding spaces).
    pub async fn find_by_email(&self, email: &str) -> Result<Option<User>, AuthError> {
        let Some(email) = email::normalise(email) else {
            return Ok(None);
        };
        Ok(self
            .store
            .get_json(Space::Users, &email_key(&email))
            .await?)
    }

    /// The account with this id.
    pub async fn find_by_id(&self, id: &str) -> Result<Option<User>, AuthError> {
        let Some(email) = self.store.get(Space::Users, &id_key(id)).await? else {
            return Ok(None);
        };
        let email = String::from_utf8(email)
            .map_err(|_| StoreError::Corrupt("user id index: not UTF-8".to_owned()))?;
        self.find_by_email(&email).await
    }

    /// Replaces the password hash; `None` when there is no such account.
    pub async fn set_password_hash(
        &self,
        id: &str,
        password_hash: &str,
    ) -> Result<Option<User>, AuthError> {
        self.update(id, |user| password_hash.clone_into(&mut user.password_hash))
            .await
    }

    /// Marks the address as proven; `None` when there is no such account.
    pub async fn mark_verified(&self, id: &str) -> Result<Option<User>, AuthError> {
        self.update(id, |user| user.verified = true).await
    }

    /// Marks the account with this address proven by a code. While it is still unverified,
    /// `signup` (what the used code was bound to) sets its name and password, and its id entry
    /// is written again (a signup stopped between its two writes left none); a verified account
    /// is returned unchanged. `None` when there is no such account.
    pub async fn complete_signup(
        &self,
        email: &str,
        signup: Option<&SignupDetails>,
    ) -> Result<Option<User>, AuthError> {
        let Some(mut user) = self.find_by_email(email).await? else {
            return Ok(None);
        };
        if user.verified {
            return Ok(Some(user));
        }
        if let Some(signup) = signup {
            signup.name.clone_into(&mut user.name);
            signup.password_hash.clone_into(&mut user.password_hash);
        }
        user.verified = true;
        self.store
            .put(Space::Users, &id_key(&user.id), user.email.as_bytes(), None)
            .await?;
        self.store
            .put_json(Space::Users, &email_key(&user.email), &user, None)
            .await?;
        Ok(Some(user))
    }

    /// Turns the second factor on or off; `None` when there is no such account.
    pub async fn set_mfa(&self, id: &str, enabled: bool) -> Result<Option<User>, AuthError> {
        self.update(id, |user| user.mfa_enabled = enabled).await
    }

    async fn update(
        &self,
        id: &str,
        change: impl FnOnce(&mut User),
    ) -> Result<Option<User>, AuthError> {
        let Some(mut user) = self.find_by_id(id).await? else {
            return Ok(None);
        };
        change(&mut user);
        self.store
            .put_json(Space::Users, &email_key(&user.email), &user, None)
            .await?;
        Ok(Some(user))
    }
}

fn email_key(normalised: &str) -> String {
    format!("email:{normalised}")
}

fn id_key(id: &str) -> String {
    format!("id:{id}")
}
