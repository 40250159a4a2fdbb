//! Memberships and the role floor: a non-member is told the workspace does not exist.

use crate::support::{embedded, error_text, workspace};
use backend::store::Space;
use backend::tenancy::ownership::LEGACY_WORKSPACE_FORBIDDEN;
use backend::tenancy::{Denial, Members, Role, TenancyError};

#[tokio::test]
async fn a_non_member_is_told_the_workspace_is_not_found() {
    let (_dir, store) = embedded();
    let acme = workspace(&store, "alice", "Acme").await.id.to_string();
    let members = Members::new(store.clone());
    let outsider = members.require(&acme, "mallory", Role::Viewer).await;
    assert!(matches!(outsider, Err(TenancyError::NotFound(_))));
    assert_eq!(error_text(outsider), "workspace not found");
    let random = uuid::Uuid::new_v4().to_string();
    let missing = members.require(&random, "mallory", Role::Viewer).await;
    assert_eq!(
        error_text(missing),
        "workspace not found",
        "same words as no workspace"
    );

    let legacy = Members::with_denial(
        store,
        Denial {
            legacy_forbidden: true,
        },
    );
    let outsider = legacy.require(&acme, "mallory", Role::Viewer).await;
    assert!(matches!(outsider, Err(TenancyError::LegacyForbidden(_))));
    assert_eq!(error_text(outsider), LEGACY_WORKSPACE_FORBIDDEN);
    assert_eq!(
        LEGACY_WORKSPACE_FORBIDDEN,
        "You do not have access to this workspace"
    );
}

#[tokio::test]
async fn a_member_below_the_floor_is_forbidden_and_above_it_passes() {
    let (_dir, store) = embedded();
    let acme = workspace(&store, "alice", "Acme").await;
    let members = Members::new(store);
    members
        .add(&acme.id.to_string(), "victor", Role::Viewer)
        .await
        .expect("add viewer");
    members
        .add(&acme.id.to_string(), "adam", Role::Admin)
        .await
        .expect("add admin");
    let id = acme.id.to_string();
    let viewer = members.require(&id, "victor", Role::Member).await;
    assert!(matches!(viewer, Err(TenancyError::Forbidden(_))));
    assert_eq!(error_text(viewer), "insufficient role");
    assert!(members.require(&id, "victor", Role::Viewer).await.is_ok());
    assert!(
        members.require(&id, "adam", Role::Member).await.is_ok(),
        "ADMIN ≥ MEMBER"
    );
    assert!(
        members.require(&id, "alice", Role::Admin).await.is_ok(),
        "OWNER ≥ ADMIN"
    );
    let admin = members.require(&id, "adam", Role::Owner).await;
    assert_eq!(error_text(admin), "insufficient role");
}

#[tokio::test]
async fn a_stored_role_nobody_knows_is_refused() {
    let (_dir, store) = embedded();
    let acme = workspace(&store, "alice", "Acme").await;
    let record = serde_json::json!({
        "workspaceId": acme.id, "userId": "sam", "role": "SUPERUSER"
    });
    let key = format!("ws:{}:sam", acme.id);
    store
        .put_json(Space::Members, &key, &record, None)
        .await
        .expect("put");
    let members = Members::new(store);
    let id = acme.id.to_string();
    assert_eq!(
        members
            .get(&id, "sam")
            .await
            .expect("get")
            .expect("read")
            .role,
        "SUPERUSER"
    );
    let refused = members.require(&id, "sam", Role::Viewer).await;
    assert_eq!(error_text(refused), "insufficient role");
}

#[tokio::test]
async fn add_set_role_remove_and_list() {
    let (_dir, store) = embedded();
    let acme = workspace(&store, "alice", "Acme").await;
    let id = acme.id.to_string();
    let members = Members::new(store);
    members
        .add(&acme.id.to_string(), "bob", Role::Member)
        .await
        .expect("add");
    let again = members.add(&acme.id.to_string(), "bob", Role::Admin).await;
    assert_eq!(error_text(again), "already a member");
    let promoted = members
        .set_role(&id, "bob", Role::Admin)
        .await
        .expect("set");
    assert_eq!(promoted.role, "ADMIN");
    let listed = members.list(&id).await.expect("list");
    let roles: Vec<_> = listed
        .iter()
        .map(|m| (m.user_id.as_str(), m.role.as_str()))
        .collect();
    assert_eq!(roles, [("alice", "OWNER"), ("bob", "ADMIN")]);
    members.remove(&id, "bob").await.expect("remove");
    assert_eq!(members.get(&id, "bob").await.expect("get"), None);
    assert_eq!(
        error_text(members.remove(&id, "bob").await),
        "member not found"
    );
    let nobody = members.set_role(&id, "bob", Role::Viewer).await;
    assert_eq!(error_text(nobody), "member not found");
}

#[tokio::test]
async fn the_last_owner_stays_an_owner() {
    let (_dir, store) = embedded();
    let acme = workspace(&store, "alice", "Acme").await;
    let id = acme.id.to_string();
    let members = Members::new(store);
    let demoted = members.set_role(&id, "alice", Role::Admin).await;
    assert_eq!(error_text(demoted), "a workspace needs an owner");
    assert_eq!(
        error_text(members.remove(&id, "alice").await),
        "a workspace needs an owner"
    );
    members
        .add(&acme.id.to_string(), "bob", Role::Owner)
        .await
        .expect("a second owner");
    members
        .set_role(&id, "alice", Role::Admin)
        .await
        .expect("now alice may step down");
    let member = members
        .require(&id, "alice", Role::Admin)
        .await
        .expect("still admin");
    assert_eq!(member.role, "ADMIN");
}
