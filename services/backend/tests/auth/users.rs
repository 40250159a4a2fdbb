//! Accounts: unique by normalised e-mail, found by e-mail or id, updated in place.

use crate::support::embedded;
use backend::auth::AuthError;
use backend::auth::users::Users;

#[tokio::test]
async fn create_then_find_by_email_and_id() {
    let (_dir, store) = embedded();
    let users = Users::new(store);
    let created = users
        .create(" Ada@Example.com", "Ada", "$argon2id$stand-in")
        .await
        .expect("created");
    assert_eq!(created.email, "ada@example.com");
    assert_eq!(created.name, "Ada");
    assert_eq!(created.password_hash, "$argon2id$stand-in");
    assert!(!created.verified && !created.mfa_enabled);
    assert!(created.created_at_ms > 1_700_000_000_000);
    let id = uuid::Uuid::parse_str(&created.id).expect("a uuid");
    assert_eq!(id.get_version_num(), 4);

    let by_email = users.find_by_email("ADA@example.COM").await.expect("found");
    assert_eq!(by_email.as_ref(), Some(&created));
    let by_id = users.find_by_id(&created.id).await.expect("found");
    assert_eq!(by_id.as_ref(), Some(&created));
    assert!(
        users
            .find_by_email("bob@example.com")
            .await
            .expect("ok")
            .is_none()
    );
    assert!(
        users
            .find_by_email("not an address")
            .await
            .expect("ok")
            .is_none()
    );
    assert!(users.find_by_id("no-such-id").await.expect("ok").is_none());
    assert!(
        !format!("{created:?}").contains("stand-in"),
        "Debug hides the hash"
    );
}

#[tokio::test]
async fn one_account_per_address_in_any_case() {
    let (_dir, store) = embedded();
    let users = Users::new(store);
    users
        .create("ada@example.com", "Ada", "h")
        .await
        .expect("first");
    let again = users.create("ADA@EXAMPLE.COM ", "Imposter", "h2").await;
    assert!(matches!(again, Err(AuthError::EmailTaken)), "{again:?}");
    let invalid = users.create("ada", "Ada", "h").await;
    assert!(
        matches!(invalid, Err(AuthError::InvalidEmail)),
        "{invalid:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_sign_ups_with_one_address_create_one_account() {
    let (_dir, store) = embedded();
    let users = Users::new(store);
    let attempts: Vec<_> = (0..10)
        .map(|n| {
            let users = users.clone();
            tokio::spawn(async move {
                users
                    .create("race@example.com", &format!("n{n}"), "h")
                    .await
            })
        })
        .collect();
    let mut created = 0;
    for attempt in attempts {
        match attempt.await.expect("joined") {
            Ok(_) => created += 1,
            Err(AuthError::EmailTaken) => {}
            Err(other) => panic!("{other:?}"),
        }
    }
    assert_eq!(created, 1);
}

#[tokio::test]
async fn updates_change_one_field_each() {
    let (_dir, store) = embedded();
    let users = Users::new(store);
    let user = users
        .create("ada@example.com", "Ada", "old")
        .await
        .expect("created");

    let changed = users.set_password_hash(&user.id, "new").await.expect("ok");
    assert_eq!(changed.expect("exists").password_hash, "new");
    users.mark_verified(&user.id).await.expect("ok");
    users.set_mfa(&user.id, true).await.expect("ok");

    let stored = users
        .find_by_email("ada@example.com")
        .await
        .expect("ok")
        .expect("exists");
    assert_eq!(stored.password_hash, "new");
    assert!(stored.verified && stored.mfa_enabled);
    assert_eq!(
        (stored.id.as_str(), stored.name.as_str()),
        (user.id.as_str(), "Ada")
    );
    assert_eq!(stored.created_at_ms, user.created_at_ms);

    let off = users
        .set_mfa(&user.id, false)
        .await
        .expect("ok")
        .expect("exists");
    assert!(!off.mfa_enabled);
    assert!(
        users
            .mark_verified("no-such-id")
            .await
            .expect("ok")
            .is_none()
    );
}
