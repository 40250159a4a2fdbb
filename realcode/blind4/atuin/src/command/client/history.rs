use std::fmt::{self, Display};
use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::time::Duration;

use atuin_client::database::{Sqlite, current_context};
use atuin_client::history::store::HistoryStore;
use atuin_client::history::{AuthorKind, History, HistoryId, probe_author};
#[cfg(feature = "sync")]
use atuin_client::record;
use atuin_client::record::sqlite_store::SqliteStore;
use atuin_client::settings::FilterMode::{Directory, Global, Session};
use atuin_client::settings::Settings;
use atuin_common::encryption::paseto_v4;
use atuin_common::logs::LogConfig;
use atuin_common::string::{EscapeNonPrintablePosixExt as _, NonNulStr};
use atuin_common::time::{DurationExt, OffsetDateTimeExt, UtcOffsetSpec};
use atuin_common::utils::normalize_optional_string;
use atuin_common::{userio, utils};
#[cfg(feature = "daemon")]
use atuin_daemon::grpc::history::pb::{
    TailHistoryReply, tail_history_reply::Event as TailEventProto,
};
use atuin_domain::record::CmdOrigin;
#[cfg(feature = "octavo")]
use atuin_octavo::hub::{HubCallError, HubClient};
#[cfg(feature = "octavo")]
use atuin_octavo::pb;
#[cfg(feature = "octavo")]
use atuin_octavo::queue::UploadQueue;
use clap::Subcommand;
#[cfg(feature = "daemon")]
use colored::Colorize;
use eyre::{Context, Result, bail};
use runtime_format::{FormatKey, FormatKeyError, ParseSegment, ParsedFmt};
#[cfg(feature = "daemon")]
use serde::Serialize;
use time::OffsetDateTime;
use tracing::{debug, instrument, warn};

#[cfg(feature = "daemon")]
use super::daemon;
use crate::i18n::fl;

#[derive(Subcommand, Debug)]
#[command(infer_subcommands = true)]
pub enum Cmd {
    #[command(about = fl!("cmd-history-start"))]
    Start {
        #[arg(long = "command-from-env", hide = true, help = fl!("arg-history-start-cmd-env"))]
        cmd_env: bool,

        #[arg(long, help = fl!("arg-history-start-author"))]
        author: Option<String>,

        #[arg(
            long,
            value_enum,
            help = fl!("arg-history-start-author-kind"),
            long_help = fl!("arg-history-start-author-kind", "long")
        )]
        author_kind: Option<AuthorKind>,

        #[arg(long, help = fl!("arg-history-start-intent"))]
        intent: Option<String>,

        command: Vec<String>,

        #[arg(long, hide = true, help = fl!("arg-history-hook"))]
        hook: bool,
    },

    #[command(about = fl!("cmd-history-end"))]
    End {
        id: HistoryId,
        #[arg(long, short)]
        exit: i64,
        #[arg(long, short)]
        duration: Option<u64>,

        #[arg(long, hide = true, help = fl!("arg-history-hook"))]
        hook: bool,
    },

    #[command(about = fl!("cmd-history-tail"))]
    Tail,

    #[command(about = fl!("cmd-history-list"))]
    List {
        #[arg(long, short)]
        cwd: bool,

        #[arg(long, short)]
        session: bool,

        #[arg(long)]
        human: bool,

        #[arg(long, help = fl!("arg-cmd-only"))]
        cmd_only: bool,

        #[arg(long, help = fl!("arg-print0"))]
        print0: bool,

        #[arg(long, short, default_value = "true")]
        // accept no value
        #[arg(num_args(0..=1), default_missing_value("true"))]
        // accept a value
        #[arg(action = clap::ArgAction::Set)]
        reverse: bool,

        #[arg(
            long,
            visible_alias = "tz",
            help = fl!("arg-history-timezone"),
            long_help = fl!("arg-history-timezone", "long")
        )]
        timezone: Option<UtcOffsetSpec>,

        #[arg(
            long,
            short,
            help = fl!("arg-history-list-format"),
            long_help = fl!("arg-history-list-format", "long")
        )]
        format: Option<String>,
    },

    #[command(about = fl!("cmd-history-last"))]
    Last {
        #[arg(long)]
        human: bool,

        #[arg(long, help = fl!("arg-cmd-only"))]
        cmd_only: bool,

        #[arg(
            long,
            visible_alias = "tz",
            help = fl!("arg-history-timezone"),
            long_help = fl!("arg-history-timezone", "long")
        )]
        timezone: Option<UtcOffsetSpec>,

        #[arg(
            long,
            short,
            help = fl!("arg-history-last-format"),
            long_help = fl!("arg-history-last-format", "long")
        )]
        format: Option<String>,
    },

    InitStore,

    #[command(about = fl!("cmd-history-prune"))]
    Prune {
        #[arg(short = 'n', long, help = fl!("arg-history-dry-run"))]
        dry_run: bool,
    },

    #[command(about = fl!("cmd-history-dedup"))]
    Dedup {
        #[arg(short = 'n', long, help = fl!("arg-history-dry-run"))]
        dry_run: bool,

        #[arg(long, short, help = fl!("arg-history-dedup-before"))]
        before: String,

        #[arg(long, help = fl!("arg-history-dedup-dupkeep"))]
        dupkeep: u32,
    },
}

#[derive(Clone, Copy, Debug)]
pub enum ListMode {
    Human,
    CmdOnly,
    Regular,
}

impl ListMode {
    pub const fn from_flags(human: bool, cmd_only: bool) -> Self {
        if human {
            ListMode::Human
        } else if cmd_only {
            ListMode::CmdOnly
        } else {
            ListMode::Regular
        }
    }
}

