//! Authentication's domain layer: accounts, password hashing, the two attempt ceilings,
//! single-use tokens and the outbox. No HTTP here; the routes build on this API and map
//! [`AuthError`] and the ceilings' outcomes to envelopes.
//!
//! # Three ceilings, each covering the others' gap (docs/DESIGN.md, "The backend")
//! - The **public filter** and the **auth filter** (in `limits`) count *requests* per source
//!   IP or credential digest. They stop volume: a credential-stuffing run that sprays one guess
//!   at each of ten thousand addresses never trips a per-address ceiling (each sits at 1 of 5),
//!   but it still costs ten thousand password verifications, and only a request budget sees it.
//! - The **attempt ceilings** here count *wrong answers* per address ([`attempts`]: wrong
//!   passwords, then a lock that is waited out) and per code ([`otp`]: wrong one-time codes,
//!   then the code is destroyed). They stop patience: five guesses an hour at one account from
//!   ever-changing addresses is invisible to a rate limit and is exactly what a ceiling is for.
//!
//! Both ceilings live in the [`Store`](crate::store::Store) (embedded or Redis), so they
//! survive a restart and replicas share them, and they key on `KeyDigest` of the normalised
//! address, never the address itself. A store that cannot answer surfaces as
//! [`StoreError`](crate::store::StoreError): callers fail closed, never skip a ceiling.
//!
//! # Layout
//! - [`email`]: normalisation (case variants are one account and one counter) and key digests.
//! - [`passwords`]: argon2id hashing, verification that costs the same for unknown users, policy.
//! - [`users`]: accounts in the store, unique by normalised e-mail.
//! - [`attempts`]: the login ceiling (5 wrong passwords, then a 10-minute lock).
//! - [`otp`]: one-time codes (6 digits, hashed, single use, destroyed after 5 wrong answers).
//! - [`tokens`]: single-use magic-link and password-reset tokens, stored as digests.
//! - [`sessions`]: sign-in sessions, their single-use refresh tokens, and ending them.
//! - [`outbox`]: outgoing mail: the JSON-lines file under `DATA_DIR`, or the SMTP queue.
//! - [`mail_jobs`]: the account mail (codes, links, signups) a request leaves for the
//!   background, so its answer and its timing are the same for every address.
//! - [`signups`]: each unverified account's latest signup, and which password survives.
//! - [`AuthError`]: the domain's failures.

pub mod attempts;
pub mod email;
mod error;
pub mod mail_jobs;
pub mod otp;
pub mod outbox;
pub mod passwords;
pub mod sessions;
pub mod signups;
pub mod tokens;
pub mod users;

pub use error::AuthError;
