//! Workspaces: created with their OWNER, found by name in any case, names unique.

use crate::support::{embedded, error_text, workspace};
use backend::tenancy::{Members, Role, TenancyError, Workspaces};

#[tokio::test]
async fn create_makes_the_creator_owner() {
    let (_dir, store) = embedded();
    let created = Workspaces::new(store.clone())
        .create("alice", "  Acme Rockets  ")
        .await
        .expect("create");
    assert_eq!(created.name, "Acme Rockets", "the name is trimmed");
    assert_eq!(created.owner_id, "alice");
    let id = created.id.to_string();
    let membership = Members::new(store).require(&id, "alice", Role::Owner).await;
    assert_eq!(membership.expect("the creator is a member").role, "OWNER");
}

#[tokio::test]
async fn lookup_by_id_and_by_name_in_any_case() {
    let (_dir, store) = embedded();
    let created = workspace(&store, "alice", "Acme Rockets").await;
    let workspaces = Workspaces::new(store);
    let by_id = workspaces.get(&created.id.to_string()).await.expect("get");
    assert_eq!(by_id, created);
    for spelling in [
        "Acme Rockets",
        "acme rockets",
        "ACME ROCKETS",
        " acme Rockets ",
    ] {
        let found = workspaces.find_by_name(spelling).await.expect(spelling);
        assert_eq!(found, created, "{spelling:?}");
    }
    let missing = workspaces.find_by_name("Acme").await;
    assert_eq!(error_text(missing), "workspace not found");
    let random = uuid::Uuid::new_v4().to_string();
    assert_eq!(
        error_text(workspaces.get(&random).await),
        "workspace not found"
    );
    assert_eq!(
        error_text(workspaces.get("not-a-uuid").await),
        "workspace not found"
    );
}

#[tokio::test]
async fn a_name_is_taken_in_every_letter_case() {
    let (_dir, store) = embedded();
    workspace(&store, "alice", "Acme").await;
    let workspaces = Workspaces::new(store);
    for spelling in ["Acme", "ACME", "acme", " aCmE "] {
        let again = workspaces.create("bob", spelling).await;
        assert!(
            matches!(again, Err(TenancyError::Conflict(_))),
            "{spelling:?}"
        );
        assert_eq!(error_text(again), "workspace name already taken");
    }
    assert_eq!(workspaces.list_for_user("bob").await.expect("list"), []);
}

#[tokio::test]
async fn names_must_have_one_to_sixty_four_characters() {
    let (_dir, store) = embedded();
    let workspaces = Workspaces::new(store);
    let longest = "é".repeat(64);
    assert_eq!(
        workspaces.create("a", &longest).await.expect("64").name,
        longest
    );
    for bad in [
        String::new(),
        "   ".to_owned(),
        "x".repeat(65),
        "tab\there".to_owned(),
    ] {
        let refused = workspaces.create("a", &bad).await;
        assert!(matches!(refused, Err(TenancyError::Invalid(_))), "{bad:?}");
    }
}

#[tokio::test]
async fn list_for_user_holds_only_their_workspaces() {
    let (_dir, store) = embedded();
    let first = workspace(&store, "alice", "First").await;
    let second = workspace(&store, "alice", "Second").await;
    let other = workspace(&store, "bob", "Other").await;
    Members::new(store.clone())
        .add(&other.id.to_string(), "alice", Role::Viewer)
        .await
        .expect("add");
    let workspaces = Workspaces::new(store);
    let listed = workspaces.list_for_user("alice").await.expect("list");
    let mut ids: Vec<_> = listed.iter().map(|workspace| workspace.id).collect();
    ids.sort_unstable();
    let mut expected = vec![first.id, second.id, other.id];
    expected.sort_unstable();
    assert_eq!(ids, expected);
    let bobs = workspaces.list_for_user("bob").await.expect("list");
    assert_eq!(bobs, [other]);
    assert_eq!(workspaces.list_for_user("carol").await.expect("list"), []);
}