#[instrument(level = "trace", skip_all, fields(count = h.len()))]
pub fn print_list(
    h: &[History],
    list_mode: ListMode,
    format: Option<&str>,
    print0: bool,
    reverse: bool,
    tz: UtcOffsetSpec,
) {
    let w = std::io::stdout();
    let mut w = w.lock();

    let fmt_str = match list_mode {
        ListMode::Human => format.unwrap_or("{time} · {duration}\t{command}").replace("\\t", "\t"),
        ListMode::Regular => format.unwrap_or("{time}\t{command}\t{duration}").replace("\\t", "\t"),
        // not used
        ListMode::CmdOnly => String::new(),
    };

    let parsed_fmt = match list_mode {
        ListMode::Human | ListMode::Regular => parse_fmt(&fmt_str),
        ListMode::CmdOnly => std::iter::once(ParseSegment::Key("command")).collect(),
    };

    let iterator = if reverse {
        Box::new(h.iter().rev()) as Box<dyn Iterator<Item = &History>>
    } else {
        Box::new(h.iter()) as Box<dyn Iterator<Item = &History>>
    };

    let entry_terminator = if print0 {
        "\0"
    } else {
        "\n"
    };
    let flush_each_line = print0;

    for history in iterator {
        let fh = FmtHistory {
            history,
            cmd_format: CmdFormat::for_output(&w),
            tz: &tz,
        };
        let args = parsed_fmt.with_args(&fh);

        // Check for formatting errors before attempting to write
        if let Err(err) = args.status() {
            userio::log::error!("history-output-failed", error = err.to_string());
            std::process::exit(1);
        }

        let write_result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            write!(w, "{args}{entry_terminator}")
        }));

        match write_result {
            Ok(Ok(())) => {
                // Write succeeded
            }
            Ok(Err(err)) => {
                if err.kind() != io::ErrorKind::BrokenPipe {
                    userio::log::error!("history-output-write-failed", error = err.to_string());
                    std::process::exit(1);
                }
            }
            Err(_) => {
                userio::log::error!("history-format-error");
                userio::log::info!("history-format-error-special-chars");
                userio::log::info!("history-format-error-check-syntax");
                std::process::exit(1);
            }
        }
        if flush_each_line {
            check_for_write_errors(w.flush());
        }
    }

    if !flush_each_line {
        check_for_write_errors(w.flush());
    }
}

fn check_for_write_errors(write: Result<(), io::Error>) {
    if let Err(err) = write {
        // Ignore broken pipe (issue #626)
        if err.kind() != io::ErrorKind::BrokenPipe {
            userio::log::error!("history-output-error", error = err.to_string());
            std::process::exit(1);
        }
    }
}

/// Type wrapper around `History` with formatting settings.
#[derive(Clone, Copy, Debug)]
struct FmtHistory<'a> {
    history: &'a History,
    cmd_format: CmdFormat,
    tz: &'a UtcOffsetSpec,
}

#[derive(Clone, Copy, Debug)]
enum CmdFormat {
    Literal,
    Escaped,
}
impl CmdFormat {
    fn for_output<O: IsTerminal>(out: &O) -> Self {
        if out.is_terminal() {
            Self::Escaped
        } else {
            Self::Literal
        }
    }
}

/// defines how to format the history
impl FormatKey for FmtHistory<'_> {
    fn fmt(&self, key: &str, f: &mut fmt::Formatter<'_>) -> Result<(), FormatKeyError> {
        match key {
            "command" => match self.cmd_format {
                CmdFormat::Literal => f.write_str(self.history.command.trim()),
                CmdFormat::Escaped => {
                    f.write_str(&self.history.command.trim().escape_non_printable())
                }
            }?,
            "directory" => f.write_str(self.history.cwd.trim())?,
            "exit" => f.write_str(&self.history.exit.to_string())?,
            "duration" => {
                let dur = Duration::saturating_from_nanos_i64(self.history.duration);
                write!(f, "{}", dur.display().largest_unit())?;
            }
            "time" => {
                self.history.timestamp.to_offset(self.tz.0).display().ymd_hms().fmt(f)?;
            }
            "relativetime" => {
                let d = OffsetDateTime::now_utc().saturating_duration_since(self.history.timestamp);
                write!(f, "{}", d.display().largest_unit())?;
            }
            "host" => f.write_str(self.history.cmd_origin.host().into_inner())?,
            "author" => f.write_str(&self.history.author)?,
            "intent" => f.write_str(self.history.intent.as_deref().unwrap_or_default())?,
            "user" => f.write_str(self.history.cmd_origin.user().into_inner())?,
            "session" => f.write_str(&self.history.session)?,
            "uuid" => write!(f, "{}", self.history.id)?,
            _ => return Err(FormatKeyError::UnknownKey),
        }
        Ok(())
    }
}

fn parse_fmt(format: &str) -> ParsedFmt<'_> {
    match ParsedFmt::new(format) {
        Ok(fmt) => fmt,
        Err(err) => {
            userio::log::error!("history-format-parse-failed", error = err.to_string());

            if format.contains('"') && (format.contains(":{") || format.contains(",{")) {
                userio::log::info!("history-format-json-hint");
                userio::log::info!("history-format-json-escape");
                userio::log::info!("history-format-json-example");
            } else {
                userio::log::info!("history-format-braces-hint");
                userio::log::info!("history-format-braces-example");
            }
            std::process::exit(1)
        }
    }
}

