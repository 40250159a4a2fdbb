//! The roll's order of steps, against a fake engine that records every command.

use super::*;
use fake::FakeEngine;

mod fake;

fn plan() -> Plan {
    Plan {
        project: "estate".to_owned(),
        service: "backend".to_owned(),
        health_timeout: Duration::from_secs(5),
        poll: Duration::from_millis(1),
    }
}

fn run(engine: &FakeEngine) -> (Result<usize, RollError>, Vec<String>) {
    let mut lines = Vec::new();
    let result = roll(engine, &plan(), &mut |line| lines.push(line.to_owned()));
    (result, lines)
}

#[test]
fn surge_starts_a_healthy_replica_before_each_old_one_goes() {
    let engine = FakeEngine::new(2);
    let (result, lines) = run(&engine);
    assert_eq!(result.expect("a roll"), 2);
    assert_eq!(
        engine.log(),
        [
            "scale 3",
            "stop old-1",
            "rm old-1",
            "scale 3",
            "stop old-2",
            "rm old-2"
        ]
    );
    assert_eq!(engine.ids(), ["new-1", "new-2"]);
    assert_eq!(lines[0], "SAFE    old-1: writable layer: 0 B");
    assert_eq!(lines[2], "rolling backend: 2 replica(s), strategy surge");
    assert!(
        lines.contains(&"stopped and removed old-1".to_owned()),
        "{lines:?}"
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("rolled backend: 2 replica(s) replaced")
    );
}

#[test]
fn recreate_removes_the_old_replica_first() {
    let mut engine = FakeEngine::new(1);
    engine.strategy = Some("recreate");
    let (result, _) = run(&engine);
    assert_eq!(result.expect("a roll"), 1);
    assert_eq!(engine.log(), ["stop old-1", "rm old-1", "scale 1"]);
}

#[test]
fn one_unsafe_replica_refuses_the_whole_roll_before_any_change() {
    let engine = FakeEngine::new(2);
    engine.containers.borrow_mut()[1].diff = "C /root\nA /root/notes\n";
    let (result, lines) = run(&engine);
    let Err(RollError::Refused(verdicts)) = result else {
        panic!("a refusal, got {result:?}");
    };
    assert_eq!(verdicts.len(), 1);
    assert_eq!(
        describe(&verdicts[0]),
        "UNSAFE  old-2: written in the writable layer: /root/notes"
    );
    assert!(
        engine.log().is_empty(),
        "nothing changed: {:?}",
        engine.log()
    );
    assert_eq!(lines.len(), 2, "one verdict line per replica");
}

#[test]
fn a_replacement_that_is_not_healthy_is_stopped_and_the_old_replicas_keep_serving() {
    let mut engine = FakeEngine::new(2);
    engine.new_health = Some("unhealthy");
    let (result, _) = run(&engine);
    let Err(RollError::Unhealthy(message)) = result else {
        panic!("unhealthy, got {result:?}");
    };
    assert_eq!(
        message,
        "new replica new-1 reported unhealthy; the old replicas keep serving"
    );
    assert_eq!(engine.log(), ["scale 3", "stop new-1", "rm new-1"]);
    assert_eq!(engine.ids(), ["old-1", "old-2"]);
}

#[test]
fn a_replacement_without_a_healthcheck_cannot_gate_the_roll() {
    let mut engine = FakeEngine::new(1);
    engine.new_health = None;
    let (result, _) = run(&engine);
    let Err(RollError::Unhealthy(message)) = result else {
        panic!("unhealthy, got {result:?}");
    };
    assert!(message.contains("has no healthcheck"), "{message}");
}

#[test]
fn a_replacement_still_starting_at_the_deadline_fails_the_roll() {
    let mut engine = FakeEngine::new(1);
    engine.new_health = Some("starting");
    let mut plan = plan();
    plan.health_timeout = Duration::from_millis(20);
    let result = roll(&engine, &plan, &mut |_| {});
    let Err(RollError::Unhealthy(message)) = result else {
        panic!("unhealthy, got {result:?}");
    };
    assert_eq!(
        message,
        "new replica new-1 was not healthy within 0.02s; the old replicas keep serving"
    );
}

#[test]
fn a_layer_written_before_the_stop_keeps_the_stopped_container() {
    let mut engine = FakeEngine::new(1);
    engine.stopped_diff = "A /var/lib/app/state\n";
    let (result, lines) = run(&engine);
    let Err(RollError::Refused(verdicts)) = result else {
        panic!("a refusal, got {result:?}");
    };
    assert!(!verdicts[0].is_safe());
    assert_eq!(
        engine.log(),
        ["scale 2", "stop old-1"],
        "stopped, never removed"
    );
    let unsafe_line = "UNSAFE  old-1: written in the writable layer: /var/lib/app/state";
    assert!(lines.contains(&unsafe_line.to_owned()), "{lines:?}");
    assert!(lines.contains(&"old-1 is stopped and kept (not removed)".to_owned()));
}

#[test]
fn a_service_without_containers_or_with_a_stopped_one_is_refused() {
    let (result, _) = run(&FakeEngine::new(0));
    let Err(RollError::Unaccounted(message)) = result else {
        panic!("unaccounted, got {result:?}");
    };
    assert_eq!(
        message,
        "no container of service \"backend\" in project \"estate\""
    );

    let engine = FakeEngine::new(2);
    engine.containers.borrow_mut()[0].running = false;
    let (result, _) = run(&engine);
    assert!(
        matches!(result, Err(RollError::Unaccounted(m)) if m.starts_with("old-1 is not running"))
    );
    assert!(engine.log().is_empty());
}

#[test]
fn an_unknown_strategy_is_refused() {
    let mut engine = FakeEngine::new(1);
    engine.strategy = Some("yolo");
    let (result, _) = run(&engine);
    assert!(
        matches!(result, Err(RollError::Unaccounted(m)) if m.contains("expected \"surge\" or \"recreate\""))
    );
    assert!(engine.log().is_empty());
}
