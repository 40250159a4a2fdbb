//! The guard against a live engine: inspect a container with `--size`, list its writable
//! layer, and judge it. Every failure to learn a fact becomes an unsafe verdict, never an
//! error the caller could forget to treat as one.

use crate::engine::{Engine, NUMBER_LABEL};
use crate::inspect::Inspection;
use crate::layer::parse_diff;
use crate::verdict::{Verdict, assess};

/// Judges one container by id or name.
pub fn check_container(engine: &dyn Engine, id: &str) -> Verdict {
    let inspection = match engine
        .inspect(id, true)
        .map_err(|e| e.to_string())
        .and_then(|json| Inspection::parse(&json, true))
    {
        Ok(inspection) => inspection,
        Err(why) => return Verdict::unknown(id, &why),
    };
    let diff = engine
        .diff(id)
        .map_err(|e| e.to_string())
        .and_then(|text| parse_diff(&text));
    assess(&inspection, &diff)
}

/// The containers of one compose service, inspected without `--size` (identity, labels and
/// state), in replica order; an id the engine cannot describe is returned as the error.
pub fn service_containers(
    engine: &dyn Engine,
    project: &str,
    service: &str,
) -> Result<Vec<Inspection>, String> {
    let ids = engine
        .containers(project, service)
        .map_err(|e| e.to_string())?;
    let mut containers = ids
        .iter()
        .map(|id| {
            engine
                .inspect(id, false)
                .map_err(|e| e.to_string())
                .and_then(|json| Inspection::parse(&json, false))
                .map_err(|why| format!("container {id}: {why}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    containers.sort_by_key(|container| {
        container
            .label(NUMBER_LABEL)
            .and_then(|number| number.parse::<u32>().ok())
            .unwrap_or(u32::MAX)
    });
    Ok(containers)
}