fn normalize_command_for_storage<'a>(command: &'a str, settings: &Settings) -> &'a str {
    if !settings.strip_trailing_whitespace {
        return command;
    }

    let trimmed = command.trim_end_matches([' ', '\t']);
    if trimmed.len() == command.len() {
        return command;
    }

    let trailing_backslashes =
        trimmed.as_bytes().iter().rev().take_while(|&&byte| byte == b'\\').count();

    if trailing_backslashes % 2 == 1 {
        command
    } else {
        trimmed
    }
}

fn make_starting_history(
    settings: &Settings,
    command: &str,
    author: Option<&str>,
    author_kind: Option<AuthorKind>,
    intent: Option<&str>,
) -> Option<History> {
    // It's better for atuin to silently fail here and attempt to
    // store whatever is ran, than to throw an error to the terminal
    let cwd = utils::get_current_dir();
    let command = normalize_command_for_storage(command, settings);

    // A command containing a NUL byte could never have been executed by a shell
    // (argv entries are C strings), so it can only come from a broken caller such
    // as an agent hook. Drop it rather than committing garbage to history.
    if let Err(err) = NonNulStr::new(command) {
        debug!("dropping command containing a NUL byte at index {}", err.index);
        return None;
    }

    // When the flags didn't state an identity, fall back to the one the invoking integration
    // exported to the environment. The env kind only qualifies a stated author: a stray
    // ATUIN_HISTORY_AUTHOR_KIND inherited by a nested interactive shell must not stamp the
    // human's own commands.
    let author = normalize_optional_string(author.map(String::from)).or_else(probe_author);
    let author_kind =
        author_kind.or_else(|| author.is_some().then(AuthorKind::probe_current).flatten());

    let h: History = History::capture()
        .timestamp(OffsetDateTime::now_utc())
        .command(command)
        .cwd(cwd.to_string_lossy().into_owned())
        .author_opt(author)
        .author_kind_opt(author_kind)
        .intent_opt(intent.map(String::from))
        .shell_opt(atuin_common::env::var("ATUIN_SHELL").ok())
        .build()
        .into();

    h.should_save(settings).then_some(h)
}

#[instrument(level = "trace", skip_all)]
async fn handle_start(db: &Sqlite, h: &History) {
    // Silently ignore database errors to avoid breaking the shell
    // This is important when disk is full or database is locked
    if let Err(e) = db.save(h).await {
        debug!("failed to save history: {e}");
    }
}

#[cfg(feature = "daemon")]
#[instrument(level = "trace", skip_all, err)]
async fn handle_daemon_start(settings: &Settings, h: History) -> Result<HistoryId> {
    daemon::start_history(settings, h).await
}

#[allow(unused_variables)]
#[instrument(level = "trace", skip_all, fields(id = %id, exit, duration = ?duration), err)]
async fn handle_end(
    db: &Sqlite,
    store: SqliteStore,
    history_store: HistoryStore,
    settings: &Arc<Settings>,
    id: HistoryId,
    exit: i64,
    duration: Option<u64>,
) -> Result<()> {
    let Some(mut h) = db.load(id).await? else {
        warn!("history entry is missing");
        return Ok(());
    };

    if h.duration > 0 {
        debug!("cannot end history - already has duration");

        // returning OK as this can occur if someone Ctrl-c a prompt
        return Ok(());
    }

    if !settings.store_failed && exit > 0 {
        debug!("history has non-zero exit code, and store_failed is false");

        // the history has already been inserted half complete. remove it
        db.delete(h).await?;

        return Ok(());
    }

    h.exit = exit;
    h.duration = match duration {
        Some(value) => i64::try_from(value).context("command took over 292 years")?,
        None => i64::try_from((OffsetDateTime::now_utc() - h.timestamp).whole_nanoseconds())
            .context("command took over 292 years")?,
    };

    db.update(&h).await?;
    history_store.push(h).await?;

    if settings.should_sync().await? {
        #[cfg(feature = "sync")]
        {
            let session = record::sync::SyncSession::builder()
                .store(store.clone())
                .client_source(record::sync::ClientSource::FromSettings {
                    settings,
                    caps: None,
                })
                .build()
                .connect()
                .await?;
            let (_, downloaded) = session.keyed(&history_store.encryption_key).sync().await?;
            settings.save_sync_time().await?;

            crate::sync::build(settings, &store, db, Some(&downloaded)).await?;
        }
        #[cfg(not(feature = "sync"))]
        debug!("not compiled with sync support");
    } else {
        debug!("sync disabled! not syncing");
    }

    Ok(())
}

#[cfg(feature = "daemon")]
#[instrument(level = "trace", skip_all, fields(id = %id, exit, duration = ?duration), err)]
async fn handle_daemon_end(
    settings: &Settings,
    id: HistoryId,
    exit: i64,
    duration: Option<u64>,
) -> Result<()> {
    if !settings.store_failed && exit > 0 {
        debug!("history has non-zero exit code, and store_failed is false");
        daemon::cancel_history(settings, id).await?;
    } else {
        let duration = duration.map(Duration::from_nanos);
        daemon::end_history(settings, id, duration, exit).await?;
    }

    Ok(())
}

