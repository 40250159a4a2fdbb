//! Mail settings: where mail goes (SMTP when `SMTP_URL` is set, otherwise
//! `$DATA_DIR/outbox.jsonl`), who it is from, and the origin its links point at.

use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, Tokio1Executor};
use platform::{ConfigError, Env};

/// The SMTP server, as lettre's connection URL: `smtp://host:25` (plain),
/// `smtp://user:pass@host:587?tls=required` (STARTTLS), `smtps://user:pass@host:465` (TLS).
pub const ENV_SMTP_URL: &str = "SMTP_URL";
/// The sender, `Name <address>` or `address`; required with `SMTP_URL`.
pub const ENV_SMTP_FROM: &str = "SMTP_FROM";
/// The origin (and path prefix) a mailed link is relative to, e.g. `https://app.example.com`.
pub const ENV_MAIL_LINK_BASE_URL: &str = "MAIL_LINK_BASE_URL";

/// Where and how mail is delivered.
#[derive(Clone, Debug, Default)]
pub struct MailConfig {
    /// SMTP delivery; `None`: the JSON-lines file under `DATA_DIR`.
    pub smtp: Option<SmtpConfig>,
    /// `MAIL_LINK_BASE_URL` without a trailing `/`; `None`: links stay paths.
    pub link_base: Option<String>,
}

/// A validated SMTP setting.
#[derive(Clone)]
pub struct SmtpConfig {
    /// `SMTP_URL` (may hold a password: never printed).
    pub url: String,
    /// `SMTP_FROM`, parsed.
    pub from: Mailbox,
}

/// Names the sender, never the URL (it may hold a password).
impl std::fmt::Debug for SmtpConfig {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SmtpConfig")
            .field("from", &self.from.to_string())
            .finish_non_exhaustive()
    }
}

impl MailConfig {
    /// Reads the mail settings; a bad one stops start-up, named, its value never quoted.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        let smtp = match env.optional(ENV_SMTP_URL) {
            Some(url) => Some(SmtpConfig::parse(env, url)?),
            None => None,
        };
        let link_base = env
            .optional(ENV_MAIL_LINK_BASE_URL)
            .map(|base| {
                let valid = base.starts_with("https://") || base.starts_with("http://");
                valid
                    .then(|| base.trim_end_matches('/').to_owned())
                    .ok_or(ConfigError::Invalid {
                        name: ENV_MAIL_LINK_BASE_URL,
                        expected: "an http:// or https:// URL".to_owned(),
                    })
            })
            .transpose()?;
        Ok(Self { smtp, link_base })
    }
}

impl SmtpConfig {
    fn parse(env: &dyn Env, url: String) -> Result<Self, ConfigError> {
        AsyncSmtpTransport::<Tokio1Executor>::from_url(&url).map_err(|_| ConfigError::Invalid {
            name: ENV_SMTP_URL,
            expected: "smtp://[user:password@]host[:port][?tls=required|opportunistic] or \
                           smtps://[user:password@]host[:port]"
                .to_owned(),
        })?;
        let from = env
            .required(ENV_SMTP_FROM)?
            .parse()
            .map_err(|_| ConfigError::Invalid {
                name: ENV_SMTP_FROM,
                expected: "an address, or Name <address>".to_owned(),
            })?;
        Ok(Self { url, from })
    }
}
