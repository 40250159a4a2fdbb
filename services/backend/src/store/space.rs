//! The named key spaces: one redb table or one Redis key segment each.

/// A family of records. Keys are unique within a space, never across spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Accounts, keyed by normalised e-mail or id.
    Users,
    /// Workspaces.
    Workspaces,
    /// Workspace memberships and their roles.
    Members,
    /// Pending workspace invitations.
    Invitations,
    /// Projects inside a workspace.
    Projects,
    /// CI keys (stored as digests).
    CiKeys,
    /// Scan runs and their progress.
    Runs,
    /// One-time codes (stored hashed, short-lived, single use).
    Codes,
    /// Attempt counters behind the login and one-time-code ceilings.
    Attempts,
    /// Single-use tokens (magic links, password resets).
    Tokens,
    /// The leases of running scan runs: present while the process driving the run is alive.
    RunLeases,
    /// Mail waiting for SMTP delivery, and the claims of the replicas delivering it.
    Outbox,
    /// Live sessions, their unused refresh tokens, and each user's set of sessions.
    Sessions,
    /// Account-mail jobs (codes, links, signups) the request path left for the background,
    /// and the claims of the replicas working them.
    MailJobs,
    /// The name and password hash of each unverified account's latest signup.
    Signups,
}

impl Space {
    /// Every space, in declaration order (the embedded store creates one table for each).
    pub const ALL: [Self; 15] = [
        Self::Users,
        Self::Workspaces,
        Self::Members,
        Self::Invitations,
        Self::Projects,
        Self::CiKeys,
        Self::Runs,
        Self::Codes,
        Self::Attempts,
        Self::Tokens,
        Self::RunLeases,
        Self::Outbox,
        Self::Sessions,
        Self::MailJobs,
        Self::Signups,
    ];

    /// The stable name: the redb table name and the Redis key segment. Never change one, or
    /// the records stored under it are lost.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Users => "users",
            Self::Workspaces => "workspaces",
            Self::Members => "members",
            Self::Invitations => "invitations",
            Self::Projects => "projects",
            Self::CiKeys => "ci_keys",
            Self::Runs => "runs",
            Self::Codes => "codes",
            Self::Attempts => "attempts",
            Self::Tokens => "tokens",
            Self::RunLeases => "run_leases",
            Self::Outbox => "outbox",
            Self::Sessions => "sessions",
            Self::MailJobs => "mail_jobs",
            Self::Signups => "signups",
        }
    }
}