#[instrument(level = "trace", skip_all, err)]
pub(super) async fn start_history_entry(
    settings: &Settings,
    command: &str,
    author: Option<&str>,
    author_kind: Option<AuthorKind>,
    intent: Option<&str>,
) -> Result<Option<HistoryId>> {
    let Some(h) = make_starting_history(settings, command, author, author_kind, intent) else {
        return Ok(None);
    };

    // If the daemon can't take the command (e.g. it isn't running and couldn't be started), save it
    // locally rather than dropping it; `history end` falls back to the local database to match.
    #[cfg(feature = "daemon")]
    if settings.daemon.enabled {
        match handle_daemon_start(settings, h.clone()).await {
            Ok(id) => return Ok(Some(id)),
            Err(e) => {
                userio::log::warn!("history-start-daemon-failed", error = format!("{e:#}"));
            }
        }
    }

    let db_path = &settings.db_path;
    let db = Sqlite::new(db_path, settings.local_timeout).await?;
    handle_start(&db, &h).await;

    Ok(Some(h.id))
}

#[instrument(level = "trace", skip_all, fields(id = %id, exit, duration = ?duration), err)]
pub(super) async fn end_history_entry(
    settings: &Arc<Settings>,
    id: HistoryId,
    exit: i64,
    duration: Option<u64>,
) -> Result<()> {
    // If the daemon can't end the command, it may have been saved locally by `history start` falling
    // back when the daemon wasn't running, so finish it locally too.
    #[cfg(feature = "daemon")]
    if settings.daemon.enabled {
        match handle_daemon_end(settings, id, exit, duration).await {
            Ok(()) => return Ok(()),
            Err(e) => {
                userio::log::warn!("history-end-daemon-failed", error = format!("{e:#}"));
            }
        }
    }

    let db_path = &settings.db_path;
    let record_store_path = &settings.record_store_path;

    let db = Sqlite::new(db_path, settings.local_timeout).await?;
    let store = SqliteStore::new(record_store_path, settings.local_timeout).await?;

    let encryption_key = paseto_v4::Key::try_load_or_generate(&settings.key_path)
        .context("could not load or generate encryption key")?;
    let host_id = settings.host_id().await?;
    let history_store = HistoryStore::new(store.clone(), host_id, encryption_key);

    handle_end(&db, store, history_store, settings, id, exit, duration).await
}

/// Delete history entries, routing through the daemon when it owns the store.
///
/// When `daemon.enabled`, the daemon performs the deletion and updates its in-memory search index,
/// and its errors propagate: we deliberately do not delete locally instead, since that would leave a
/// running daemon serving a stale index. Otherwise we delete directly via the record store and
/// rebuild the affected rows locally.
#[cfg_attr(not(feature = "daemon"), allow(unused_variables))]
pub(super) async fn delete_history_entries(
    settings: &Settings,
    history_store: &HistoryStore,
    db: &Sqlite,
    entries: impl IntoIterator<Item = History>,
) -> Result<()> {
    #[cfg(feature = "daemon")]
    if settings.daemon.enabled {
        let ids: Vec<HistoryId> = entries.into_iter().map(|h| h.id).collect();
        daemon::delete_history(settings, ids).await?;
        return Ok(());
    }

    let entries: Vec<History> = entries.into_iter().collect();
    #[cfg(feature = "octavo")]
    let history_ids: Vec<HistoryId> = entries.iter().map(|h| h.id).collect();

    let ids = history_store.delete_entries(entries).await?;
    history_store.build_all(db, &ids).await?;

    #[cfg(feature = "octavo")]
    queue_octavo_deletions(settings, history_ids).await;
    Ok(())
}

/// Queues the deletion of `ids` from Octavo, for the daemon to send once it runs, if Octavo was
/// ever on here.
#[cfg(feature = "octavo")]
async fn queue_octavo_deletions(settings: &Settings, ids: Vec<HistoryId>) {
    let path = settings.octavo_queue_path();
    if !path.exists() {
        return;
    }

    let login = async { HubClient::new(settings)?.login(settings).await };
    let login = match login.await {
        Ok(login) => login,
        Err(HubCallError::NotLoggedIn) => return,
        Err(err) => {
            userio::log::warn!(
                "history-octavo-login-failed",
                error = format!("{:#}", eyre::Report::new(err))
            );
            return;
        }
    };

    // Octavo never stored an entry whose id isn't a UUIDv7.
    let stored = ids.into_iter().filter(|&id| pb::UuidV7::try_from(id).is_ok());
    let queued =
        async { UploadQueue::open(path).await?.push_deletions(login.user_id(), stored).await };
    if let Err(err) = queued.await {
        userio::log::warn!(
            "history-octavo-queue-failed",
            error = format!("{:#}", eyre::Report::new(err))
        );
    }
}

#[cfg(feature = "daemon")]
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum TailKind {
    Started,
    Ended,
    Cancelled,
}

#[cfg(feature = "daemon")]
#[derive(Clone, Debug, Eq, PartialEq)]
struct TailEvent {
    kind: TailKind,
    history: History,
}

#[cfg(feature = "daemon")]
#[derive(Serialize)]
struct TailJsonEvent<'a> {
    event: &'static str,
    history: TailJsonHistory<'a>,
}

#[cfg(feature = "daemon")]
#[derive(Serialize)]
struct TailJsonHistory<'a> {
    id: HistoryId,
    timestamp: String,
    timestamp_unix_ns: u64,
    command: &'a str,
    cwd: &'a str,
    session: &'a str,
    hostname: &'a str,
    host: &'a str,
    user: &'a str,
    author: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    intent: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exit: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ns: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    success: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    finished_at: Option<String>,
}

