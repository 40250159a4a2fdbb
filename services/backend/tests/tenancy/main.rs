//! The tenancy domain layer, through its public API: ranked roles, workspaces and their
//! members, invitations, projects behind the tenant fence, CI keys, and the token scope.
//!
//! Each test runs on its own embedded store in a temp dir. `replicas` runs two stores on one
//! real Redis (`estate/redis:7`, `REDIS_IMAGE` overrides it) to show the single-use and
//! uniqueness guarantees hold across replicas; `ESTATE_SKIP_DOCKER=1` skips those.

mod ci_keys;
mod invitations;
mod members;
mod projects;
mod replicas;
mod roles;
mod scope;
mod support;
mod workspaces;
