//! The four services the probe talks to, with their hostnames (docs/DESIGN.md, "Services, ports and hostnames") and health paths.

use std::fmt;

/// One estate service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Service {
    /// `backend`, `api.localhost`.
    Backend,
    /// `analyzer`, `analyzer.localhost`.
    Analyzer,
    /// `ai-service`, `ai.localhost`.
    Ai,
    /// `mcp-server`, `mcp.localhost`.
    Mcp,
}

impl Service {
    /// Every service, in the order the tables list them.
    pub const ALL: [Service; 4] = [Self::Backend, Self::Analyzer, Self::Ai, Self::Mcp];

    /// The service's name, as its binary and compose service are called.
    pub fn name(self) -> &'static str {
        match self {
            Self::Backend => "backend",
            Self::Analyzer => "analyzer",
            Self::Ai => "ai-service",
            Self::Mcp => "mcp-server",
        }
    }

    /// The hostname the ingress maps to it (docs/DESIGN.md, "Services, ports and hostnames").
    pub fn default_host(self) -> &'static str {
        match self {
            Self::Backend => "api.localhost",
            Self::Analyzer => "analyzer.localhost",
            Self::Ai => "ai.localhost",
            Self::Mcp => "mcp.localhost",
        }
    }

    /// Its health path: open, unmetered, `{"status":"UP"}` when ready.
    pub fn health_path(self) -> &'static str {
        match self {
            Self::Backend => "/actuator/health",
            _ => "/health",
        }
    }

    /// The service called `name` (as [`Service::name`] spells it).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|service| service.name() == name)
    }
}

impl fmt::Display for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