#[cfg(feature = "daemon")]
impl TailEvent {
    fn from_proto(reply: TailHistoryReply) -> Result<Self> {
        let (kind, history) = match reply.event {
            Some(TailEventProto::Started(history)) => (TailKind::Started, history),
            Some(TailEventProto::Ended(history)) => (TailKind::Ended, history),
            Some(TailEventProto::Cancelled(history)) => (TailKind::Cancelled, history),
            Some(TailEventProto::Lagged(_)) => {
                bail!("daemon sent a lag notice as a history event")
            }
            None => bail!("daemon sent an unspecified history tail event"),
        };
        let timestamp = OffsetDateTime::from_unix_nanos_i64(history.timestamp);
        let author_kind = history.author_kind();

        Ok(Self {
            kind,
            history: History {
                id: history
                    .id
                    .ok_or_else(|| eyre::eyre!("daemon tail event is missing the history id"))?
                    .try_into()?,
                timestamp,
                duration: history.duration,
                exit: history.exit,
                command: history.command,
                cwd: history.cwd,
                session: history.session,
                #[allow(deprecated)]
                cmd_origin: CmdOrigin::parse_lenient(history.hostname),
                author: history.author,
                intent: normalize_optional_string(history.intent),
                shell: normalize_optional_string(history.shell),
                deleted_at: None,
                author_kind: author_kind.into(),
            },
        })
    }

    fn render(&self, tty: bool, tz: UtcOffsetSpec) -> Result<String> {
        if tty {
            Ok(self.render_pretty(tz))
        } else {
            let mut json = self.render_json(tz)?;
            json.push('\n');
            Ok(json)
        }
    }

    fn render_json(&self, tz: UtcOffsetSpec) -> Result<String> {
        let payload = TailJsonEvent {
            event: self.kind.as_str(),
            history: TailJsonHistory {
                id: self.history.id,
                timestamp: self.history.timestamp.to_offset(tz.0).display().ymd_hms().to_string(),
                timestamp_unix_ns: u64::try_from(self.history.timestamp.unix_timestamp_nanos())
                    .context("history timestamp predates unix epoch")?,
                command: &self.history.command,
                cwd: &self.history.cwd,
                session: &self.history.session,
                hostname: self.history.cmd_origin.as_str(),
                host: self.host(),
                user: self.user(),
                author: &self.history.author,
                intent: self.history.intent.as_deref(),
                exit: self.exit_value(),
                duration_ns: self.duration_value(),
                duration: self.duration_value().map(|d| {
                    Duration::saturating_from_nanos_i64(d).display().largest_unit().to_string()
                }),
                success: self.success_value(),
                finished_at: self
                    .finished_at()
                    .map(|time| time.to_offset(tz.0).display().ymd_hms().to_string()),
            },
        };

        Ok(serde_json::to_string(&payload)?)
    }

    fn render_pretty(&self, tz: UtcOffsetSpec) -> String {
        let mut out = String::new();
        let border = match self.kind {
            TailKind::Started => "-".repeat(72).bright_blue().to_string(),
            TailKind::Ended if self.history.exit == 0 => "-".repeat(72).bright_green().to_string(),
            TailKind::Ended => "-".repeat(72).bright_red().to_string(),
            TailKind::Cancelled => "-".repeat(72).bright_yellow().to_string(),
        };

        out.push_str(&border);
        out.push('\n');

        let command = self.history.command.trim();
        let escaped_command = command.escape_non_printable();
        let mut command_lines = escaped_command.lines();
        let header = format!(
            "{} {}",
            self.kind.badge(self.history.exit),
            command_lines.next().unwrap_or_default().bold()
        );
        out.push_str(&header);
        out.push('\n');

        for line in command_lines {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }

        push_pretty_field(
            &mut out,
            "start",
            &self.history.timestamp.to_offset(tz.0).display().ymd_hms().to_string(),
        );
        push_pretty_field(&mut out, "history", &self.history.id.to_string());
        push_pretty_field(&mut out, "session", &self.history.session);
        push_pretty_field(&mut out, "exit", &self.exit_display());
        push_pretty_field(&mut out, "duration", &self.duration_display());

        out.push('\n');

        push_pretty_field(&mut out, "cwd", &self.history.cwd);
        push_pretty_field(&mut out, "hostname", self.history.cmd_origin.as_str());
        push_pretty_field(&mut out, "host", self.host());
        push_pretty_field(&mut out, "user", self.user());
        push_pretty_field(&mut out, "author", &self.history.author);

        if let Some(intent) = self.history.intent.as_deref() {
            push_pretty_field(&mut out, "intent", intent);
        }

        if let Some(finished) = self.finished_at() {
            let finished = finished.to_offset(tz.0).display().ymd_hms().to_string();
            push_pretty_field(&mut out, "finished", &finished);
        }

        out.push_str(&border);
        out.push_str("\n\n");
        out
    }

    fn host(&self) -> &str {
        self.history.cmd_origin.host().into_inner()
    }

    fn user(&self) -> &str {
        self.history.cmd_origin.user().into_inner()
    }

    fn exit_value(&self) -> Option<i64> {
        matches!(self.kind, TailKind::Ended).then_some(self.history.exit)
    }

    fn duration_value(&self) -> Option<i64> {
        matches!(self.kind, TailKind::Ended).then_some(self.history.duration)
    }

    fn success_value(&self) -> Option<bool> {
        matches!(self.kind, TailKind::Ended).then_some(self.history.exit == 0)
    }

    fn finished_at(&self) -> Option<OffsetDateTime> {
        self.duration_value()
            .filter(|duration| *duration >= 0)
            .map(time::Duration::nanoseconds)
            .and_then(|duration| self.history.timestamp.checked_add(duration))
    }

    fn exit_display(&self) -> String {
        match self.exit_value() {
            Some(0) => "0 (success)".bright_green().to_string(),
            Some(code) => format!("{code} (failure)").bright_red().to_string(),
            None => "pending".bright_yellow().to_string(),
        }
    }

