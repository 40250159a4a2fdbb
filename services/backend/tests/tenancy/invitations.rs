//! Invitations: single use, for the invited address only, and never stored as a token.

use crate::support::{embedded, error_text, space_contains, workspace};
use backend::store::Space;
use backend::tenancy::invitations::DEFAULT_TTL;
use backend::tenancy::{Invitations, Members, Role};
use std::time::Duration;

#[tokio::test]
async fn accept_once_then_not_found() {
    let (_dir, store) = embedded();
    let acme = workspace(&store, "alice", "Acme").await;
    let id = acme.id.to_string();
    let invitations = Invitations::new(store.clone());
    let token = invitations
        .invite(&id, "bob@example.com", Role::Member, DEFAULT_TTL)
        .await;
    let token = token.expect("invite");
    assert_eq!(token.len(), 43, "32 bytes of unpadded base64");
    assert!(
        token
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"-_".contains(&byte))
    );
    let peeked = invitations
        .peek(&token)
        .await
        .expect("peek")
        .expect("pending");
    assert_eq!(
        (peeked.email.as_str(), peeked.role),
        ("bob@example.com", Role::Member)
    );

    let joined = invitations
        .accept(&token, "bob", "bob@example.com")
        .await
        .expect("accept");
    assert_eq!(
        (joined.user_id.as_str(), joined.role.as_str()),
        ("bob", "MEMBER")
    );
    let member = Members::new(store).require(&id, "bob", Role::Member).await;
    assert!(member.is_ok(), "bob is a member now");
    let again = invitations.accept(&token, "bob", "bob@example.com").await;
    assert_eq!(error_text(again), "invitation not found");
    assert_eq!(invitations.peek(&token).await.expect("peek"), None);
    assert!(
        invitations
            .list_pending(&id)
            .await
            .expect("list")
            .is_empty()
    );
}

#[tokio::test]
async fn another_address_is_not_found_and_does_not_use_it_up() {
    let (_dir, store) = embedded();
    let id = workspace(&store, "alice", "Acme").await.id.to_string();
    let invitations = Invitations::new(store);
    let token = invitations
        .invite(&id, "bob@example.com", Role::Viewer, DEFAULT_TTL)
        .await;
    let token = token.expect("invite");
    let stolen = invitations
        .accept(&token, "mallory", "mallory@example.com")
        .await;
    assert_eq!(error_text(stolen), "invitation not found");
    let unknown = invitations
        .accept("no-such-token", "bob", "bob@example.com")
        .await;
    assert_eq!(error_text(unknown), "invitation not found");
    let joined = invitations.accept(&token, "bob", "Bob@Example.com").await;
    assert_eq!(joined.expect("bob still can").role, "VIEWER");
}

#[tokio::test]
async fn the_token_is_never_stored() {
    let (_dir, store) = embedded();
    let id = workspace(&store, "alice", "Acme").await.id.to_string();
    let invitations = Invitations::new(store.clone());
    let token = invitations
        .invite(&id, "bob@example.com", Role::Admin, DEFAULT_TTL)
        .await;
    let token = token.expect("invite");
    assert!(!space_contains(&store, Space::Invitations, &token).await);
    for space in [Space::Members, Space::Workspaces, Space::Tokens] {
        let records = store.list(space, "").await.expect("list");
        assert!(records.iter().all(|(key, value)| {
            !key.contains(&token) && !String::from_utf8_lossy(value).contains(&token)
        }));
    }
}

#[tokio::test]
async fn pending_invitations_are_listed_per_workspace_and_expire() {
    let (_dir, store) = embedded();
    let acme = workspace(&store, "alice", "Acme").await.id.to_string();
    let other = workspace(&store, "bob", "Other").await.id.to_string();
    let invitations = Invitations::new(store);
    invitations
        .invite(&acme, "c@example.com", Role::Member, DEFAULT_TTL)
        .await
        .expect("c");
    invitations
        .invite(&other, "d@example.com", Role::Member, DEFAULT_TTL)
        .await
        .expect("d");
    let brief = invitations.invite(
        &acme,
        "e@example.com",
        Role::Member,
        Duration::from_millis(250),
    );
    let brief = brief.await.expect("e");
    let listed = invitations.list_pending(&acme).await.expect("list");
    assert_eq!(listed.len(), 2);
    assert!(
        listed
            .iter()
            .all(|invitation| invitation.workspace_id.to_string() == acme)
    );
    tokio::time::sleep(Duration::from_millis(350)).await;
    let listed = invitations.list_pending(&acme).await.expect("list");
    let emails: Vec<_> = listed
        .iter()
        .map(|invitation| invitation.email.as_str())
        .collect();
    assert_eq!(emails, ["c@example.com"]);
    let expired = invitations.accept(&brief, "erin", "e@example.com").await;
    assert_eq!(error_text(expired), "invitation not found");
}
