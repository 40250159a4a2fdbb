//! The per-recipient ceiling needs the recipient, which is in the body: this layer reads the
//! JSON body of the e-mail sending paths (bounded), takes its `email` field, and leaves the
//! digest of the normalised address in the request's extensions for the limiter's key
//! function; the body is put back untouched for the handler.

use super::rules;
use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, web};
use limiter::KeyDigest;

/// The recipient's digest, for the `email_recipient` group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recipient(pub KeyDigest);

/// The middleware function (mounted with `middleware::from_fn`, outside the limiter).
pub async fn read_recipient(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    if sends_mail(&request)
        && let Ok(body) = request.extract::<web::Bytes>().await
    {
        if let Some(recipient) = recipient_of(&body) {
            request.extensions_mut().insert(Recipient(recipient));
        }
        request.set_payload(Payload::from(body));
    }
    next.call(request).await
}

fn sends_mail(request: &ServiceRequest) -> bool {
    rules::table()
        .matching(request.method().as_str(), request.path())
        .is_some_and(|rule| {
            rule.groups()
                .iter()
                .any(|group| group == rules::EMAIL_RECIPIENT)
        })
}

/// The digest of the body's `email`, normalised as accounts are (trimmed, lower-case).
fn recipient_of(body: &[u8]) -> Option<KeyDigest> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let email = value.get("email")?.as_str()?.trim().to_lowercase();
    (!email.is_empty()).then(|| KeyDigest::of(email))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_and_spaces_share_one_recipient() {
        let a = recipient_of(br#"{"email":" Victim@Example.com "}"#);
        assert_eq!(a, recipient_of(br#"{"email":"victim@example.com"}"#));
        assert!(a.is_some());
        assert_eq!(recipient_of(b"not json"), None);
        assert_eq!(recipient_of(br#"{"name":"x"}"#), None);
    }
}
