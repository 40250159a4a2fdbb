//! Values that are no one's secret and headlines whose details follow: a message continued
//! across strings, tokens of reservations, slots, devices and versions, a placeholder pair
//! naming a place, a masked store, a kind named by an enumeration, the code's own default for
//! an unset secret, a key inside a size call, a value shadowed or described, the working
//! directory, a print into a file; a context-free line followed in its block by the details or
//! by an error handed on, behind a debug switch, or a banner in capitals; a module of commands.
//! Each near miss must stay silent, and the true form beside it must still be reported.

mod common;
mod forms;

const SENSITIVE: &str = "sensitive-data-in-logs";
const CONTEXT: &str = "log-without-context";

/// Code every rule must leave alone: (path, code).
const QUIET: &[(&str, &str)] = &[
    // A message continued across strings ends in the secret's word; it is no key.
    (
        "irc/sasl.py",
        "def start(mechanism):\n    log.debug('Skipping SASL %s, missing username and/or '\n              'password',\n              mechanism)\n",
    ),
    (
        "lib/client.js",
        "function start(name) {\n  logger.warn(\"missing user or \" + \"password\", name);\n}\n",
    ),
    // Tokens of reservations and slots; a token among counts of tokens.
    (
        "workers/cleanup.py",
        "def deliver(self, payload, slot_token):\n    self._logger.debug(\"Duplicate delivery for reservation %s\", payload.reservation_token)\n    log.debug(\"released %s\", slot_token)\n",
    ),
    (
        "runner/limits.py",
        "def acquire(self):\n    token = uuid4()\n    self._logger.debug(\"Limit slot acquired (token=%s, borrowed=%s/%s)\", token, self.borrowed_tokens, self.total_tokens)\n",
    ),
    // A label before a place named by two placeholders.
    (
        "app/keyring.py",
        "def save(section, key):\n    logger.debug(\"Saving secret %s/%s failed. (Keyring is locked)\", section, key)\n",
    ),
    // A container whose credential was masked where it was stored.
    (
        "session/base.py",
        "def init(self, api_key):\n    params = {}\n    params[\"api_key\"] = \"*\" * 36 + api_key[-4:]\n    self._logger.info(f\"session initialized with {params}\")\n",
    ),
    // A kind named by an enumeration.
    (
        "plugins/notify.py",
        "def setup(self):\n    self.logger.info(f\"The default channel of {Channel.EMAIL} was set.\")\n",
    ),
    // The code's own default for a secret nobody gave.
    (
        "impala/transport.py",
        "def transport(password=None, ldap=False):\n    if password is None:\n        if ldap:\n            password = ''\n        else:\n            password = 'password'\n        log.debug('transport: password=%s', password)\n",
    ),
    // A headline whose details follow in its block, or whose error is handed on.
    (
        "xmpp/adapter.py",
        "def send(self):\n    try:\n        self.client.send()\n    except Exception as e:\n        self.logger.warning(\"XMPP send failed.\")\n        self.logger.debug(\"XMPP Exception: %s\", e)\n        return False\n",
    ),
    (
        "src/raw_client.rs",
        "fn recv(rx: Receiver) -> Result<(), Error> {\n    loop {\n        match rx.recv() {\n            Message::Error(e) => {\n                warn!(\"Received an error\");\n                break Err(Error::Shared(e));\n            }\n        }\n    }\n}\n",
    ),
    (
        "cmd/bank.go",
        "package cmd\n\nfunc check(ok bool) error {\n\tif !ok {\n\t\tlog.Println(\"Test FAILED\")\n\t\treturn fmt.Errorf(\"test failed\")\n\t}\n\treturn nil\n}\n",
    ),
    // A line behind a debug switch is a breadcrumb.
    (
        "relay/listener.go",
        "package relay\n\nfunc accept(certs []Cert) {\n\tif len(certs) != 1 {\n\t\tif debug {\n\t\t\tlog.Println(\"Certificate list error\")\n\t\t}\n\t}\n}\n",
    ),
    // A key looked up inside a size call; an error passed through formatting calls.
    (
        "plugin/idc_auth.py",
        "def fetch(response):\n    _logger.debug(\"Length of IdC accessToken: {}\".format(len(response[\"accessToken\"])))\n    try:\n        go()\n    except Exception as e:\n        _logger.debug(\"An error occurred while trying to obtain an IdC token : {}\".format(str(e)))\n        raise\n",
    ),
    // A value shadowed, described or shown as the working directory.
    (
        "src/activity.rs",
        "fn show(secret: &str) {\n    info!(\"password: {}\", fmt::shadow_password(secret));\n}\n",
    ),
    (
        "mcp/auth.py",
        "def check(access_token, ftp):\n    logger.info(\"Authenticated request: user=%s\", _describe_user(access_token))\n    logger.debug('DIR->{}', ftp.pwd())\n",
    ),
    // Tokens of a device and of a version.
    (
        "push/client.py",
        "def send(device_token, prerelease_token):\n    logger.info(\"Sending to %s\", device_token)\n    log.info(\"prerelease token %s\", prerelease_token)\n",
    ),
    // A container looked into by a key written in an interpolation.
    (
        "llm/client.py",
        "def call(kwargs, key):\n    kwargs[\"api_key\"] = key\n    logger.debug(f\"calling with max_tokens={kwargs['max_tokens']}\")\n",
    ),
    // A print into a file it was given writes data.
    (
        "testbase.py",
        "def write(f, password):\n    print(SETTINGS.format(password=password), file=f)\n",
    ),
    // A banner in capitals; a headline whose next line logs the error's stack.
    (
        "newrelic/config.py",
        "def fail(section):\n    _logger.error(\"CONFIGURATION ERROR\")\n    if section:\n        _logger.error(\"Section = %s\", section)\n",
    ),
    (
        "bin/gyp.js",
        "process.on('uncaughtException', function (err) {\n  log.error('uncaught exception')\n  log.error('stack', err.stack)\n})\n",
    ),
    // A module of commands declared by a command-line framework's decorator.
    (
        "admin/network_config.py",
        "@command(\"network-config\", \"config_file\")\ndef network_config(args):\n    print(\"host = %r\" % settings.host)\n",
    ),
];