    fn duration_display(&self) -> String {
        match self.duration_value() {
            Some(duration) if duration >= 0 => {
                Duration::saturating_from_nanos_i64(duration).display().largest_unit().to_string()
            }
            Some(_) => "unknown".bright_yellow().to_string(),
            None => "running".bright_yellow().to_string(),
        }
    }
}

#[cfg(feature = "daemon")]
impl TailKind {
    const fn as_str(self) -> &'static str {
        match self {
            Self::Started => "started",
            Self::Ended => "ended",
            Self::Cancelled => "cancelled",
        }
    }

    fn badge(self, exit: i64) -> colored::ColoredString {
        match self {
            Self::Started => "STARTED".bold().bright_blue(),
            Self::Ended if exit == 0 => "ENDED".bold().bright_green(),
            Self::Ended => "ENDED".bold().bright_red(),
            Self::Cancelled => "CANCELLED".bold().bright_yellow(),
        }
    }
}

#[cfg(feature = "daemon")]
fn push_pretty_field(out: &mut String, label: &str, value: &str) {
    out.push_str("  ");
    let label = format!("{label}:");
    out.push_str(&label.bright_cyan().bold().to_string());
    if label.len() < 10 {
        out.push_str(&" ".repeat(10 - label.len()));
    }

    let mut lines = value.lines();
    if let Some(first) = lines.next() {
        out.push_str(first);
    }
    out.push('\n');

    for line in lines {
        out.push_str("             ");
        out.push_str(line);
        out.push('\n');
    }
}

impl Cmd {
    #[cfg(feature = "daemon")]
    #[instrument(level = "trace", skip_all, err)]
    async fn handle_tail(settings: &Settings) -> Result<()> {
        let tty = std::io::stdout().is_terminal();
        let mut client = daemon::ready_client(settings).await?;
        let mut stream = client.tail_history().await?;
        let stdout = std::io::stdout();

        while let Some(reply) = stream.message().await? {
            if let Some(TailEventProto::Lagged(lagged)) = &reply.event {
                userio::log::warn!("history-tail-lagged", dropped = lagged.dropped);
                continue;
            }

            let event = TailEvent::from_proto(reply)?;
            let rendered = event.render(tty, settings.timezone)?;
            let mut out = stdout.lock();

            match out.write_all(rendered.as_bytes()) {
                Ok(()) => out.flush()?,
                Err(err) if err.kind() == io::ErrorKind::BrokenPipe => break,
                Err(err) => return Err(err.into()),
            }
        }

        Ok(())
    }

    #[allow(clippy::too_many_lines)]
    #[allow(clippy::too_many_arguments)]
    #[allow(clippy::fn_params_excessive_bools)]
    #[instrument(level = "trace", skip_all, err)]
    async fn handle_list(
        db: &Sqlite,
        settings: &Settings,
        context: atuin_client::database::Context,
        session: bool,
        cwd: bool,
        mode: ListMode,
        format: Option<String>,
        include_deleted: bool,
        print0: bool,
        reverse: bool,
        tz: UtcOffsetSpec,
    ) -> Result<()> {
        let filters = match (session, cwd) {
            (true, true) => [Session, Directory],
            (true, false) => [Session, Global],
            (false, true) => [Global, Directory],
            (false, false) => [settings.default_filter_mode(context.git_root.is_some()), Global],
        };

        let history = db.list(filters, &context, None, false, include_deleted, None).await?;

        print_list(
            &history,
            mode,
            match format {
                None => Some(settings.history_format.as_str()),
                _ => format.as_deref(),
            },
            print0,
            reverse,
            tz,
        );

        Ok(())
    }

    #[instrument(level = "trace", skip_all, fields(dry_run), err)]
    async fn handle_prune(
        db: &Sqlite,
        settings: &Settings,
        store: SqliteStore,
        context: atuin_client::database::Context,
        dry_run: bool,
    ) -> Result<()> {
        // Grab all executed commands and filter them using History::should_save.
        // We could iterate or paginate here if memory usage becomes an issue.
        let matches: Vec<History> = db
            .list([Global], &context, None, false, false, None)
            .await?
            .into_iter()
            .filter(|h| !h.should_save(settings))
            .collect();

        if matches.is_empty() {
            userio::log::info!("history-prune-none");
            return Ok(());
        }
        userio::log::info!("history-prune-found", count = matches.len());

        if dry_run {
            print_list(
                &matches,
                ListMode::Human,
                Some(settings.history_format.as_str()),
                false,
                false,
                settings.timezone,
            );
        } else {
            let encryption_key = paseto_v4::Key::try_load_or_generate(&settings.key_path)
                .context("could not load or generate encryption key")?;
            let host_id = settings.host_id().await?;
            let history_store = HistoryStore::new(store.clone(), host_id, encryption_key);

            for entry in &matches {
                userio::log::info!("history-deleting", id = entry.id.to_string());
            }

            delete_history_entries(settings, &history_store, db, matches).await?;
        }
        Ok(())
    }

