//! `docker inspect` read into the few facts the guard judges: identity, environment, labels,
//! working directory, mounts (with how long their contents live), the writable layer's size
//! and the container's state.

use crate::layer::LayerSize;
use serde::Deserialize;
use std::collections::BTreeMap;

/// How long what a mount holds outlives the container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keeps {
    /// A named volume or a bind mount: a new container is given the same one.
    Durable(String),
    /// A tmpfs, or an anonymous volume that a newly created container does not inherit.
    Ephemeral(String),
}

/// One mount of the container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// Where it is mounted inside the container.
    pub destination: String,
    /// Whether its contents outlive the container, with a description for messages.
    pub keeps: Keeps,
}

/// What the guard knows about one container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspection {
    /// The full id.
    pub id: String,
    /// The name, without Docker's leading `/`.
    pub name: String,
    /// `Config.WorkingDir` (empty when the image sets none).
    pub working_dir: String,
    /// `Config.Env` as a map (a variable without `=` maps to the empty string).
    pub env: BTreeMap<String, String>,
    /// `Config.Labels`.
    pub labels: BTreeMap<String, String>,
    /// Volumes, bind mounts and tmpfs mounts.
    pub mounts: Vec<Mount>,
    /// `SizeRw`, read according to whether `--size` was asked for.
    pub layer: LayerSize,
    /// `State.Running`.
    pub running: bool,
    /// `State.Health.Status` (`starting`, `healthy`, `unhealthy`) when it has a healthcheck.
    pub health: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Raw {
    id: String,
    name: String,
    config: RawConfig,
    #[serde(default)]
    mounts: Vec<RawMount>,
    host_config: Option<RawHostConfig>,
    state: RawState,
    size_rw: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RawConfig {
    #[serde(default)]
    working_dir: String,
    env: Option<Vec<String>>,
    labels: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RawMount {
    #[serde(rename = "Type")]
    kind: String,
    name: Option<String>,
    #[serde(default)]
    source: String,
    destination: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RawHostConfig {
    tmpfs: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RawState {
    running: bool,
    health: Option<RawHealth>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RawHealth {
    status: String,
}

impl Inspection {
    /// Reads the output of `docker inspect [--size] <one container>` (a JSON array of one);
    /// `size_asked` says whether `--size` was given.
    pub fn parse(json: &str, size_asked: bool) -> Result<Self, String> {
        let mut list: Vec<Raw> =
            serde_json::from_str(json).map_err(|e| format!("unreadable docker inspect: {e}"))?;
        if list.len() != 1 {
            return Err(format!(
                "docker inspect returned {} containers, expected 1",
                list.len()
            ));
        }
        let raw = list.remove(0);
        let mut mounts: Vec<Mount> = raw.mounts.iter().map(mount).collect();
        let tmpfs = raw
            .host_config
            .and_then(|host| host.tmpfs)
            .unwrap_or_default();
        mounts.extend(tmpfs.into_keys().map(|destination| Mount {
            destination,
            keeps: Keeps::Ephemeral("a tmpfs".to_owned()),
        }));
        Ok(Self {
            name: raw.name.trim_start_matches('/').to_owned(),
            id: raw.id,
            working_dir: raw.config.working_dir,
            env: raw
                .config
                .env
                .unwrap_or_default()
                .iter()
                .map(|pair| variable(pair))
                .collect(),
            labels: raw.config.labels.unwrap_or_default(),
            mounts,
            layer: LayerSize::from_inspect(size_asked, raw.size_rw.as_ref()),
            running: raw.state.running,
            health: raw.state.health.map(|health| health.status),
        })
    }

    /// The mount holding `path`: the one with the deepest destination at or above it.
    pub fn mount_holding(&self, path: &str) -> Option<&Mount> {
        self.mounts
            .iter()
            .filter(|mount| crate::paths::is_under(path, &mount.destination))
            .max_by_key(|mount| mount.destination.len())
    }

    /// A label's value.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels.get(name).map(String::as_str)
    }
}

fn variable(pair: &str) -> (String, String) {
    match pair.split_once('=') {
        Some((name, value)) => (name.to_owned(), value.to_owned()),
        None => (pair.to_owned(), String::new()),
    }
}

fn mount(raw: &RawMount) -> Mount {
    let keeps = match (raw.kind.as_str(), raw.name.as_deref()) {
        ("volume", Some(name)) if is_anonymous(name) => {
            Keeps::Ephemeral(format!("the anonymous volume {}", &name[..12]))
        }
        ("volume", Some(name)) => Keeps::Durable(format!("the volume {name}")),
        ("bind", _) => Keeps::Durable(format!("the bind mount {}", raw.source)),
        ("tmpfs", _) => Keeps::Ephemeral("a tmpfs".to_owned()),
        (kind, _) => Keeps::Ephemeral(format!("a {kind} mount the guard does not know")),
    };
    Mount {
        destination: raw.destination.clone(),
        keeps,
    }
}

/// Docker names an anonymous volume with 64 hex digits.
fn is_anonymous(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_one_container_is_an_error() {
        assert!(
            Inspection::parse("[]", true)
                .expect_err("no container")
                .contains("returned 0 containers")
        );
        assert!(
            Inspection::parse("{", true)
                .expect_err("bad json")
                .starts_with("unreadable docker inspect")
        );
    }

    #[test]
    fn mounts_say_how_long_their_contents_live() {
        let json = include_str!("../tests/fixtures/anonymous.json");
        let inspection = Inspection::parse(json, true).expect("an inspection");
        assert_eq!(inspection.name, "estate-fixture-anonymous");
        assert_eq!(
            inspection.mounts,
            [Mount {
                destination: "/data".to_owned(),
                keeps: Keeps::Ephemeral("the anonymous volume 178604e46dc9".to_owned()),
            }]
        );
        let tmpfs = Inspection::parse(include_str!("../tests/fixtures/tmpfs.json"), true)
            .expect("an inspection");
        assert_eq!(
            tmpfs.mounts[0].keeps,
            Keeps::Ephemeral("a tmpfs".to_owned())
        );
        assert_eq!(tmpfs.env.get("DATA_DIR").map(String::as_str), Some("/data"));
        assert!(tmpfs.running && tmpfs.health.is_none());
        assert_eq!(tmpfs.layer, LayerSize::Measured(0));
    }

    #[test]
    fn the_deepest_mount_holds_a_path() {
        let json = include_str!("../tests/fixtures/relative.json");
        let mut inspection = Inspection::parse(json, true).expect("an inspection");
        inspection.mounts.push(Mount {
            destination: "/srv".to_owned(),
            keeps: Keeps::Ephemeral("a tmpfs".to_owned()),
        });
        let holder = inspection.mount_holding("/srv/data/x").expect("a mount");
        assert_eq!(holder.destination, "/srv/data");
        assert!(inspection.mount_holding("/srv2").is_none());
    }
}