/// The true forms beside them: (path, code, rule, line).
const STILL_REPORTED: &[(&str, &str, &str, u32)] = &[
    // A key followed by its value, and a label before the secret's own value.
    (
        "irc/auth.py",
        "def start(pw):\n    log.debug('sasl', 'password', pw)\n",
        SENSITIVE,
        2,
    ),
    (
        "app/keyring.py",
        "def save(value):\n    logger.debug(\"Saving secret %s\", value)\n",
        SENSITIVE,
        2,
    ),
    // After the default's block, the name may hold the secret given.
    (
        "impala/connect.py",
        "def connect(password=None):\n    if password is None:\n        password = ''\n    log.debug('connect: password=%s', password)\n",
        SENSITIVE,
        4,
    ),
    // An enumeration's member as an index names what the item holds.
    (
        "plugins/signal.py",
        "def add(self):\n    self.logger.debug(f\"Detected Email: {self.targets[Category.EMAIL][-1]}\")\n",
        SENSITIVE,
        2,
    ),
    // A container whose credential was stored whole.
    (
        "session/open.py",
        "def init(self, api_key):\n    params = {}\n    params[\"api_key\"] = api_key\n    self._logger.info(f\"session initialized with {params}\")\n",
        SENSITIVE,
        4,
    ),
    // A headline whose next line is another statement's, outside the handler.
    (
        "scrapy/close.py",
        "def close(self, reason):\n    try:\n        self.stats.close()\n    except Exception:\n        logger.error(\"Stats close failure\")\n    logger.info(\"Spider closed (%(reason)s)\", {\"reason\": reason})\n",
        CONTEXT,
        5,
    ),
    // Go returning no error after the line.
    (
        "cmd/sync.go",
        "package cmd\n\nfunc sync(ok bool) error {\n\tif !ok {\n\t\tlog.Println(\"sync failed\")\n\t\treturn nil\n\t}\n\treturn nil\n}\n",
        CONTEXT,
        5,
    ),
    // A key looked up for its value; one word in capitals.
    (
        "plugin/idc_token.py",
        "def fetch(response):\n    _logger.debug(\"IdC token: {}\".format(response[\"accessToken\"]))\n",
        SENSITIVE,
        2,
    ),
    (
        "app/sync.py",
        "def sync():\n    log.error(\"FAILED\")\n",
        CONTEXT,
        2,
    ),
];

forms::near_misses_and_true_forms!(QUIET, STILL_REPORTED);
