//! The estate's tokens: HS256 JWTs that backend mints and backend, ai-service and mcp-server
//! verify, with one key per kind of token derived from one secret.
//!
//! [`JwtKeys::from_env`] reads `SECURITY_JWT_SECRET_KEY`, refuses a weak one (see
//! [`SecretWeakness`]) unless `SECURITY_JWT_REQUIRE_STRONG_SECRET=false`, and derives the
//! access, refresh, MFA and e-mail-verification keys from it with HKDF-SHA256 under distinct
//! labels, so a token of one kind never verifies as another. Verification accepts HS256 only,
//! requires `exp` and `sub`, allows [`LEEWAY`] of clock skew and checks the `kind` claim too.
//! Every refusal displays as "invalid token": callers answer 401 without detail.

mod claims;
mod secret;

pub use claims::{
    ACCESS_TTL, Claims, EMAIL_VERIFICATION_TTL, MFA_TTL, REFRESH_TTL, Subject, TokenKind,
};
pub use secret::{ENV_EXAMPLE_PLACEHOLDER, MIN_SECRET_BYTES, SecretWeakness, assess};

use crate::config::{ConfigError, Env};
use actix_web::http::header::{AUTHORIZATION, HeaderMap};
use hkdf::Hkdf;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use sha2::Sha256;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The signing secret every key is derived from.
pub const ENV_JWT_SECRET_KEY: &str = "SECURITY_JWT_SECRET_KEY";
/// `true` (the default) refuses a weak secret; `false` (dev, test) only warns.
pub const ENV_JWT_REQUIRE_STRONG_SECRET: &str = "SECURITY_JWT_REQUIRE_STRONG_SECRET";
/// Clock skew tolerated past `exp` (jsonwebtoken's default is 60 s; the design allows ≤ 30 s).
pub const LEEWAY: Duration = Duration::from_secs(5);

/// Why a token was refused (or, for [`JwtError::Signing`], not made). The text of every
/// refusal is "invalid token": the kind is for logs and tests, never for the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    /// Not a JWT, bad base64 or JSON, an unknown algorithm (`none`), or a missing claim.
    #[error("invalid token")]
    Malformed,
    /// Signed with another key or with an algorithm other than HS256.
    #[error("invalid token")]
    BadSignature,
    /// `exp` is further in the past than [`LEEWAY`].
    #[error("invalid token")]
    Expired,
    /// Validly signed, but its `kind` claim is not the kind asked for.
    #[error("invalid token")]
    WrongKind,
    /// The claims could not be signed (a bug, not a caller's doing).
    #[error("token could not be signed")]
    Signing,
}

/// The signing and verifying keys of every [`TokenKind`], derived from one secret.
///
/// `Debug` shows no key material.
#[derive(Clone)]
pub struct JwtKeys {
    kinds: [KindKeys; 4],
    otp_pepper: [u8; 32],
    /// The checks every token gets, built once: building them allocates, and a metered
    /// request verifies its bearer before the limiter decides.
    validation: Arc<Validation>,
}

#[derive(Clone)]
struct KindKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl std::fmt::Debug for JwtKeys {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("JwtKeys").finish_non_exhaustive()
    }
}

