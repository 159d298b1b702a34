//! The command line: `kustom build`, `edit`, `create`, `version`,
//! `completion`, `plugin`, and the hidden `kustom builtin-plugin` through
//! which the shipped builtin plugin runs. Invoked as `kustomize` (a symlink
//! or copy), it answers to kustomize's name.

pub mod build;
pub mod build_settings;
pub mod cache;
pub mod create;
pub mod diff;
pub mod edit;
pub mod localize;
pub mod lock;
pub mod plugin;
pub mod policy;
pub mod render;
pub mod sandbox_args;
pub mod stdout;
pub mod version;

use crate::plugin_host::exec::fork_server;
use clap::{CommandFactory, Parser, Subcommand};
use kustom_api::Error;

/// kustom: `kustomize build` as an exec-plugin host.
#[derive(Parser, Debug)]
#[command(
    name = "kustom",
    version = version::SEMVER_STATIC,
    about,
    after_help = "Examples:\n  kustom build overlays/prod\n  kustom edit set image nginx=nginx:1.27\n  kustom create --autodetect\n  kustom version --short"
)]
pub struct Cli {
    /// Options of every command.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options of every command.
#[derive(clap::Args, Debug)]
pub struct GlobalArgs {
    /// Log what happens (-v: debug, -vv: trace); RUST_LOG works too.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Say nothing on STDERR but warnings and errors (no "Fetching …" lines).
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Build a kustomization directory and print the resulting YAML.
    #[command(
        after_help = "Examples:\n  kustom build overlays/prod\n  kustom build --enable-helm --helm-kube-version 1.30 .\n  kustom build -o out/ ."
    )]
    Build(build_settings::BuildArgs),
    /// Build many roots in one process, each into OUTDIR/ROOT (one file per resource).
    #[command(
        after_help = "Examples:\n  kustom render -o out/ apps/web/overlays/prod apps/api/overlays/prod\n  kustom render -o out/ --roots roots.txt --shard 1/4\n  kustom render -o out/            # every root below the current directory"
    )]
    Render(render::RenderArgs),
    /// Show what a change does to the rendered manifests of every root (exit 0 same, 1 differs, 2 error).
    #[command(
        after_help = "Examples:\n  kustom diff                                   # work tree against HEAD\n  kustom diff --base origin/main --head HEAD --format markdown > comment.md\n  kustom diff --base origin/main --explain\n  kustom diff --base origin/main --format json --shard 2/4 > shard-2.json\n  kustom diff --merge shard-*.json --format markdown"
    )]
    Diff(diff::DiffArgs),
    /// Edits a kustomization file.
    #[command(
        subcommand,
        after_help = "Examples:\n  kustom edit add configmap NAME --from-literal=k=v\n  kustom edit set nameprefix <prefix-value>\n  kustom edit set namesuffix <suffix-value>"
    )]
    Edit(edit::EditCommand),
    /// Create a new kustomization in the current directory.
    #[command(alias = "init")]
    Create(create::CreateArgs),
    /// Prints the kustomize version kustom is compatible with, and kustom's.
    Version(version::VersionArgs),
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
    Plugin(plugin::PluginCommand),
    /// Grant plugins more than the sandbox allows, or show what they may do.
    #[command(
        subcommand,
        after_help = "Examples:\n  kustom policy allow 'KEP sops.example.com' --read ~/.config/sops/age/keys.txt --env SOPS_AGE_KEY_FILE\n  kustom policy show"
    )]
    Policy(policy::PolicyCommand),
    /// Pin the sha256 of every plugin a build runs (and its remotes) in DIR/kustom.lock.
    #[command(
        after_help = "Examples:\n  kustom lock overlays/prod\n  kustom lock --enable-alpha-plugins --enable-exec .\n  kustom build --locked overlays/prod"
    )]
    Lock(lock::LockArgs),
    /// Copy a kustomization and everything it references (remote included) into a new directory.
    #[command(
        after_help = "Examples:\n  kustom localize overlays/prod vendored/\n  kustom localize https://github.com/org/repo//deploy?ref=v1.2.0 deploy-v1.2.0"
    )]
    Localize(localize::LocalizeArgs),
    /// The remote cache: `dir` prints where it is, `prune` empties it.
    #[command(
        subcommand,
        after_help = "Examples:\n  kustom cache dir\n  kustom cache prune --older-than-days 30"
    )]
    Cache(cache::CacheCommand),
    /// Run the shipped builtin plugin (`generate` or `transform`), as the core does.
    #[command(name = "builtin-plugin", hide = true)]
    BuiltinPlugin {
        /// generate | transform
        subcommand: String,
    },
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
    if args.len() >= 3 && args[1] == crate::plugin_host::container::SUPERVISE_SUBCOMMAND {
        return crate::plugin_host::container::supervise(&args[2..]);
    }
    // TERM, INT and HUP end every child first (see crate::processes).
    crate::processes::signals::install();
    // Commands that build fork the builtin's server now, while the process
    // is single-threaded and small (see plugin_host::exec::fork_server).
    if builds_plugins(&args) {
        fork_server::start(init_plugin_logging);
        // The core only (see crate::allocator).
        crate::allocator::keep_freed_pages();
    }
    let cli = parse_args(&args);
    init_logging(cli.global.verbose);
    crate::fetch::progress::set_quiet(cli.global.quiet);
    match cli.command {
        Command::Version(args) => report(version::run(&args)),
        Command::Edit(cmd) => report(edit::run(&cmd)),
        Command::Create(args) => report(create::run(&args)),
        Command::Completion { shell } => {
            let mut cmd = Cli::command();
            let name = invoked_name();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, name, &mut script);
            report(stdout::print_bytes(&script))
        }
        Command::BuiltinPlugin { subcommand } => kustom_builtin::run(vec![subcommand]),
        Command::Plugin(cmd) => {
            // Written whole at the end, so that a closed pipe is seen as one.
            let mut listing = Vec::new();
            let result = build_settings::plugin_settings()
                .and_then(|settings| plugin::run(&cmd, &settings, &mut listing))
                .and_then(|()| stdout::print_bytes(&listing));
            report_as_is(result)
        }
        Command::Cache(cmd) => report_as_is(cache::run(&cmd)),
        Command::Localize(args) => report_as_is(localize::run_cli(&args)),
        Command::Lock(args) => report_as_is(lock::run(&args)),
        Command::Policy(cmd) => report_as_is(policy::run(&cmd)),
        Command::Build(args) => report_as_is(build::run(&args)),
        Command::Render(args) => report_as_is(render::run(&args)),
        Command::Diff(args) => diff::run(&args),
    }
}

