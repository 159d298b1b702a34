//! The command line: `kustom build`, `edit`, `create`, `version`,
//! `completion`, `plugin`, and the hidden `kustom builtin-plugin` through
//! which the shipped builtin plugin runs. Invoked as `kustomize` (a symlink
//! or copy), it answers to kustomize's name.

pub mod build_settings;
pub mod cache;
pub mod create;
pub mod edit;
pub mod localize;
pub mod lock;
pub mod plugin;
pub mod version;

use crate::operations::build::{Builder, LoadRestrictor};
use crate::operations::output::{self, Reorder};
use crate::plugin_host::{exec::Limits, Settings};
use clap::{CommandFactory, Parser, Subcommand};
use kustom_api::Error;
use std::path::PathBuf;
use std::time::Duration;

/// kustomize's version that kustom reproduces.
pub const KUSTOMIZE_VERSION: &str = "v5.5.0";
/// The version `kubectl kustomize` v5.5.0 writes into the managed-by label:
/// kubectl's embedded kustomize reports itself as `(devel)`.
pub const MANAGED_BY_VERSION: &str = "(devel)";

/// kustom: `kustomize build` as an exec-plugin host.
#[derive(Parser, Debug)]
#[command(
    name = "kustom",
    version = crate::commands::version::SEMVER_STATIC,
    about,
    after_help = "Examples:\n  kustom build overlays/prod\n  kustom edit set image nginx=nginx:1.27\n  kustom create --autodetect\n  kustom version --short"
)]
pub struct Cli {
    /// Log what happens (-v: debug, -vv: trace); RUST_LOG works too.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Build a kustomization directory and print the resulting YAML.
    #[command(
        after_help = "Examples:\n  kustom build overlays/prod\n  kustom build --enable-helm --helm-kube-version 1.30 .\n  kustom build -o out/ ."
    )]
    Build(BuildArgs),
    /// Edits a kustomization file.
    #[command(
        subcommand,
        after_help = "Examples:\n  kustom edit add configmap NAME --from-literal=k=v\n  kustom edit set nameprefix <prefix-value>\n  kustom edit set namesuffix <suffix-value>"
    )]
    Edit(crate::commands::edit::EditCommand),
    /// Create a new kustomization in the current directory.
    #[command(alias = "init")]
    Create(crate::commands::create::CreateArgs),
    /// Prints the kustomize version kustom is compatible with, and kustom's.
    Version(crate::commands::version::VersionArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    #[command(
        after_help = "Examples:\n  source <(kustom completion bash)\n  kustom completion zsh > \"${fpath[1]}/_kustom\"\n  kustom completion fish > ~/.config/fish/completions/kustom.fish"
    )]
    Completion {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// List, locate and install plugins.
    #[command(
        subcommand,
        after_help = "Examples:\n  kustom plugin list\n  kustom plugin which team.example.com/v1 CommonApp\n  kustom plugin install ./team.example.com"
    )]
    Plugin(crate::commands::plugin::PluginCommand),
    /// Pin the sha256 of every plugin a build runs (and its remotes) in DIR/kustom.lock.
    #[command(
        after_help = "Examples:\n  kustom lock overlays/prod\n  kustom lock --enable-alpha-plugins --enable-exec .\n  kustom build --locked overlays/prod"
    )]
    Lock(crate::commands::lock::LockArgs),
    /// Copy a kustomization and everything it references (remote included) into a new directory.
    #[command(
        after_help = "Examples:\n  kustom localize overlays/prod vendored/\n  kustom localize https://github.com/org/repo//deploy?ref=v1.2.0 deploy-v1.2.0"
    )]
    Localize(crate::commands::localize::LocalizeArgs),
    /// The remote cache: `dir` prints where it is, `prune` empties it.
    #[command(
        subcommand,
        after_help = "Examples:\n  kustom cache dir\n  kustom cache prune --older-than-days 30"
    )]
    Cache(crate::commands::cache::CacheCommand),
    /// Run the shipped builtin plugin (`generate` or `transform`), as the core does.
    #[command(name = "builtin-plugin", hide = true)]
    BuiltinPlugin {
        /// generate | transform
        subcommand: String,
    },
}