    #[instrument(level = "trace", skip_all, fields(dry_run, dupkeep), err)]
    async fn handle_dedup(
        db: &Sqlite,
        settings: &Settings,
        store: SqliteStore,
        before: i64,
        dupkeep: u32,
        dry_run: bool,
    ) -> Result<()> {
        if dupkeep == 0 {
            userio::log::error!("history-dedup-keep-zero");
            std::process::exit(1);
        }

        let matches: Vec<History> = db.get_dups(before, dupkeep).await?;

        if matches.is_empty() {
            userio::log::info!("history-dedup-none");
            return Ok(());
        }
        userio::log::info!("history-dedup-found", count = matches.len());

        if dry_run {
            print_list(
                &matches,
                ListMode::Human,
                Some(settings.history_format.as_str()),
                false,
                false,
                settings.timezone,
            );
        } else {
            let encryption_key = paseto_v4::Key::try_load_or_generate(&settings.key_path)
                .context("could not load or generate encryption key")?;
            let host_id = settings.host_id().await?;
            let history_store = HistoryStore::new(store.clone(), host_id, encryption_key);

            for entry in &matches {
                userio::log::info!("history-deleting", id = entry.id.to_string());
            }

            delete_history_entries(settings, &history_store, db, matches).await?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_lines)]
    #[instrument(level = "trace", skip_all, err)]
    pub async fn run(self, settings: &Arc<Settings>) -> Result<()> {
        match self {
            Self::Start {
                cmd_env,
                author,
                author_kind,
                intent,
                command,
                ..
            } => {
                let command = if cmd_env {
                    atuin_common::env::var("ATUIN_COMMAND_LINE").unwrap_or_default()
                } else {
                    command.join(" ")
                };

                if let Some(id) = start_history_entry(
                    settings,
                    &command,
                    author.as_deref(),
                    author_kind,
                    intent.as_deref(),
                )
                .await?
                {
                    println!("{id}");
                }

                Ok(())
            }
            Self::End {
                id, exit, duration, ..
            } => end_history_entry(settings, id, exit, duration).await,
            Self::Tail => {
                #[cfg(feature = "daemon")]
                {
                    return Self::handle_tail(settings).await;
                }

                #[cfg(not(feature = "daemon"))]
                bail!("`atuin history tail` requires Atuin to be built with the `daemon` feature");
            }
            cmd => {
                let context = current_context(settings).await?;

                let db_path = &settings.db_path;
                let record_store_path = &settings.record_store_path;

                let db = Sqlite::new(db_path, settings.local_timeout).await?;
                let store = SqliteStore::new(record_store_path, settings.local_timeout).await?;

                let encryption_key = paseto_v4::Key::try_load_or_generate(&settings.key_path)
                    .context("could not load or generate encryption key")?;

                let host_id = settings.host_id().await?;
                let history_store = HistoryStore::new(store.clone(), host_id, encryption_key);

                match cmd {
                    Self::List {
                        session,
                        cwd,
                        human,
                        cmd_only,
                        print0,
                        reverse,
                        timezone,
                        format,
                    } => {
                        let mode = ListMode::from_flags(human, cmd_only);
                        let tz = timezone.unwrap_or(settings.timezone);
                        Self::handle_list(
                            &db, settings, context, session, cwd, mode, format, false, print0,
                            reverse, tz,
                        )
                        .await
                    }

                    Self::Last {
                        human,
                        cmd_only,
                        timezone,
                        format,
                    } => {
                        let last = db.last().await?;
                        let last = last.as_slice();
                        let tz = timezone.unwrap_or(settings.timezone);
                        print_list(
                            last,
                            ListMode::from_flags(human, cmd_only),
                            match format {
                                None => Some(settings.history_format.as_str()),
                                _ => format.as_deref(),
                            },
                            false,
                            true,
                            tz,
                        );

                        Ok(())
                    }

                    Self::InitStore => history_store.init_store(&db, settings).await,

                    Self::Prune { dry_run } => {
                        Self::handle_prune(&db, settings, store, context, dry_run).await
                    }

                    Self::Dedup {
                        dry_run,
                        before,
                        dupkeep,
                    } => {
                        let before = i64::try_from(
                            interim::parse_date_string(
                                before.as_str(),
                                OffsetDateTime::now_utc().to_offset(settings.timezone.0),
                                settings.dialect.into(),
                            )?
                            .unix_timestamp_nanos(),
                        )?;
                        Self::handle_dedup(&db, settings, store, before, dupkeep, dry_run).await
                    }

                    Self::Start { .. } | Self::End { .. } | Self::Tail => unreachable!(),
                }
            }
        }
    }

    /// Whether a shell hook ran the command.
    pub const fn is_hook(&self) -> bool {
        matches!(self, Self::Start { hook: true, .. } | Self::End { hook: true, .. })
    }

    pub fn log_config(&self) -> Option<LogConfig> {
        // History commands invoked from shell hooks are performance-sensitive, so we want to skip
        // any unnecessary initialization.
        (!self.is_hook()).then(LogConfig::stderr_only)
    }
}

#[cfg(test)]
mod tests {
    use rstest::{fixture, rstest};
    #[cfg(feature = "daemon")]
    use time::macros::datetime;

    use super::*;

    #[fixture]
    async fn db() -> Sqlite {
        Sqlite::in_memory(Duration::from_secs(2)).await.unwrap()
    }

    #[fixture]
    fn settings() -> Settings {
        Settings::utc()
    }

    #[rstest]
    fn utc_settings_strip_trailing_whitespace_by_default() {
        assert!(Settings::utc().strip_trailing_whitespace);
    }

    #[rstest]
    #[case::strips_spaces_and_tabs("ls   \t", "ls")]
    #[case::preserves_single_escaped_trailing_space("printf foo\\ ", "printf foo\\ ")]
    #[case::even_backslashes_still_trim("printf foo\\\\ ", "printf foo\\\\")]
    fn normalize_command_cases(settings: Settings, #[case] input: &str, #[case] expected: &str) {
        assert_eq!(normalize_command_for_storage(input, &settings), expected);
    }

