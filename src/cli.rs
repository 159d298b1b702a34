//! The command line: `kustom build`, `kustom version`, and the hidden
//! `kustom builtin-plugin` through which the shipped builtin plugin runs.

use crate::build::{Builder, LoadRestrictor};
use crate::output::{self, Reorder};
use crate::plugins::{exec::Limits, Settings};
use clap::{Parser, Subcommand};
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
#[command(name = "kustom", version, about)]
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
    Build(BuildArgs),
    /// Print the version.
    Version,
    /// List, locate and install plugins.
    #[command(subcommand)]
    Plugin(crate::plugin_cmd::PluginCommand),
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
    let cli = Cli::parse();
    init_logging(cli.verbose);
    match cli.command {
        Command::Version => {
            println!(
                "kustom {} (kustomize {KUSTOMIZE_VERSION} compatible)",
                env!("CARGO_PKG_VERSION")
            );
            0
        }
        Command::BuiltinPlugin { subcommand } => kustom_builtin::run(vec![subcommand]),
        Command::Plugin(cmd) => {
            let result = plugin_settings().and_then(|settings| {
                crate::plugin_cmd::run(&cmd, &settings, &mut std::io::stdout().lock())
            });
            match result {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("Error: {e}");
                    1
                }
            }
        }
        Command::Build(args) => match build(&args) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("Error: {e}");
                1
            }
        },
    }
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
        legacy_home: crate::plugins::legacy::plugin_home(),
        exec_env: args.env.clone(),
        enable_helm: args.enable_helm,
        helm_command: args.helm_command.clone(),
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
        let dir = args.dir.canonicalize().unwrap_or_else(|_| args.dir.clone());
        resources = builder.settings.transform(
            &[label],
            resources,
            &dir,
            &dir.join("kustomization.yaml"),
            false,
        )?;
    }
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "sorted");
    match &args.output {
        Some(path) => crate::write_output::write(&resources, &built.top, path),
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
        legacy_home: crate::plugins::legacy::plugin_home(),
        exec_env: Vec::new(),
        enable_helm: false,
        helm_command: "helm".into(),
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