/// Flags of `kustom build`, as kustomize's.
#[derive(Parser, Debug)]
pub struct BuildArgs {
    /// Directory with a kustomization file.
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Write the output to this file, or one file per resource into this directory.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// LoadRestrictionsRootOnly (default) or LoadRestrictionsNone.
    #[arg(long, default_value = "LoadRestrictionsRootOnly")]
    pub load_restrictor: String,
    /// legacy (kind order) or none (input order).
    #[arg(long)]
    pub reorder: Option<String>,
    /// Allow plugins outside the builtin group.
    #[arg(long)]
    pub enable_alpha_plugins: bool,
    /// Allow KRM exec functions (with --enable-alpha-plugins).
    #[arg(long)]
    pub enable_exec: bool,
    /// Allow helmCharts.
    #[arg(long)]
    pub enable_helm: bool,
    /// The helm executable.
    #[arg(long, default_value = "helm")]
    pub helm_command: String,
    /// Environment variables for exec functions (KEY=VALUE or KEY).
    #[arg(short, long)]
    pub env: Vec<String>,
    /// Add app.kubernetes.io/managed-by to every resource.
    #[arg(long)]
    pub enable_managedby_label: bool,
    /// Seconds a plugin process may run.
    #[arg(long, default_value_t = 60)]
    pub plugin_timeout: u64,
    /// Largest output a plugin may write, in bytes.
    #[arg(long, default_value_t = 256 * 1024 * 1024)]
    pub plugin_max_output: usize,
    /// Fail unless DIR/kustom.lock exists and pins everything the build runs and fetches
    /// (never add to or change it).
    #[arg(long)]
    pub locked: bool,
    /// Plugin confinement, grants and audit.
    #[command(flatten)]
    pub sandbox: crate::plugin_host::sandbox::args::SandboxArgs,
    /// Remote bases and files from the cache only; no network.
    #[arg(long)]
    pub offline: bool,
    /// kustomize's helm and container-function flags.
    #[command(flatten)]
    pub kustomize: crate::commands::build_settings::KustomizeBuildFlags,
    /// Largest expansion of YAML aliases in one document, in bytes.
    #[arg(long)]
    pub max_alias_expansion: Option<usize>,
}

/// Run the CLI; returns the process exit code.
pub fn main() -> i32 {
    // The builtin plugin runs once per plugin call: skip argument parsing
    // and set up logging only when asked, to keep each process start cheap.
    // Arguments as the OS gives them: paths need not be UTF-8.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() == 3 && args[1] == "builtin-plugin" {
        if std::env::var_os("RUST_LOG").is_some() {
            init_logging(0);
        }
        return kustom_builtin::run(vec![args[2].to_string_lossy().into_owned()]);
    }
    let cli = parse_args();
    init_logging(cli.verbose);
    match cli.command {
        Command::Version(args) => report(crate::commands::version::run(&args)),
        Command::Edit(cmd) => report(crate::commands::edit::run(&cmd)),
        Command::Create(args) => report(crate::commands::create::run(&args)),
        Command::Completion { shell } => {
            let mut cmd = Cli::command();
            let name = invoked_name();
            clap_complete::generate(shell, &mut cmd, name, &mut std::io::stdout());
            0
        }
        Command::BuiltinPlugin { subcommand } => kustom_builtin::run(vec![subcommand]),
        Command::Plugin(cmd) => {
            let result = plugin_settings().and_then(|settings| {
                crate::commands::plugin::run(&cmd, &settings, &mut std::io::stdout().lock())
            });
            match result {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("Error: {e}");
                    1
                }
            }
        }
        Command::Cache(cmd) => match crate::commands::cache::run(&cmd) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("Error: {e}");
                1
            }
        },
        Command::Localize(args) => match crate::commands::localize::run_cli(&args) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("Error: {e}");
                1
            }
        },
        Command::Lock(args) => match crate::commands::lock::run(&args) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("Error: {e}");
                1
            }
        },
        Command::Build(args) => match build(&args) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("Error: {e}");
                1
            }
        },
    }
}