    #[rstest]
    #[case::strips_by_default(true, "ls")]
    #[case::keeps_when_disabled(false, "ls   \t")]
    #[tokio::test]
    async fn handle_start_respects_strip_setting(
        #[future] db: Sqlite,
        #[case] strip: bool,
        #[case] expected: &str,
    ) {
        let db = db.await;
        let settings = Settings {
            strip_trailing_whitespace: strip,
            ..Settings::utc()
        };

        let h = make_starting_history(&settings, "ls   \t", None, None, None).unwrap();
        handle_start(&db, &h).await;

        let history = db
            .before(OffsetDateTime::now_utc() + time::Duration::SECOND, 1)
            .await
            .unwrap()
            .pop()
            .unwrap();
        assert_eq!(history.command, expected);
    }

    #[rstest]
    fn make_starting_history_drops_command_with_nul_byte(settings: Settings) {
        // A command containing a NUL byte can never have been executed by a shell;
        // it should be dropped rather than committed to history.
        assert!(make_starting_history(&settings, "hello\0world", None, None, None).is_none());
    }

    #[rstest]
    #[case::malformed_named_placeholder(r#"{"command":"{command}","key":"value"}"#)]
    #[case::single_command("{command}")]
    #[case::time_and_command("{time} - {command}")]
    fn parse_fmt_never_panics(#[case] fmt: &str) {
        // Don't panic but provide helpful output (issue #2776)
        assert!(std::panic::catch_unwind(|| parse_fmt(fmt)).is_ok());
    }

    #[cfg(feature = "daemon")]
    #[fixture]
    fn tail_event(#[default(TailKind::Ended)] kind: TailKind) -> TailEvent {
        TailEvent {
            kind,
            history: History {
                id: "018f011c-9a0a-7000-8000-000000000001".parse().unwrap(),
                timestamp: datetime!(2026-04-09 17:18:19 UTC),
                duration: 12_345_678,
                exit: 0,
                command: "git status".to_owned(),
                cwd: "/tmp/repo".to_owned(),
                session: "session-id".to_owned(),
                cmd_origin: CmdOrigin::try_from("host:ellie").unwrap(),
                author: "claude".to_owned(),
                intent: Some("inspect repository state".to_owned()),
                deleted_at: None,
                shell: Some("zsh".into()),
                author_kind: Some(AuthorKind::Agent),
            },
        }
    }

    #[cfg(feature = "daemon")]
    #[rstest]
    fn test_tail_json_output_contains_history_fields(tail_event: TailEvent) {
        let json = tail_event.render(false, UtcOffsetSpec(time::UtcOffset::UTC)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();

        assert_eq!(value["event"], "ended");
        assert_eq!(value["history"]["id"], "018f011c9a0a70008000000000000001");
        assert_eq!(value["history"]["duration_ns"], 12_345_678);
        assert_eq!(value["history"]["success"], true);
        assert!(value.get("record").is_none());
    }

    #[cfg(feature = "daemon")]
    #[rstest]
    fn test_tail_pretty_output_shows_pending_fields_for_started_events(
        #[with(TailKind::Started)] tail_event: TailEvent,
    ) {
        let rendered = tail_event.render(true, UtcOffsetSpec(time::UtcOffset::UTC)).unwrap();
        let plain = regex::Regex::new(r"\x1b\[[0-9;]*m").unwrap().replace_all(&rendered, "");

        assert!(plain.contains("STARTED git status"));
        assert!(plain.contains("exit:"));
        assert!(plain.contains("pending"));
        assert!(plain.contains("duration:"));
        assert!(plain.contains("running"));
    }

    /// With the daemon enabled, a delete is the daemon's job: if it cannot be reached the command
    /// fails loudly and nothing is deleted behind its back (a running daemon would otherwise serve
    /// a stale index). With the daemon disabled, the CLI deletes locally.
    #[cfg(feature = "daemon")]
    #[rstest]
    #[case::daemon_enabled_but_unreachable(true, true, 2)]
    #[case::daemon_disabled(false, false, 0)]
    #[tokio::test]
    async fn delete_routes_through_the_daemon_only_when_enabled(
        #[future] db: Sqlite,
        #[case] daemon_enabled: bool,
        #[case] expect_error: bool,
        #[case] rows_left: i64,
    ) {
        use atuin_client::record::sqlite_store::SqliteStore;
        use atuin_common::path::AbsPathBuf;
        use atuin_common::utils::uuid_v7;
        use atuin_domain::record::HostId;

        let db = db.await;
        let tmp = tempfile::tempdir().unwrap();
        let store = SqliteStore::in_memory(Duration::from_secs(2)).await.unwrap();
        let history_store = HistoryStore::new(store, HostId(uuid_v7()), paseto_v4::Key::generate());
        let mut settings = Settings::utc();
        settings.daemon.enabled = daemon_enabled;
        settings.daemon.autostart = false;
        settings.daemon.socket_path = AbsPathBuf::new(tmp.path().join("no-daemon-here.sock")).ok();
        let entries: Vec<History> = ["echo one", "echo two"]
            .into_iter()
            .map(|cmd| {
                History::capture()
                    .timestamp(time::OffsetDateTime::now_utc())
                    .command(cmd)
                    .cwd("/")
                    .build()
                    .into()
            })
            .collect();
        for entry in &entries {
            db.save(entry).await.unwrap();
        }

        let result = delete_history_entries(&settings, &history_store, &db, entries).await;

        assert_eq!(result.is_err(), expect_error, "{result:?}");
        assert_eq!(db.history_count(false).await.unwrap(), rows_left);
    }
}
