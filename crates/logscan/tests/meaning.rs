//! What the code around a call says it means: a name declared a path or a number, a token that
//! is a place on a ring, a label before an error, a program's output to its own user, a
//! handler its author commented. Each near miss must stay silent, and the true form beside it
//! must still be reported, so that a class is closed without losing its real cases.

mod common;
mod forms;

const SENSITIVE: &str = "sensitive-data-in-logs";
const CAUGHT: &str = "wrong-level-for-caught-error";

/// Code every rule must leave alone: (path, code).
const QUIET: &[(&str, &str)] = &[
    // A key's path, declared as one.
    (
        "examples/client.rs",
        "struct Cli {\n    private_key: PathBuf,\n}\nfn main() {\n    info!(\"Key path: {:?}\", cli.private_key);\n}\n",
    ),
    // A protocol's request number, formatted as a number.
    (
        "kafka/parser.py",
        "log.error('Unable to find ResponseType for api=%d version=%d',\n          header.api_key, header.api_version)\n",
    ),
    // A number by its declaration.
    (
        "src/frame.rs",
        "struct Header {\n    api_key: u16,\n}\nfn f(h: &Header) {\n    debug!(\"frame {}\", h.api_key);\n}\n",
    ),
    // Places on a partitioner's ring.
    (
        "cassandra/metadata.py",
        "log.exception(\"Failed creating a token map for %s with %s\", keyspace, self.token_to_host_owner)\n",
    ),
    (
        "src/tablets.rs",
        "warn!(\"range: [{}, {}]\", tablet.first_token.value(), tablet.last_token.value());\n",
    ),
    // A label before the error of what failed.
    (
        "src/client.rs",
        "match refresh() {\n    Ok(t) => use_it(t),\n    Err(e) => {\n        warn!(\"failed to refresh OAuth token: {}\", e);\n    }\n}\n",
    ),
    // A demonstration printing to its own user what that user typed.
    (
        "examples/read_password.rs",
        "fn main() {\n    let passwd = rl.readline(\"Password:\")?;\n    println!(\"Secret is {passwd}\");\n}\n",
    ),
    (
        "pkg/prompt.py",
        "if __name__ == \"__main__\":\n    password = Prompt.ask(\"password\", password=True)\n    print(f\"password={password!r}\")\n",
    ),
    // A quiet handler whose author says why.
    (
        "app/daemon.py",
        "def stop(self):\n    try:\n        os.remove(self.pidfile)\n    except OSError as e:\n        # Best effort: a stale PID file is harmless.\n        logger.debug(\"Failed to remove PID file %s: %s\", self.pidfile, e)\n",
    ),
    // A compound named for its last word: a server, a handle, a mode, not the secret.
    (
        "trino/auth.py",
        "logger.debug(f\"nextURi auth token server: {token_server}\")\n",
    ),
    (
        "src/cert.rs",
        "error!(private_key_handle = handle.0, \"Cannot acquire certificate private key handle\");\n",
    ),
    (
        "okta/validator.py",
        "logger.warning(\"mode is '%s'\", config[\"authorizationMode\"])\n",
    ),
    // A label before a resource's locator, and ACME's public key authorization.
    (
        "certbot/auth.py",
        "logger.debug('Failed to deactivate authorization %s: %s', authzr.uri, e)\n",
    ),
    (
        "acme/challenges.py",
        "logger.debug(\"Key authorization (%r) is not well formed\", self.key_authorization)\n",
    ),
    // A token bucket's tokens are permits.
    (
        "src/retries/bucket.rs",
        "struct TokenBucket;\nfn f(bucket: &TokenBucket) {\n    let calc_fractional_tokens = bucket.fraction();\n    error!(\"Fractional tokens corrupted to: {}\", calc_fractional_tokens);\n}\n",
    ),
    // Whether a token is set, and a password shown as stars of its length.
    (
        "exchangelib/credentials.py",
        "log.debug(\"%s auth token for %s\", \"Refreshing\" if self.access_token else \"Setting\", self.client_id)\n",
    ),
    (
        "sshtunnel.py",
        "logger.debug('Trying to log in with password: {0}'.format('*' * len(self.ssh_password)))\n",
    ),
    // A debug line adding the details of a failure just told at warning.
    (
        "plugins/webroot.py",
        "try:\n    chown(path)\nexcept OSError as exception:\n    logger.warning(\"Unable to change owner of webroot directory\")\n    logger.debug(\"Error was: %s\", exception)\n",
    ),
    // Another method tried in turn after the peer refused this one.
    (
        "transport/ssh.py",
        "try:\n    sess.userauth_agent(user)\n    return\nexcept AuthenticationDenied:\n    self.logger.debug(\"Agent authentication failed for user %s\", user)\n",
    ),
];

/// The true forms beside each near miss: (path, code, rule, line).
const STILL_REPORTED: &[(&str, &str, &str, u32)] = &[
    // A key held as text is a key.
    (
        "src/client.rs",
        "struct Cli {\n    private_key: String,\n}\nfn f(cli: &Cli) {\n    info!(\"key {:?}\", cli.private_key);\n}\n",
        SENSITIVE,
        5,
    ),
    // A card number is personal data even as a number.
    (
        "app/pay.py",
        "log.info('charged card=%d', card_number)\n",
        SENSITIVE,
        1,
    ),
    // A session's token is no ring position.
    (
        "app/auth.py",
        "log.info(\"Issuing token %s to client %s\", access_token, client_id)\n",
        SENSITIVE,
        1,
    ),
    // A token named for being a server's is a token; a token shown by a conditional is shown.
    (
        "app/peer.py",
        "log.info(\"peer %s\", server_token)\n",
        SENSITIVE,
        1,
    ),
    (
        "app/session.py",
        "log.debug(\"using %s\", self.access_token if fresh else None)\n",
        SENSITIVE,
        1,
    ),
    // A label before a value that is no error.
    (
        "src/oauth.rs",
        "fn f(t: &str) {\n    warn!(\"refreshed OAuth token: {}\", t);\n}\n",
        SENSITIVE,
        2,
    ),
    // A library printing a secret, and an example logging one (the log is no output).
    (
        "pkg/auth.py",
        "def login(user, password):\n    print(\"password =\", password)\n",
        SENSITIVE,
        2,
    ),
    (
        "examples/sftp_server.rs",
        "fn auth(user: &str, password: &str) {\n    info!(\"credentials: {user}, {password}\");\n}\n",
        SENSITIVE,
        2,
    ),
    // A comment that says the handling is still owed explains nothing.
    (
        "app/files.py",
        "try:\n    os.chmod(path, mode)\nexcept OSError as e:\n    # TODO: tell the user\n    log.debug(\"chmod failed: %s\", e)\n",
        CAUGHT,
        5,
    ),
];

forms::near_misses_and_true_forms!(QUIET, STILL_REPORTED);
