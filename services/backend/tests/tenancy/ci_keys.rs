//! CI keys: the secret authenticates, is shown once, is never stored, and dies on revoke.

use crate::support::{embedded, error_text, space_contains, workspace};
use backend::store::Space;
use backend::tenancy::{CiKeys, Denial, Projects};

#[tokio::test]
async fn the_secret_authenticates_until_revoked() {
    let (_dir, store) = embedded();
    let acme = workspace(&store, "alice", "Acme").await.id.to_string();
    let project = Projects::new(store.clone(), Denial::default());
    let project = project.create(&acme, "Web", "WEB").await.expect("project");
    let keys = CiKeys::new(store);
    let created = keys.create(&acme, &project.id.to_string(), "runner").await;
    let (key, secret) = created.expect("create");
    let random = secret.strip_prefix("ci_").expect("the ci_ prefix");
    assert_eq!(random.len(), 40);
    assert!(
        random
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"-_".contains(&byte))
    );
    assert_eq!(key.prefix, secret[..8]);
    assert_eq!((key.project_id, key.name.as_str()), (project.id, "runner"));

    let authenticated = keys.authenticate(&secret).await.expect("authenticate");
    assert_eq!(authenticated.as_ref(), Some(&key));
    let wrong = format!("{secret}x");
    assert_eq!(keys.authenticate(&wrong).await.expect("authenticate"), None);
    assert_eq!(keys.authenticate(random).await.expect("no prefix"), None);
    assert_eq!(
        keys.list(&acme).await.expect("list"),
        std::slice::from_ref(&key)
    );

    keys.revoke(&acme, &key.id.to_string())
        .await
        .expect("revoke");
    assert_eq!(
        keys.authenticate(&secret).await.expect("authenticate"),
        None
    );
    assert!(keys.list(&acme).await.expect("list").is_empty());
    let twice = keys.revoke(&acme, &key.id.to_string()).await;
    assert_eq!(error_text(twice), "ci key not found");
}

#[tokio::test]
async fn the_secret_is_never_stored() {
    let (_dir, store) = embedded();
    let acme = workspace(&store, "alice", "Acme").await.id.to_string();
    let project = Projects::new(store.clone(), Denial::default());
    let project = project.create(&acme, "Web", "WEB").await.expect("project");
    let keys = CiKeys::new(store.clone());
    let (_, secret) = keys
        .create(&acme, &project.id.to_string(), "runner")
        .await
        .expect("create");
    assert!(!space_contains(&store, Space::CiKeys, &secret).await);
    assert!(!space_contains(&store, Space::CiKeys, &secret[3..]).await);
    assert!(
        space_contains(&store, Space::CiKeys, &secret[..8]).await,
        "the display prefix"
    );
}

#[tokio::test]
async fn another_tenants_project_and_keys_are_out_of_reach() {
    let (_dir, store) = embedded();
    let mine = workspace(&store, "alice", "Mine").await.id.to_string();
    let theirs = workspace(&store, "bob", "Theirs").await.id.to_string();
    let projects = Projects::new(store.clone(), Denial::default());
    let their_project = projects
        .create(&theirs, "Secret", "SEC")
        .await
        .expect("project");
    let keys = CiKeys::new(store.clone());
    let their_project = their_project.id.to_string();
    let planted = keys.create(&mine, &their_project, "planted").await;
    assert_eq!(error_text(planted), "project not found");
    let (their_key, secret) = keys
        .create(&theirs, &their_project, "ci")
        .await
        .expect("create");

    let revoked = keys.revoke(&mine, &their_key.id.to_string()).await;
    assert_eq!(error_text(revoked), "ci key not found");
    let random = uuid::Uuid::new_v4().to_string();
    assert_eq!(
        error_text(keys.revoke(&mine, &random).await),
        "ci key not found"
    );
    assert!(keys.list(&mine).await.expect("list").is_empty());
    assert!(
        keys.authenticate(&secret)
            .await
            .expect("authenticate")
            .is_some()
    );

    let legacy = CiKeys::with_denial(
        store,
        Denial {
            legacy_forbidden: true,
        },
    );
    let planted = legacy.create(&mine, &their_project, "planted").await;
    assert_eq!(
        error_text(planted),
        "You do not have access to this project"
    );
}
