//! The guard's decisions on `docker inspect --size` and `docker diff` captured from real
//! containers (`tests/fixtures/capture.sh` regenerates them).

use super::{Finding, Verdict, assess};
use crate::inspect::Inspection;
use crate::layer::parse_diff;

/// Judges a captured case: `NAME.json` (inspected with `--size`) and `NAME.diff`.
fn judge(json: &str, diff: &str) -> Verdict {
    let inspection = Inspection::parse(json, true).expect("a captured inspection");
    assess(&inspection, &parse_diff(diff))
}

macro_rules! case {
    ($name:literal) => {
        judge(
            include_str!(concat!("../../tests/fixtures/", $name, ".json")),
            include_str!(concat!("../../tests/fixtures/", $name, ".diff")),
        )
    };
}

fn data_dir_finding(path: &str) -> Finding {
    Finding::DataInLayer {
        origin: "DATA_DIR".to_owned(),
        path: path.to_owned(),
    }
}

#[test]
fn data_written_into_the_layer_is_refused() {
    let verdict = case!("layer");
    assert_eq!(verdict.container, "estate-fixture-layer");
    assert_eq!(
        verdict.findings,
        vec![
            data_dir_finding("/data"),
            Finding::UnaccountedWrites {
                paths: vec!["/data/f".to_owned()],
                more: 0
            },
        ]
    );
    assert!(!verdict.is_safe());
    assert_eq!(verdict.notes, ["writable layer: 6 B"]);
}

#[test]
fn data_on_a_named_volume_or_a_bind_mount_is_allowed() {
    let volume = case!("volume");
    assert!(volume.is_safe(), "{:?}", volume.findings);
    assert_eq!(
        volume.notes,
        [
            "writable layer: 0 B",
            "data path /data (DATA_DIR) is on the volume estate-fixture-data"
        ]
    );
    let bind = case!("bind");
    assert!(bind.is_safe(), "{:?}", bind.findings);
    assert!(bind.notes[1].starts_with("data path /data (DATA_DIR) is on the bind mount /var/tmp/"));
    let redis = case!("redis-like");
    assert!(redis.is_safe(), "{:?}", redis.findings);
}

#[test]
fn a_backend_replica_as_compose_runs_it_is_allowed() {
    let verdict = case!("compose-backend");
    assert!(verdict.is_safe(), "{:?}", verdict.findings);
    assert_eq!(verdict.container, "estate-fixture-backend-1");
    assert_eq!(
        verdict.notes,
        [
            "writable layer: 0 B",
            "data path /data (DATA_DIR) is on the volume estate-fixture_backend-data"
        ]
    );
}

#[test]
fn a_relative_data_dir_resolves_against_the_working_directory() {
    let verdict = case!("relative");
    assert!(verdict.is_safe(), "{:?}", verdict.findings);
    assert_eq!(
        verdict.notes[1],
        "data path /srv/data (DATA_DIR) is on the volume estate-fixture-data"
    );
}

#[test]
fn a_container_without_data_and_with_only_scratch_writes_is_allowed() {
    assert!(case!("fresh").is_safe());
    let scratch = case!("tmp-only");
    assert!(scratch.is_safe(), "{:?}", scratch.findings);
    assert_eq!(scratch.notes, ["writable layer: 8 B"]);
}

#[test]
fn data_on_a_tmpfs_or_an_anonymous_volume_is_refused() {
    let tmpfs = case!("tmpfs");
    assert_eq!(
        tmpfs.findings,
        vec![Finding::DataOnEphemeralMount {
            origin: "DATA_DIR".to_owned(),
            path: "/data".to_owned(),
            mount: "a tmpfs".to_owned()
        }]
    );
    let anonymous = case!("anonymous");
    assert_eq!(anonymous.findings.len(), 1);
    assert_eq!(
        anonymous.findings[0].to_string(),
        "data path /data (DATA_DIR) is on the anonymous volume 178604e46dc9, \
         which a new container does not get back"
    );
}

#[test]
fn undeclared_writes_outside_every_mount_are_refused() {
    let verdict = case!("stray");
    assert_eq!(
        verdict.findings,
        vec![Finding::UnaccountedWrites {
            paths: vec!["/root/notes/n".to_owned()],
            more: 0
        }]
    );
    assert_eq!(
        verdict.findings[0].to_string(),
        "written in the writable layer: /root/notes/n"
    );
}

#[test]
fn an_unresolvable_data_path_is_refused() {
    let verdict = case!("unset-var");
    assert_eq!(
        verdict.findings,
        vec![Finding::Unresolvable {
            origin: "label estate.data-paths".to_owned(),
            entry: "env:STATE_DIR".to_owned(),
            why: "STATE_DIR is not set in the container's environment".to_owned()
        }]
    );
}

#[test]
fn an_unmeasured_layer_is_unknown_and_refused_never_zero() {
    let inspection = Inspection::parse(include_str!("../../tests/fixtures/unmeasured.json"), true)
        .expect("an inspection");
    let verdict = assess(
        &inspection,
        &parse_diff(include_str!("../../tests/fixtures/volume.diff")),
    );
    assert_eq!(verdict.findings, vec![Finding::LayerUnknown]);
    assert_eq!(
        verdict.notes[0],
        "writable layer: unknown (the engine could not measure it)"
    );
}

#[test]
fn a_layer_nobody_asked_about_is_its_own_answer() {
    let json = include_str!("../../tests/fixtures/not-asked.json");
    let inspection = Inspection::parse(json, false).expect("an inspection");
    let verdict = assess(
        &inspection,
        &parse_diff(include_str!("../../tests/fixtures/volume.diff")),
    );
    assert_eq!(verdict.findings, vec![Finding::LayerNotAsked]);
    assert_eq!(
        verdict.notes[0],
        "writable layer: not measured (never asked)"
    );
}

#[test]
fn a_diff_that_cannot_be_had_is_refused_even_with_an_empty_layer() {
    let inspection = Inspection::parse(include_str!("../../tests/fixtures/fresh.json"), true)
        .expect("an inspection");
    let verdict = assess(&inspection, &Err("docker diff exited with 1".to_owned()));
    assert_eq!(
        verdict.findings,
        vec![Finding::DiffUnavailable(
            "docker diff exited with 1".to_owned()
        )]
    );
}

#[test]
fn an_unknown_container_is_refused() {
    let verdict = Verdict::unknown("nope", "Error: No such object: nope");
    assert!(!verdict.is_safe());
    assert_eq!(
        verdict.findings[0].to_string(),
        "unknown container: Error: No such object: nope"
    );
}

#[test]
fn many_stray_writes_are_listed_then_counted() {
    let inspection = Inspection::parse(include_str!("../../tests/fixtures/fresh.json"), true)
        .expect("an inspection");
    let diff: String = (0..13).map(|i| format!("A /srv/f{i}\n")).collect();
    let verdict = assess(&inspection, &parse_diff(&diff));
    let Finding::UnaccountedWrites { paths, more } = &verdict.findings[0] else {
        panic!("unaccounted writes expected, got {:?}", verdict.findings);
    };
    assert_eq!((paths.len(), *more), (10, 3));
}
