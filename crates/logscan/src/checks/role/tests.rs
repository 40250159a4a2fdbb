//! Roles of files and regions: tests, examples, entry points, libraries.

use super::Role;
use super::path::role_of_path;

#[test]
fn paths_say_what_a_file_is_for() {
    let cases = [
        ("src/lib.rs", Role::Library),
        ("tests/it.rs", Role::Test),
        ("pkg/store_test.go", Role::Test),
        ("web/app.spec.ts", Role::Test),
        ("examples/bloom.rs", Role::Example),
        ("benches/main.rs", Role::Example),
        ("src/bin/tool.rs", Role::Cli),
        ("src/main.rs", Role::Cli),
        ("pip/__main__.py", Role::Cli),
        ("cmd/server/server.go", Role::Cli),
        ("pip/_internal/commands/list.py", Role::Cli),
        ("config_loader.rs", Role::Library),
        ("src/test_helpers/test_client.rs", Role::Test),
        ("dummyserver/handlers.py", Role::Test),
        ("internal/testutil/db.go", Role::Test),
        ("src/mocks/api.ts", Role::Test),
        ("pkg/testdata/x.go", Role::Test),
        ("src/latest/contest.rs", Role::Library),
        ("src/protest.py", Role::Library),
        ("src/testutil.rs", Role::Test),
        ("src/common/test_stream.rs", Role::Test),
        ("pyparsing/testing.py", Role::Test),
        ("celery/t/smoke/signals.py", Role::Test),
        ("setuptools/command/alias.py", Role::Cli),
        ("src/attestation.rs", Role::Library),
        ("criterion/src/report.rs", Role::Cli),
        ("scrapy/utils/display.py", Role::Cli),
        ("src/reports.rs", Role::Library),
        ("airflow/example_dags/tutorial.py", Role::Example),
        ("src/exampleparser/lib.rs", Role::Library),
        ("pyocd/subcommands/info_cmd.py", Role::Cli),
        ("steam/versions_report/__init__.py", Role::Cli),
        ("steam/client/__init__.py", Role::Library),
    ];
    for (path, role) in cases {
        assert_eq!(role_of_path(path), role, "{path}");
    }
}
