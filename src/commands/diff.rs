//! `kustom diff`: what a change does to the rendered manifests of every
//! root, between two git revisions; exit 0 same, 1 differs, 2 error.

use super::build_settings::BuildFlags;
use super::render::options;
use crate::fetch::lock::LockState;
use crate::operations::render::roots::{self, Shard};
use crate::operations::review::{self, comment, format, report::Report, Request};
use clap::ValueEnum;
use kustom_api::Error;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A unified YAML diff per resource (coloured on a terminal).
    Text,
    /// A summary table and a section per root, for a pull-request comment.
    Markdown,
    /// For tools (and `--merge`).
    Json,
    /// One self-contained page: the summary and a filterable tree of roots and resources.
    Html,
}

/// Arguments of `kustom diff`.
#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The repository (any directory inside it).
    #[arg(short = 'C', value_name = "REPO", default_value = ".")]
    pub repo: PathBuf,
    /// The revision to compare against.
    #[arg(long, default_value = "HEAD")]
    pub base: String,
    /// The revision to compare (default: the work tree, uncommitted and untracked changes included).
    #[arg(long)]
    pub head: Option<String>,
    /// The roots, one per line, relative to the repository's top (default:
    /// from Argo CD / Flux objects, else every kustomization no other includes).
    #[arg(long = "roots", value_name = "FILE")]
    pub roots_file: Option<PathBuf>,
    /// How to show the result.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Show Secrets' data and stringData values instead of masking them.
    #[arg(long)]
    pub show_secrets: bool,
    /// Credit each changed field to the kustomization entry that set it at head.
    #[arg(long)]
    pub explain: bool,
    /// Only the K-th of N parts of the roots (a CI matrix job).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Join the JSON reports of shards (no build) and show them in --format.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["head", "roots_file", "shard", "explain"])]
    pub merge: Vec<PathBuf>,
    /// Print the roots that would be compared (after --shard), one per line, and build nothing.
    #[arg(long)]
    pub list_roots: bool,
    /// Build every root at both revisions, also those whose inputs did not change.
    #[arg(long)]
    pub no_skip: bool,
    /// The largest markdown comment, in bytes: longer output is split into
    /// numbered parts that each stand alone.
    #[arg(long, value_name = "BYTES", default_value_t = comment::COMMENT_LIMIT)]
    pub comment_limit: usize,
    /// Write the markdown parts as DIR/comment-1.md, comment-2.md, … (all or none).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Hide changes: a resource glob GROUP/KIND/NAMESPACE/NAME, a field
    /// path .metadata.annotations[x], or GLOB:.PATH (repeatable).
    #[arg(long, value_name = "RULE")]
    pub ignore: Vec<String>,
    /// Also hide helm.sh/chart, app.kubernetes.io/version and checksum/* metadata.
    #[arg(long)]
    pub ignore_defaults: bool,
    /// Do not read the repository's .kustom/diff.yaml rules.
    #[arg(long)]
    pub no_rules_file: bool,
    /// Roots built at once (default: the number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// How to build.
    #[command(flatten)]
    pub build: BuildFlags,
}

/// `kustom diff`; the exit status.
pub fn run(args: &DiffArgs) -> i32 {
    if args.list_roots {
        let listed = request(args).and_then(|req| review::list_roots(&req));
        let printed = listed.and_then(|roots| {
            let text: String = roots.iter().map(|r| format!("{r}\n")).collect();
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .map_err(|e| Error::new(format!("writing the roots: {e}")))
        });
        return match printed {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("Error: {e}");
                2
            }
        };
    }
    if args.comment_limit < comment::MIN_LIMIT {
        eprintln!(
            "Error: --comment-limit {} is too small; give at least {} bytes",
            args.comment_limit,
            comment::MIN_LIMIT
        );
        return 2;
    }
    if args.output.is_some() && args.format != Format::Markdown {
        eprintln!("Error: -o DIR writes markdown comment parts; add --format markdown");
        return 2;
    }
    match report(args) {
        Ok(r) => match print(&r, args) {
            Ok(()) => r.exit_status(),
            Err(e) => {
                eprintln!("Error: {e}");
                2
            }
        },
        Err(e) => {
            eprintln!("Error: {e}");
            2
        }
    }
}

fn report(args: &DiffArgs) -> Result<Report, Error> {
    if !args.merge.is_empty() {
        return review::read_reports(&args.merge);
    }
    if let Some(n) = args.build.max_alias_expansion {
        std::env::set_var(kustom_api::yaml::ENV_ALIAS_BUDGET, n.to_string());
    }
    let req = request(args)?;
    let opts = review::options_for_diff(options(&args.build, args.jobs)?);
    let settings = args
        .build
        .plugin_settings(std::sync::Arc::new(LockState::default()))?;
    let started = std::time::Instant::now();
    let (report, work) = review::diff(&req, &settings, &opts)?;
    tracing::debug!(
        ?work,
        ms = started.elapsed().as_millis() as u64,
        "diff finished"
    );
    Ok(report)
}

fn request(args: &DiffArgs) -> Result<Request, Error> {
    let roots = args
        .roots_file
        .as_deref()
        .map(roots::read_roots_file)
        .transpose()?;
    Ok(Request {
        repo: args.repo.clone(),
        base: args.base.clone(),
        head: args.head.clone(),
        roots,
        shard: args.shard,
        explain: args.explain,
        show_secrets: args.show_secrets,
        build_all: args.no_skip,
        ignore: args.ignore.clone(),
        ignore_defaults: args.ignore_defaults,
        no_rules_file: args.no_rules_file,
    })
}

fn print(r: &Report, args: &DiffArgs) -> Result<(), Error> {
    let text = match args.format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(r).expect("a report is plain data");
            s.push('\n');
            s
        }
        Format::Text => format::text(r, std::io::stdout().is_terminal()),
        Format::Html => review::html::html(r),
        Format::Markdown => {
            let parts = comment::parts(r, args.comment_limit);
            if let Some(dir) = &args.output {
                return comment::write_parts(dir, &parts);
            }
            // On STDOUT the parts follow one another, each after a marker.
            let n = parts.len();
            let mut all = String::new();
            for (i, p) in parts.iter().enumerate() {
                if n > 1 {
                    all.push_str(&format!("<!-- kustom diff: part {} of {n} -->\n", i + 1));
                }
                all.push_str(p);
            }
            all
        }
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::new(format!("writing the diff: {e}")))
}
