//! Projects behind the tenant fence: another workspace's project is answered exactly like a
//! project that does not exist, unless the compatibility switch asks for the old 403.

use crate::support::{embedded, error_text, workspace};
use backend::store::Store;
use backend::tenancy::ownership::LEGACY_PROJECT_FORBIDDEN;
use backend::tenancy::{Denial, Project, Projects, TenancyError};
use tempfile::TempDir;

/// A store with two tenants, the second owning one project.
async fn two_tenants() -> (TempDir, Store, String, String, Project) {
    let (dir, store) = embedded();
    let mine = workspace(&store, "alice", "Mine").await.id.to_string();
    let theirs = workspace(&store, "bob", "Theirs").await.id.to_string();
    let projects = Projects::new(store.clone(), Denial::default());
    let secret = projects
        .create(&theirs, "Secret", "SEC")
        .await
        .expect("create");
    (dir, store, mine, theirs, secret)
}

#[tokio::test]
async fn key_validation() {
    let (_dir, store) = embedded();
    let acme = workspace(&store, "alice", "Acme").await.id.to_string();
    let projects = Projects::new(store, Denial::default());
    let accepted = [
        ("AB", "AB"),
        ("A1", "A1"),
        ("abc", "ABC"),
        (" WEB2 ", "WEB2"),
        ("ABCDEFGHIJ", "ABCDEFGHIJ"),
    ];
    for (key, stored) in accepted {
        let project = projects.create(&acme, "Name", key).await.expect(key);
        assert_eq!(project.key, stored, "{key:?}");
    }
    let refused = ["", "A", "1AB", "ABCDEFGHIJK", "A-B", "A B", "AÉ", "_AB"];
    for key in refused {
        let result = projects.create(&acme, "Name", key).await;
        assert!(matches!(result, Err(TenancyError::Invalid(_))), "{key:?}");
    }
    for name in ["", "  ", &"n".repeat(101)] {
        let result = projects.create(&acme, name, "OK").await;
        assert!(matches!(result, Err(TenancyError::Invalid(_))), "{name:?}");
    }
}

#[tokio::test]
async fn a_key_is_unique_per_workspace_only() {
    let (_dir, store, mine, theirs, _) = two_tenants().await;
    let projects = Projects::new(store, Denial::default());
    let again = projects.create(&theirs, "Other", "sec").await;
    assert!(matches!(again, Err(TenancyError::Conflict(_))));
    assert_eq!(error_text(again), "project key already exists");
    let same_key = projects
        .create(&mine, "Mine too", "SEC")
        .await
        .expect("own workspace");
    assert_eq!(projects.list(&mine).await.expect("list"), [same_key]);
}

#[tokio::test]
async fn another_tenants_project_reads_as_missing() {
    let (_dir, store, mine, _, secret) = two_tenants().await;
    let projects = Projects::new(store, Denial::default());
    let theirs = secret.id.to_string();
    let random = uuid::Uuid::new_v4().to_string();
    for id in [random.as_str(), "not-a-uuid"] {
        let expected = error_text(projects.get(&mine, id).await);
        assert_eq!(expected, "project not found");
        let found_elsewhere = projects.get(&mine, &theirs).await;
        assert!(matches!(found_elsewhere, Err(TenancyError::NotFound(_))));
        assert_eq!(error_text(found_elsewhere).as_bytes(), expected.as_bytes());
        let updated = projects.update(&mine, &theirs, "Mine now").await;
        assert_eq!(
            error_text(updated),
            error_text(projects.update(&mine, id, "x").await)
        );
        let deleted = projects.delete(&mine, &theirs).await;
        assert_eq!(
            error_text(deleted),
            error_text(projects.delete(&mine, id).await)
        );
    }
    assert!(projects.list(&mine).await.expect("list").is_empty());
    let untouched = projects
        .get(&secret.workspace_id.to_string(), &theirs)
        .await;
    assert_eq!(
        untouched.expect("still there"),
        secret,
        "neither renamed nor deleted"
    );
}

#[tokio::test]
async fn the_compatibility_switch_restores_the_old_403_text() {
    let (_dir, store, mine, _, secret) = two_tenants().await;
    let legacy = Projects::new(
        store,
        Denial {
            legacy_forbidden: true,
        },
    );
    let theirs = secret.id.to_string();
    let results = [
        legacy.get(&mine, &theirs).await.map(drop),
        legacy.update(&mine, &theirs, "x").await.map(drop),
        legacy.delete(&mine, &theirs).await,
    ];
    for result in results {
        assert!(matches!(result, Err(TenancyError::LegacyForbidden(_))));
        assert_eq!(error_text(result), LEGACY_PROJECT_FORBIDDEN);
    }
    assert_eq!(
        LEGACY_PROJECT_FORBIDDEN,
        "You do not have access to this project"
    );
    let random = uuid::Uuid::new_v4().to_string();
    assert_eq!(
        error_text(legacy.get(&mine, &random).await),
        "project not found"
    );
}

#[tokio::test]
async fn get_update_delete_and_list_in_ones_own_workspace() {
    let (_dir, store, _, theirs, secret) = two_tenants().await;
    let projects = Projects::new(store, Denial::default());
    let id = secret.id.to_string();
    let json = serde_json::to_value(&secret).expect("serialise");
    assert_eq!(
        json["workspaceId"],
        secret.workspace_id.to_string(),
        "camelCase"
    );
    let renamed = projects
        .update(&theirs, &id, "  Renamed ")
        .await
        .expect("update");
    assert_eq!(
        (renamed.name.as_str(), renamed.key.as_str()),
        ("Renamed", "SEC")
    );
    let second = projects
        .create(&theirs, "Alpha", "ALP")
        .await
        .expect("create");
    assert_eq!(
        projects.list(&theirs).await.expect("list"),
        [second, renamed]
    );
    projects.delete(&theirs, &id).await.expect("delete");
    assert_eq!(
        error_text(projects.get(&theirs, &id).await),
        "project not found"
    );
    projects
        .create(&theirs, "Again", "SEC")
        .await
        .expect("the key is free again");
}