/// Parse the command line; invoked as `kustomize`, help and examples use
/// that name and the description is kustomize's.
fn parse_args(args: &[std::ffi::OsString]) -> Cli {
    use clap::FromArgMatches;
    if let Some(cli) = parse_plain_build(args).or_else(|| parse_build_quickly(args)) {
        return cli;
    }
    let mut cmd = Cli::command();
    if invoked_name() == "kustomize" {
        cmd = as_kustomize(cmd.name("kustomize"))
            .about("Manages declarative configuration of Kubernetes (kustom, drop-in for kustomize v5.8.1, or v5.5.0 with --kustomize-version 5.5)");
    }
    let matches = cmd.get_matches_from(args);
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// `kustom build …` parsed with a tree of the global options and `build`
/// alone: clap building the whole tree (every `edit` subcommand) costs more
/// than a small build. The same definitions, so the same result; `None`
/// when the command is not `build` or the quick parse fails or asks for
/// help, so that the whole tree gives clap's usual messages.
fn parse_build_quickly(args: &[std::ffi::OsString]) -> Option<Cli> {
    use clap::{Args, FromArgMatches};
    if command_word(args)? != "build" {
        return None;
    }
    let cmd = GlobalArgs::augment_args(clap::Command::new("kustom")).subcommand(
        build_settings::BuildArgs::augment_args(clap::Command::new("build")),
    );
    let matches = cmd.try_get_matches_from(args).ok()?;
    let (_, sub) = matches.subcommand()?;
    Some(Cli {
        global: GlobalArgs::from_arg_matches(&matches).ok()?,
        command: Command::Build(build_settings::BuildArgs::from_arg_matches(sub).ok()?),
    })
}

/// `kustom build [DIR]` without flags, as GitOps tools and scripts call
/// it, read without clap: clap's first parse in a process runs much cold
/// code (1 ms of the tiny overlay's build, which ends 0.15 ms sooner
/// without it). Anything else goes to clap; the tests hold this to clap's
/// result.
fn parse_plain_build(args: &[std::ffi::OsString]) -> Option<Cli> {
    let [_, command, rest @ ..] = args else {
        return None;
    };
    if command != "build" {
        return None;
    }
    let dir = match rest {
        [] => std::path::PathBuf::from("."),
        [dir] if !dir.is_empty() && !dir.as_encoded_bytes().starts_with(b"-") => dir.into(),
        _ => return None,
    };
    Some(Cli {
        global: GlobalArgs {
            verbose: 0,
            quiet: false,
        },
        command: Command::Build(build_settings::BuildArgs {
            dir,
            output: None,
            flags: build_settings::BuildFlags::default(),
        }),
    })
}

/// The command tree with `kustom` in examples spelled `kustomize`.
fn as_kustomize(cmd: clap::Command) -> clap::Command {
    let cmd = match cmd.get_after_help() {
        Some(h) => {
            // Examples, and the file names of completion scripts (fish loads
            // `kustomize.fish` for `kustomize`, zsh `_kustomize`).
            let text = h
                .to_string()
                .replace("  kustom ", "  kustomize ")
                .replace("  source <(kustom ", "  source <(kustomize ")
                .replace("/_kustom\"", "/_kustomize\"")
                .replace("/kustom.fish", "/kustomize.fish");
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

/// Print an error with its message as it is (`Error: …`); the exit code.
fn report_as_is(result: Result<(), Error>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error: {e}");
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

/// Whether the command is `build`, `render` or `diff` (after the global
/// `-v`/`-q`): a look at the raw arguments before clap parses them. A wrong
/// guess costs only speed (the builtin is exec'd instead).
fn builds_plugins(args: &[std::ffi::OsString]) -> bool {
    command_word(args)
        .is_some_and(|command| ["build", "render", "diff"].iter().any(|c| command == c))
}

/// The subcommand's name: the first argument that is not an option (the
/// global options `-v` and `-q` take no value).
fn command_word(args: &[std::ffi::OsString]) -> Option<&std::ffi::OsString> {
    args.iter()
        .skip(1)
        .find(|a| !a.as_encoded_bytes().starts_with(b"-"))
}

/// Logging in a builtin process the fork server starts: as the exec'd
/// builtin does it (only when `RUST_LOG` asks).
fn init_plugin_logging() {
    if std::env::var_os("RUST_LOG").is_some() {
        init_logging(0);
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::FromArgMatches;

    /// What clap itself makes of `args`, with the whole command tree.
    fn by_clap(args: &[&str]) -> String {
        let matches = Cli::command().get_matches_from(args);
        format!("{:?}", Cli::from_arg_matches(&matches).expect("parses"))
    }

    #[test]
    fn a_plain_build_reads_as_clap_reads_it() {
        for args in [
            &["kustom", "build"][..],
            &["kustom", "build", "overlays/prod"],
            &["kustom", "build", "a dir with spaces"],
            &["kustom", "build", "help"],
        ] {
            let os: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
            let plain = parse_plain_build(&os).expect("a plain build");
            assert_eq!(format!("{plain:?}"), by_clap(args), "{args:?}");
        }
    }

    #[test]
    fn anything_else_is_left_to_clap() {
        for args in [
            &["kustom"][..],
            &["kustom", "build", "-v"],
            &["kustom", "build", "--enable-helm", "."],
            &["kustom", "build", ".", "-o", "out"],
            &["kustom", "build", "a", "b"],
            &["kustom", "build", ""],
            &["kustom", "-v", "build", "."],
            &["kustom", "render", "."],
        ] {
            let os: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
            assert!(parse_plain_build(&os).is_none(), "{args:?}");
        }
    }
}