impl JwtKeys {
    /// Reads and checks the secret and derives the keys; a weak secret is refused unless
    /// `SECURITY_JWT_REQUIRE_STRONG_SECRET=false`, and a missing or blank one always is.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        let require_strong = env.bool_or(ENV_JWT_REQUIRE_STRONG_SECRET, true)?;
        let secret = env.required(ENV_JWT_SECRET_KEY)?;
        match assess(&secret) {
            Ok(()) => {}
            Err(weakness) if require_strong || weakness == SecretWeakness::Blank => {
                return Err(weak_secret_error(weakness));
            }
            Err(weakness) => warn_weak_secret(weakness),
        }
        Self::derive(secret.as_bytes())
    }

    fn derive(secret: &[u8]) -> Result<Self, ConfigError> {
        let kind_keys = |kind: TokenKind| -> Result<KindKeys, ConfigError> {
            let key = derive_key(secret, kind).ok_or_else(underivable)?;
            Ok(KindKeys {
                encoding: EncodingKey::from_secret(&key).map_err(|_| underivable())?,
                decoding: DecodingKey::from_secret(&key).map_err(|_| underivable())?,
            })
        };
        let [access, refresh, mfa, email] = TokenKind::ALL.map(kind_keys);
        Ok(Self {
            kinds: [access?, refresh?, mfa?, email?],
            otp_pepper: derive_labelled(secret, OTP_PEPPER_LABEL).ok_or_else(underivable)?,
            validation: Arc::new(validation()),
        })
    }

    /// The key one-time codes are hashed with (HMAC), derived from the same secret under its
    /// own label: one secret to manage, and no key used for two purposes.
    pub fn otp_pepper(&self) -> [u8; 32] {
        self.otp_pepper
    }

    /// Mints a token of `kind` issued now and valid for `ttl`.
    pub fn issue(
        &self,
        kind: TokenKind,
        subject: &Subject,
        ttl: Duration,
    ) -> Result<String, JwtError> {
        self.issue_at(kind, subject, SystemTime::now(), ttl)
    }

    /// Mints a token of `kind` issued at `issued_at` (tests pass a past or future instant).
    pub fn issue_at(
        &self,
        kind: TokenKind,
        subject: &Subject,
        issued_at: SystemTime,
        ttl: Duration,
    ) -> Result<String, JwtError> {
        let iat = unix_secs(issued_at);
        let claims = Claims {
            sub: subject.sub.clone(),
            exp: iat.saturating_add(ttl.as_secs()),
            iat,
            kind,
            workspace_id: subject.workspace_id.clone(),
            role: subject.role.clone(),
            email: subject.email.clone(),
            sid: subject.session.clone(),
            jti: subject.token_id.clone(),
        };
        let key = &self.kinds[kind.index()].encoding;
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, key)
            .map_err(|_| JwtError::Signing)
    }

    /// Verifies a token of `kind` against the current time.
    pub fn verify(&self, kind: TokenKind, token: &str) -> Result<Claims, JwtError> {
        self.verify_at(kind, token, SystemTime::now())
    }

    /// Verifies a token of `kind` as of `now`: signature (HS256 with this kind's key), the
    /// claims' shape, `sub` and `exp` present, `exp` no more than [`LEEWAY`] before `now`,
    /// and the `kind` claim.
    pub fn verify_at(
        &self,
        kind: TokenKind,
        token: &str,
        now: SystemTime,
    ) -> Result<Claims, JwtError> {
        let key = &self.kinds[kind.index()].decoding;
        let claims = jsonwebtoken::decode::<Claims>(token, key, &self.validation)
            .map_err(|error| classify(error.kind()))?
            .claims;
        if claims.sub.is_empty() {
            return Err(JwtError::Malformed);
        }
        if claims.kind != kind {
            return Err(JwtError::WrongKind);
        }
        if claims.exp.saturating_add(LEEWAY.as_secs()) < unix_secs(now) {
            return Err(JwtError::Expired);
        }
        Ok(claims)
    }
}

/// HS256 only, `exp` and `sub` required. Expiry is checked by [`JwtKeys::verify_at`] against
/// the injected clock rather than here, where jsonwebtoken would read the system clock.
fn validation() -> Validation {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_required_spec_claims(&["exp", "sub"]);
    validation.leeway = LEEWAY.as_secs();
    validation.validate_exp = false;
    validation
}

fn classify(kind: &ErrorKind) -> JwtError {
    match kind {
        ErrorKind::InvalidSignature | ErrorKind::InvalidAlgorithm | ErrorKind::MissingAlgorithm => {
            JwtError::BadSignature
        }
        ErrorKind::ExpiredSignature => JwtError::Expired,
        _ => JwtError::Malformed,
    }
}

/// This kind's 256-bit key: HKDF-SHA256 over the secret, with the kind's label as `info`.
/// The HKDF label of the one-time-code pepper.
const OTP_PEPPER_LABEL: &str = "estate/otp-pepper/v1";

fn derive_key(secret: &[u8], kind: TokenKind) -> Option<[u8; 32]> {
    derive_labelled(secret, kind.label())
}

fn derive_labelled(secret: &[u8], label: &str) -> Option<[u8; 32]> {
    let mut key = [0_u8; 32];
    Hkdf::<Sha256>::new(None, secret)
        .expand(label.as_bytes(), &mut key)
        .ok()?;
    Some(key)
}

fn unix_secs(instant: SystemTime) -> u64 {
    instant
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

fn weak_secret_error(weakness: SecretWeakness) -> ConfigError {
    ConfigError::Invalid {
        name: ENV_JWT_SECRET_KEY,
        expected: format!("a strong secret (at least 32 random bytes); this one {weakness}"),
    }
}

fn underivable() -> ConfigError {
    ConfigError::Invalid {
        name: ENV_JWT_SECRET_KEY,
        expected: "a secret the signing keys can be derived from".to_owned(),
    }
}

fn warn_weak_secret(weakness: SecretWeakness) {
    eprintln!(
        "warning: {ENV_JWT_SECRET_KEY} {weakness}; accepted only because \
         {ENV_JWT_REQUIRE_STRONG_SECRET}=false (never do this in production)"
    );
    tracing::warn!(
        variable = ENV_JWT_SECRET_KEY,
        reason = %weakness,
        "weak JWT secret accepted because {ENV_JWT_REQUIRE_STRONG_SECRET}=false"
    );
}

/// The token of an `Authorization: Bearer <token>` header: the scheme in any case, the
/// token trimmed; `None` when the header is absent, not text, another scheme or empty.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests;
