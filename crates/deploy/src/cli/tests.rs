//! The command line as an operator types it.

use super::*;

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn roll_takes_a_service_and_compose_options() {
    let command = parse(
        &args("roll backend -p prod -f a.yaml --file b.yaml --env-file x.env --health-timeout 30"),
        None,
    )
    .expect("a command");
    assert_eq!(
        command,
        Command::Roll(Target {
            service: "backend".to_owned(),
            compose: ComposeProject {
                name: "prod".to_owned(),
                files: vec!["a.yaml".to_owned(), "b.yaml".to_owned()],
                env_files: vec!["x.env".to_owned()],
            },
            health_timeout: Duration::from_secs(30),
        })
    );
}

#[test]
fn defaults_come_from_the_environment_then_the_constants() {
    let Ok(Command::Check(target)) = parse(&args("check redis"), Some("ci".to_owned())) else {
        panic!("a check");
    };
    assert_eq!(target.compose.name, "ci");
    assert_eq!(target.compose.files, [DEFAULT_FILE]);
    assert_eq!(target.health_timeout, Duration::from_secs(120));
    let Ok(Command::Check(target)) = parse(&args("check redis"), None) else {
        panic!("a check");
    };
    assert_eq!(target.compose.name, DEFAULT_PROJECT);
}

#[test]
fn mistakes_are_named() {
    let cases = [
        ("", "a command is required"),
        ("deploy backend", "unknown command \"deploy\""),
        ("roll", "a service is required"),
        ("roll a b", "unexpected argument \"b\""),
        ("roll a --force", "unknown option \"--force\""),
        ("roll a -p", "-p needs a value"),
        (
            "check-container",
            "check-container needs at least one container",
        ),
        (
            "roll a --health-timeout 0",
            "--health-timeout expects a whole number of seconds > 0, got \"0\"",
        ),
    ];
    for (line, message) in cases {
        assert_eq!(parse(&args(line), None), Err(message.to_owned()), "{line}");
    }
    assert_eq!(main(&args("roll"), None), EXIT_USAGE);
    assert_eq!(main(&args("--help"), None), EXIT_OK);
}

#[test]
fn each_way_a_roll_stops_has_its_exit_code() {
    let engine = crate::engine::EngineError {
        command: "docker ps".to_owned(),
        message: "boom".to_owned(),
    };
    assert_eq!(exit_code(&RollError::Refused(Vec::new())), EXIT_REFUSED);
    assert_eq!(
        exit_code(&RollError::Unaccounted(String::new())),
        EXIT_REFUSED
    );
    assert_eq!(
        exit_code(&RollError::Unhealthy(String::new())),
        EXIT_UNHEALTHY
    );
    assert_eq!(exit_code(&RollError::Engine(engine)), EXIT_ENGINE);
}
