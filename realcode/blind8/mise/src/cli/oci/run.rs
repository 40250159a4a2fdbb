use std::path::{Path, PathBuf};
use std::process::Command;

use eyre::{Context, Result, bail};
use tempfile::TempDir;

use crate::cli::oci::common::{mise_binary_path, perform_build};
use crate::config::Settings;
use crate::file;
use crate::oci::{BuildOptions, LayerOwner};

/// [experimental] Build the project's image and run a command in it
///
/// Builds the image as `mise oci build` does, unless `--image-dir` names an
/// existing layout, then loads it into podman or docker and runs the command in
/// a container with stdin, stdout, and stderr attached. podman reads the OCI
/// layout directly; docker receives it through `docker load`.
///
/// Requires `mise settings experimental=true` (or `MISE_EXPERIMENTAL=1`) and
/// podman or docker.
#[derive(Debug, usage_rs::Args)]
#[usage(verbatim_doc_comment,
    example(r###"mise oci run -it -- bash"###, help = r###"Build the project's image and open bash in it"###),
    example(r###"mise oci run -e DEBUG=1 --volume "$PWD:/work" -w /work -- npm test"###, help = r###"Run a one-shot command with an environment variable and a mounted directory"###),
    example(r###"mise oci build -o ./img && mise oci run --image-dir ./img -- node -e 'console.log(process.version)'"###, help = r###"Reuse a layout built earlier instead of building again"###))]
pub(super) struct Run {
    // Long-only flags, kept alphabetical (asserted by
    // `cli::tests::test_subcommands_are_sorted`).
    /// Container engine to use; `auto` prefers podman and falls back to docker
    #[usage(long, default = "auto", value_enum)]
    engine: Engine,

    /// Base image for the build
    ///
    /// Overrides [oci].from and the oci.default_from setting.
    #[usage(long)]
    from: Option<String>,

    /// Use an existing OCI image layout instead of building one
    ///
    /// Cannot be combined with --from, --include-global, --mount-point,
    /// --no-mise, or --owner.
    #[usage(long, value_hint = ValueHint::DirPath, conflicts = &["from", "mount_point", "no_mise", "owner", "include_global"])]
    image_dir: Option<PathBuf>,

    /// Also package tools from the global and system configs
    ///
    /// See `mise oci build --help` for details.
    #[usage(long)]
    include_global: bool,

    /// Keep the loaded image in the engine's storage after the run
    ///
    /// By default, both the container (`--rm`) and the loaded image are
    /// removed when the command exits, so repeated `mise oci run` calls do not
    /// fill podman or docker storage. With `--keep`, the image stays under the
    /// tag mise used (`mise-oci:run-*` for docker, the pulled image ID for
    /// podman).
    #[usage(long)]
    keep: bool,

    /// Where tools install inside the image
    ///
    /// Overrides [oci].mount_point and the oci.default_mount_point setting.
    #[usage(long)]
    mount_point: Option<String>,

    /// Do not embed the running mise binary at /usr/local/bin/mise
    #[usage(long)]
    no_mise: bool,

    /// UID[:GID] to assign to every tar entry when building
    ///
    /// Overrides [oci].user_id and [oci].group_id. Defaults to 0:0. If GID is
    /// omitted, it defaults to UID. This affects file ownership only; [oci].user
    /// controls the image USER directive.
    #[usage(long, value_name = "UID[:GID]")]
    owner: Option<LayerOwner>,

    /// Bind-mount a host path (repeatable, `HOST:CONTAINER[:MODE]`)
    ///
    /// Unlike `docker run`, there is no `-v` short form because mise uses `-v`
    /// for --verbose. Use `--volume` or `--mount`.
    #[usage(long = "volume", alias = "mount", value_name = "HOST:CONTAINER")]
    volume: Vec<String>,

    // Flags that have both a short and a long form.
    /// Set environment variable in the container (repeatable, `KEY=VAL`)
    #[usage(short = 'e', long = "env", value_name = "KEY=VAL")]
    env: Vec<String>,

    /// Run interactively (pass `-i` to the engine)
    #[usage(short, long)]
    interactive: bool,

    /// Allocate a TTY (pass `-t` to the engine)
    #[usage(short, long)]
    tty: bool,

    /// Working directory inside the container
    #[usage(short = 'w', long = "workdir")]
    workdir: Option<String>,

    /// Command and arguments to run inside the container (after `--`)
    #[usage(double_dash = "required")]
    cmd: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, usage_rs::ValueEnum)]
enum Engine {
    Auto,
    Podman,
    Docker,
}

impl Run {
    pub(super) async fn run(self) -> Result<()> {
        Settings::get().ensure_experimental("mise oci run")?;

        // 1. Validate arguments first so bad args win over "engine missing".
        if let Some(d) = &self.image_dir
            && !d.join("index.json").is_file()
        {
            bail!(
                "{}: does not look like an OCI image layout (missing index.json)",
                d.display()
            );
        }

        // 2. Locate a container engine.
        let engine = select_engine(self.engine)?;

        // 3. Build (or reuse an existing layout). When building, keep the
        // `TempDir` alive for the duration of the command — it removes the
        // directory on drop, so partial-gigabyte tool layers don't pile up
        // in /tmp across invocations.
        let (image_dir, _tempdir_guard): (PathBuf, Option<TempDir>) =
            if let Some(d) = &self.image_dir {
                (d.clone(), None)
            } else {
                let td = TempDir::with_prefix("mise-oci-run-")
                    .wrap_err("creating temp dir for oci build output")?;
                let out_dir = td.path().join("image");
                let opts = BuildOptions {
                    out_dir: out_dir.clone(),
                    from: self.from.clone(),
                    tag: Some("mise-oci:run".to_string()),
                    mount_point: self.mount_point.clone(),
                    owner: self.owner,
                    mise_binary: mise_binary_path(self.no_mise),
                    copy: vec![],
                    // The layout is loaded into a local engine, which needs
                    // every blob present — no remote reuse.
                    reuse_from: None,
                    push_destination: None,
                    no_cache: false,
                };
                let built = perform_build(opts, self.include_global).await?;
                info!("built image: {}", built.manifest_digest);
                (out_dir, Some(td))
            };

        // 4. Load into the engine. Returns the image reference to actually
        // pass to `podman run` / `docker run` (podman uses an image ID;
        // docker uses the tag the archive was loaded under).
        let image_ref = load_image(engine, &image_dir)?;

        // 5. docker/podman run <flags> <image-ref> <cmd...>
        let engine_bin = engine_name(engine);
        let mut args: Vec<String> = vec!["run".into()];
        if !self.keep {
            args.push("--rm".into());
        }
        if self.interactive {
            args.push("-i".into());
        }
        if self.tty {
            args.push("-t".into());
        }
        for e in &self.env {
            args.push("-e".into());
            args.push(e.clone());
        }
        for v in &self.volume {
            args.push("-v".into());
            args.push(v.clone());
        }
        if let Some(w) = &self.workdir {
            args.push("-w".into());
            args.push(w.clone());
        }
        args.push(image_ref.clone());
        args.extend(self.cmd.clone());

        let run_result = Command::new(engine_bin)
            .args(&args)
            .status()
            .wrap_err_with(|| format!("exec {engine_bin} {args:?}"));

        // Clean up the loaded image unless the user passed `--keep`.
        // `docker run --rm` / `podman run --rm` only removes the
        // *container*; the image the engine loaded for us stays in local
        // storage and would otherwise accumulate across invocations.
        if !self.keep {
            let rmi = Command::new(engine_bin)
                .args(["rmi", "--force", &image_ref])
                .output();
            match rmi {
                Ok(out) if out.status.success() => {}
                Ok(out) => {
                    // Don't fail the overall command — just note it; a
                    // failing rmi usually means the image is still in use
                    // (e.g. another concurrent run) or was already deleted.
                    let stderr = String::from_utf8_lossy(&out.stderr);
                    debug!("{engine_bin} rmi {image_ref} failed: {stderr}");
                }
                Err(e) => debug!("failed to spawn {engine_bin} rmi: {e}"),
            }
        }

        let status = run_result?;
        if let Some(code) = status.code() {
            if code != 0 {
                return Err(crate::request_exit(code));
            }
        } else if !status.success() {
            bail!("{engine_bin} exited abnormally: {status:?}");
        }
        Ok(())
    }
}

fn select_engine(requested: Engine) -> Result<Engine> {
    match requested {
        Engine::Podman => {
            if file::which("podman").is_some() {
                Ok(Engine::Podman)
            } else {
                bail!("--engine podman requested but `podman` was not found on PATH")
            }
        }
        Engine::Docker => {
            if file::which("docker").is_none() {
                bail!("--engine docker requested but `docker` was not found on PATH");
            }
            Ok(Engine::Docker)
        }
        Engine::Auto => {
            if file::which("podman").is_some() {
                Ok(Engine::Podman)
            } else if file::which("docker").is_some() {
                Ok(Engine::Docker)
            } else {
                bail!("no supported container engine found. Install podman or docker.")
            }
        }
    }
}

fn engine_name(engine: Engine) -> &'static str {
    match engine {
        Engine::Podman => "podman",
        Engine::Docker => "docker",
        Engine::Auto => unreachable!("select_engine resolves Auto to a concrete engine"),
    }
}

/// Load the OCI layout at `image_dir` into the given engine and return the
/// image reference that should be passed to the engine's `run` subcommand.
///
/// We don't rely on `podman tag` here because `podman tag` takes an image
/// name/ID (not a transport reference), and the image name that `podman
/// pull oci:<dir>` assigns depends on the layout's `ref.name` annotation
/// and the podman version. Capturing the image ID printed by
/// `podman pull --quiet` is deterministic across versions.
fn load_image(engine: Engine, image_dir: &Path) -> Result<String> {
    match engine {
        Engine::Podman => {
            let src = format!("oci:{}", image_dir.display());
            let out = Command::new("podman")
                .args(["pull", "--quiet", &src])
                .output()
                .wrap_err("running `podman pull`")?;
            if !out.status.success() {
                let stderr = String::from_utf8_lossy(&out.stderr);
                bail!("podman pull failed: {}: {stderr}", out.status);
            }
            // `podman pull --quiet` prints just the image ID on stdout.
            let id = String::from_utf8(out.stdout)
                .wrap_err("podman pull produced non-utf8 output")?
                .trim()
                .to_string();
            if id.is_empty() {
                bail!("podman pull succeeded but printed no image ID");
            }
            Ok(id)
        }
        Engine::Docker => {
            // Stream the layout into `docker load` as a docker-archive. Pick
            // a per-invocation tag so concurrent `mise oci run` calls don't
            // clobber each other — a shared `mise-oci:run` tag would
            // otherwise race: the second load would overwrite the first
            // image before the first container started.
            let tag = format!(
                "mise-oci:run-{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or(0)
            );
            crate::oci::docker_archive::load_into_docker(image_dir, &tag)?;
            Ok(tag)
        }
        Engine::Auto => unreachable!(),
    }
}