/// Parse the command line; invoked as `kustomize`, help and examples use
/// that name and the description is kustomize's.
fn parse_args() -> Cli {
    use clap::FromArgMatches;
    let mut cmd = Cli::command();
    if invoked_name() == "kustomize" {
        cmd = as_kustomize(cmd.name("kustomize"))
            .about("Manages declarative configuration of Kubernetes (kustom, drop-in for kustomize v5.5.0)");
    }
    let matches = cmd.get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// The command tree with `kustom` in examples spelled `kustomize`.
fn as_kustomize(cmd: clap::Command) -> clap::Command {
    let cmd = match cmd.get_after_help() {
        Some(h) => {
            let text = h.to_string().replace("  kustom ", "  kustomize ");
            cmd.after_help(text)
        }
        None => cmd,
    };
    cmd.mut_subcommands(as_kustomize)
}

/// Print an error as kustomize does (`Error: …` on STDERR); the exit code.
fn report(result: Result<(), Error>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error: {}", e.message.trim_end());
            1
        }
    }
}

/// The name kustom was invoked as (`kustomize` through a symlink), for
/// completion scripts.
fn invoked_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .filter(|n| n == "kustomize")
        .unwrap_or_else(|| "kustom".to_string())
}

fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    // Silent by default; building a filter costs more than a small build.
    if verbose == 0 && std::env::var_os("RUST_LOG").is_none() {
        return;
    }
    let filter = match verbose {
        0 => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("off")),
        1 => EnvFilter::new("debug"),
        _ => EnvFilter::new("trace"),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// `kustom build`.
pub fn build(args: &BuildArgs) -> Result<(), Error> {
    build_with(
        args,
        crate::commands::lock::lock_state(&args.dir, args.locked)?,
        true,
    )
}

