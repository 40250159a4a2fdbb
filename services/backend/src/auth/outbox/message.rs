//! A [`Mail`] as an e-mail: plain text, one subject and wording per kind, the code or the link
//! on a line of its own.

use super::{Mail, MailKind};
use lettre::Message;
use lettre::message::Mailbox;
use lettre::message::header::ContentType;

/// Why a mail cannot become a message at all (retrying would not help).
#[derive(Debug, thiserror::Error)]
pub(super) enum Unsendable {
    /// The recipient is not an address an SMTP server takes.
    #[error("recipient address not accepted")]
    Recipient,
    /// The message could not be put together.
    #[error("message not built: {0}")]
    Build(#[from] lettre::error::Error),
}

/// The message from `from` to the mail's recipient.
pub(super) fn build(from: &Mailbox, mail: &Mail) -> Result<Message, Unsendable> {
    let to: Mailbox = mail.to.parse().map_err(|_| Unsendable::Recipient)?;
    let (subject, body) = text(mail);
    Ok(Message::builder()
        .from(from.clone())
        .to(to)
        .subject(subject)
        .header(ContentType::TEXT_PLAIN)
        .body(body)?)
}

fn text(mail: &Mail) -> (&'static str, String) {
    let code = mail.code.as_deref().unwrap_or_default();
    let link = mail.link.as_deref().unwrap_or_default();
    let ignore = "If you did not ask for this, you can ignore this mail.";
    match mail.kind {
        MailKind::Otp => (
            "Your verification code",
            format!("Your code:\n\n{code}\n\nIt works once and expires soon. {ignore}\n"),
        ),
        MailKind::MagicLink => (
            "Your sign-in link",
            format!(
                "Sign in with this link:\n\n{link}\n\nIt works once and expires soon. {ignore}\n"
            ),
        ),
        MailKind::PasswordReset => (
            "Reset your password",
            format!(
                "Set a new password with this link:\n\n{link}\n\nIt works once and expires soon. \
                 {ignore}\n"
            ),
        ),
        MailKind::Invitation => (
            "You are invited to a workspace",
            format!("Accept the invitation with this link:\n\n{link}\n\n{ignore}\n"),
        ),
    }
}
