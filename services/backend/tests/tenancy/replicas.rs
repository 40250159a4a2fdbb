//! Two replicas on one Redis: an invitation is used once cluster-wide, a CI key made on one
//! replica works (and dies) on the other, and a workspace name is unique across both.

use crate::support::{Redis, error_text, replica};
use backend::tenancy::invitations::DEFAULT_TTL;
use backend::tenancy::{CiKeys, Denial, Invitations, Projects, Role, TenancyError, Workspaces};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invitation_is_accepted_once_across_replicas() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let (one, two) = (replica(&redis), replica(&redis));
    let acme = Workspaces::new(one.clone())
        .create("alice", "Acme")
        .await
        .expect("create");
    let id = acme.id.to_string();
    let invitations = Invitations::new(one.clone());
    let token = invitations.invite(&id, "bob@example.com", Role::Member, DEFAULT_TTL);
    let token = token.await.expect("invite");
    let racers: Vec<_> = [one, two]
        .into_iter()
        .cycle()
        .take(10)
        .map(|store| {
            let token = token.clone();
            tokio::spawn(async move {
                Invitations::new(store)
                    .accept(&token, "bob", "bob@example.com")
                    .await
            })
        })
        .collect();
    let mut joined = 0;
    for racer in racers {
        match racer.await.expect("the task completes") {
            Ok(_) => joined += 1,
            Err(TenancyError::NotFound(text)) => assert_eq!(text, "invitation not found"),
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(joined, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ci_keys_and_names_are_shared_by_replicas() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let (one, two) = (replica(&redis), replica(&redis));
    let acme = Workspaces::new(one.clone())
        .create("alice", "Acme")
        .await
        .expect("create");
    let taken = Workspaces::new(two.clone()).create("bob", "ACME").await;
    assert_eq!(error_text(taken), "workspace name already taken");

    let id = acme.id.to_string();
    let projects = Projects::new(one.clone(), Denial::default());
    let project = projects.create(&id, "Web", "WEB").await.expect("project");
    let project = project.id.to_string();
    let (key, secret) = CiKeys::new(one.clone())
        .create(&id, &project, "ci")
        .await
        .expect("key");
    let on_two = CiKeys::new(two)
        .authenticate(&secret)
        .await
        .expect("authenticate");
    assert_eq!(on_two.as_ref(), Some(&key));
    CiKeys::new(one.clone())
        .revoke(&id, &key.id.to_string())
        .await
        .expect("revoke");
    assert_eq!(
        CiKeys::new(one)
            .authenticate(&secret)
            .await
            .expect("authenticate"),
        None
    );
}