/// Build with the lock state `lock`; write the output when `write`.
pub fn build_with(
    args: &BuildArgs,
    lock: std::sync::Arc<crate::fetch::lock::LockState>,
    write: bool,
) -> Result<(), Error> {
    if let Some(n) = args.max_alias_expansion {
        // Before any YAML is read; plugin processes inherit it.
        std::env::set_var(kustom_api::yaml::ENV_ALIAS_BUDGET, n.to_string());
    }
    let restrictor = match args.load_restrictor.as_str() {
        "LoadRestrictionsRootOnly" | "rootOnly" => LoadRestrictor::RootOnly,
        "LoadRestrictionsNone" | "none" => LoadRestrictor::None,
        other => {
            return Err(Error::new(format!(
                "--load-restrictor {other:?}: use LoadRestrictionsRootOnly or LoadRestrictionsNone"
            )))
        }
    };
    let reorder = match args.reorder.as_deref() {
        None => Reorder::Unspecified,
        Some("legacy") => Reorder::Legacy,
        Some("none") => Reorder::None,
        Some(other) => {
            return Err(Error::new(format!(
                "--reorder {other:?}: use legacy or none"
            )))
        }
    };
    let settings = Settings {
        config_home: config_home(),
        enable_alpha_plugins: args.enable_alpha_plugins,
        enable_exec: args.enable_exec,
        limits: Limits {
            timeout: Duration::from_secs(args.plugin_timeout),
            max_output: args.plugin_max_output,
        },
        self_exe: std::env::current_exe()
            .map_err(|e| Error::new(format!("cannot locate the kustom executable: {e}")))?,
        load_restrictor: match restrictor {
            LoadRestrictor::RootOnly => "LoadRestrictionsRootOnly",
            LoadRestrictor::None => "LoadRestrictionsNone",
        }
        .to_string(),
        legacy_home: crate::plugin_host::legacy::plugin_home(),
        exec_env: args.env.clone(),
        enable_helm: args.enable_helm,
        helm_command: args.helm_command.clone(),
        sandbox: std::sync::Arc::new(args.sandbox.sandbox(&config_home())?),
        audit: args.sandbox.audit()?,
        digests: Default::default(),
        remote: std::sync::Arc::new(crate::fetch::remote::Fetcher::new(
            crate::fetch::remote::cache::default_dir(),
            args.offline,
            lock.clone(),
        )),
        lock,
        helm_overrides: args.kustomize.helm_overrides(),
    };
    let builder = Builder::new(settings, restrictor);
    let started = std::time::Instant::now();
    let built = builder.build(&args.dir)?;
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "tree built");
    let started = std::time::Instant::now();
    let mut resources = built.resources;
    output::sort(&mut resources, &built.top, reorder)?;
    if args.enable_managedby_label
        || built
            .top
            .build_metadata
            .iter()
            .any(|m| m == "managedByLabel")
    {
        let label = serde_json::json!({
            "apiVersion": "builtin",
            "kind": "LabelTransformer",
            "metadata": {"name": "managedByLabel"},
            "labels": {"app.kubernetes.io/managed-by": format!("kustomize-{MANAGED_BY_VERSION}")},
            "fieldSpecs": [{"path": "metadata/labels", "create": true}],
        });
        let dir = built.dir.clone();
        resources = builder.settings.transform(
            &[label],
            resources,
            &dir,
            &dir.join("kustomization.yaml"),
            false,
        )?;
    }
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "sorted");
    // The lock learns new remotes only after a successful build.
    crate::commands::lock::after_build(&builder.settings.lock)?;
    if !write {
        return Ok(());
    }
    match &args.output {
        Some(path) => crate::operations::write_output::write(&resources, &built.top, path),
        None => {
            let started = std::time::Instant::now();
            let written = output::render_to(&resources, &built.top, &mut std::io::stdout().lock())
                .map_err(|e| Error::new(format!("writing output: {e}")));
            tracing::debug!(ms = started.elapsed().as_millis() as u64, "rendered");
            log_peak_memory();
            written
        }
    }
}

/// Plugin settings of the current environment with `kustom build`'s defaults
/// (for `kustom plugin`).
pub fn plugin_settings() -> Result<Settings, Error> {
    Ok(Settings {
        config_home: config_home(),
        enable_alpha_plugins: false,
        enable_exec: false,
        limits: Limits {
            timeout: Duration::from_secs(60),
            max_output: 256 * 1024 * 1024,
        },
        self_exe: std::env::current_exe()
            .map_err(|e| Error::new(format!("cannot locate the kustom executable: {e}")))?,
        load_restrictor: "LoadRestrictionsRootOnly".into(),
        legacy_home: crate::plugin_host::legacy::plugin_home(),
        exec_env: Vec::new(),
        enable_helm: false,
        helm_command: "helm".into(),
        sandbox: Default::default(),
        lock: Default::default(),
        audit: None,
        digests: Default::default(),
        remote: std::sync::Arc::new(crate::fetch::remote::Fetcher::new(
            crate::fetch::remote::cache::default_dir(),
            false,
            Default::default(),
        )),
        helm_overrides: Default::default(),
    })
}

/// `$XDG_CONFIG_HOME`, else `~/.config`.
pub fn config_home() -> PathBuf {
    match std::env::var_os("XDG_CONFIG_HOME") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => directories::BaseDirs::new()
            .map(|b| b.home_dir().join(".config"))
            .unwrap_or_else(|| PathBuf::from(".config")),
    }
}

/// Log the peak resident memory of the core and of its largest plugin process (`-v`).
fn log_peak_memory() {
    let peak_kib = |who| {
        // SAFETY: getrusage only writes the struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        (unsafe { libc::getrusage(who, &mut u) } == 0).then_some(u.ru_maxrss)
    };
    tracing::debug!(
        core_kib = peak_kib(libc::RUSAGE_SELF),
        largest_plugin_kib = peak_kib(libc::RUSAGE_CHILDREN),
        "peak resident memory"
    );
}
