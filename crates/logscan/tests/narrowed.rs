//! The rules narrowed to fewer and surer findings: a name is a secret by its last word, a
//! container by a credential stored as a value, a library's print by its debugging marks or
//! its own names as labels, a context-free line by what travels with it. Each near miss must
//! stay silent, and the true form beside it must still be reported.

mod common;
mod forms;

const SENSITIVE: &str = "sensitive-data-in-logs";
const PRINT: &str = "print-debugging";
const CONTEXT: &str = "log-without-context";

/// Code every rule must leave alone: (path, code).
const QUIET: &[(&str, &str)] = &[
    // Compounds named for another last word, and a collection of tokens.
    (
        "api/security.py",
        "def check(token_scopes, secret_arn, api_key_source, grant_tokens):\n    log.info(\"scopes %s arn %s source %s grants %s\", token_scopes, secret_arn, api_key_source, grant_tokens)\n",
    ),
    // A container looked into by a key shows the item, named by the key.
    (
        "api/keys.py",
        "def found(api_key, token):\n    LOG.debug(\"Found Api Key '%s'\", api_key[\"id\"])\n    log.debug(\"eauth %r\", token.get(\"eauth\"))\n",
    ),
    // A constant stored under a secret's key masks it; a token stored is not followed.
    (
        "cache/mysql.py",
        "def setup(kwargs, lock, token):\n    copy = kwargs.copy()\n    copy[\"passwd\"] = \"<hidden>\"\n    log.info(\"params: %r\", copy)\n    lock[\"token\"] = token\n    log.debug(\"lock %s\", lock)\n",
    ),
    // A label the value's own name answers for; a label saying the secret is missing.
    (
        "oic/message.py",
        "def verify(logout_token, userinfo):\n    logger.info(\"Verified Logout Token: {}\".format(logout_token.to_dict()))\n    log.error(\"userinfo does not have username or email %s\", userinfo)\n",
    ),
    // Values the message calls descriptors, and tokens that are handles.
    (
        "src/central.rs",
        "fn check(authorization: Status, acquire_token: u32) {\n    warn!(\"Authorization status {:?}\", authorization);\n    debug!(\"release {}\", acquire_token);\n}\n",
    ),
    // A library's print of a sentence, of a key looked up, or under an output switch.
    (
        "salt/client.py",
        "def run(self, jid, verbose, k):\n    print(\"Pulling\", k[\"reference\"])\n    print(k[\"pool\"])\n    if verbose:\n        print(f\"jid: {jid}\")\n",
    ),
    // A logger's own console, switched by its level.
    (
        "stripe/util.py",
        "def log_debug(msg):\n    if _console_log_level() == \"debug\":\n        print(msg, file=sys.stderr)\n",
    ),
    // A TODO above a print about something else; a module whose job is the terminal.
    (
        "src/init/nu.rs",
        "pub fn init() {\n    // TODO: tmux popup for Nu\n    println!(\"{}\", NU);\n}\n",
    ),
    (
        "django_q/monitor_terminal.py",
        "def draw(term, width):\n    print(term.move(0, 0) + term.center(\"Host\", width=width))\n",
    ),
    // A Go method whose job is printing.
    (
        "ldap/search.go",
        "package ldap\n\nfunc (e *Entry) PrettyPrint(indent int) {\n\tfmt.Printf(\"%sDN: %s\\n\", strings.Repeat(\" \", indent), e.DN)\n}\n",
    ),
    // A context-free line before the error is raised or returned, or logged with it.
    (
        "salt/network.py",
        "def ss():\n    try:\n        out = run(cmd)\n    except CalledProcessError:\n        log.error(\"Failed ss\")\n        raise\n",
    ),
    (
        "src/attestation.rs",
        "fn verify(ok: bool) -> Result<(), Error> {\n    if !ok {\n        error!(\"signature verification failed!\");\n        return Err(Error::Signature);\n    }\n    Ok(())\n}\n",
    ),
    // A message naming a path or a thing of the code, outside a handler.
    (
        "zephyr/mirror.py",
        "def load():\n    logger.error(\"Couldn't find ~/.zephyr.subs!\")\n    logger.warning(\"Unexpected event did_read_rssi\")\n",
    ),
];

/// The true forms beside them: (path, code, rule, line).
const STILL_REPORTED: &[(&str, &str, &str, u32)] = &[
    // A name ending in the secret's word.
    (
        "auth/reset.java",
        "class R {\n  void f() {\n    log.info(\"Reset token {}\", resetToken);\n  }\n}\n",
        SENSITIVE,
        3,
    ),
    // A credential stored as a value, then the container logged whole.
    (
        "app/client.py",
        "def send(secret):\n    headers = {}\n    headers[\"Authorization\"] = \"Bearer \" + secret\n    log.debug(\"headers %s\", headers)\n",
        SENSITIVE,
        4,
    ),
    // A label before the secret itself.
    (
        "app/login.py",
        "def login(user, pw):\n    log.info(\"password %s\", pw)\n",
        SENSITIVE,
        2,
    ),
    // A print labelled by its own name among few words, and one under a debug switch.
    (
        "src/config.rs",
        "fn load(error: Error) {\n    eprintln!(\"config error: {error}\");\n}\n",
        PRINT,
        2,
    ),
    (
        "pymysql/auth.py",
        "def auth(conn):\n    if DEBUG:\n        print(\"sha256: sending plain password\")\n",
        PRINT,
        3,
    ),
    // A TODO above a print saying it is to go.
    (
        "pkg/manage.py",
        "def fetch():\n    # TODO(tech-debt): use a proper logging approach\n    print(type(error), error.reason)\n",
        PRINT,
        3,
    ),
    // In a handler that swallows the error, naming the place is not the missing context.
    (
        "scrapy/engine.py",
        "async def close(self):\n    try:\n        await self._spider_closed_callback()\n    except Exception:\n        logger.error(\"Error running spider_closed_callback\")\n",
        CONTEXT,
        5,
    ),
];

forms::near_misses_and_true_forms!(QUIET, STILL_REPORTED);
