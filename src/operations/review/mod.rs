//! `kustom diff`: every root built at two git revisions, straight from git
//! objects (the base always, the head too unless it is the work tree), and
//! compared per root and per resource.
//!
//! Only affected roots are built. Before building anything, each root's
//! read set at base is found without a build ([`reach`]): the
//! kustomization directories it reaches (every file a build reads lies
//! below one of them under the default load restrictor), the symlinks
//! followed, its remote references. A root none of whose read set changed
//! between the revisions gives the same bytes at both, so it is reported
//! unchanged without being built; plugins and remote content are the same
//! for both sides of one run. A root whose walk is incomplete, that exists
//! at one side only, or any root under `LoadRestrictionsNone` is built.
//!
//! [`reach`]: crate::operations::render::reach

pub mod comment;
pub mod discover;
pub mod explain;
pub mod format;
pub mod git;
pub mod html;
pub mod keyed;
pub mod noise;
pub mod report;
pub mod triage;

use crate::operations::builder::{Built, LoadRestrictor};
use crate::operations::output;
use crate::operations::render::reach::{kustomization_file, within, FsTree, Reach, Tree, Walker};
use crate::operations::render::roots::Shard;
use crate::operations::render::{self, Options};
use crate::plugin_host::audit::AuditLog;
use crate::plugin_host::Settings;
use discover::tree_path;
use git::{GitTree, Objects, Repo};
use kustom_api::{Error, Value};
use noise::{Id, Rules};
use report::{Change, Credit, Lines, Report, ResourceChange, RootReport, Status};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// What to compare.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// A directory inside the repository (`-C`).
    pub repo: PathBuf,
    /// The base revision.
    pub base: String,
    /// The head revision; None for the work tree.
    pub head: Option<String>,
    /// The roots (repository-relative); None to discover them.
    pub roots: Option<Vec<String>>,
    /// `--shard K/N`.
    pub shard: Option<Shard>,
    /// `--explain`.
    pub explain: bool,
    /// `--show-secrets`.
    pub show_secrets: bool,
    /// Build every root at both revisions (no skipping): for checking.
    pub build_all: bool,
    /// `--ignore` rules.
    pub ignore: Vec<String>,
    /// `--ignore-defaults`.
    pub ignore_defaults: bool,
    /// Leave the repository's rules file ([`noise::RULES_FILE`]) unread.
    pub no_rules_file: bool,
}

/// What a diff did besides its report (for `-v`, tests and benches).
#[derive(Debug, Clone, Default)]
pub struct Work {
    /// Roots considered.
    pub roots: usize,
    /// Root builds made (both sides).
    pub builds: usize,
    /// Roots skipped because none of their inputs changed.
    pub skipped: usize,
    /// Files written from git objects.
    pub materialized: usize,
}

/// The head side: a commit's tree or the work tree.
enum Head {
    Commit(Box<GitTree>),
    Work(FsTree),
}

impl Head {
    fn tree(&self) -> &dyn Tree {
        match self {
            Head::Commit(t) => t.as_ref(),
            Head::Work(t) => t,
        }
    }
}

/// One root's output: each resource's id, YAML text, value and build id.
type Output = BTreeMap<(String, String, String, String), Rendered>;

struct Rendered {
    text: String,
    value: Value,
    id: String,
}

/// The roots `req` compares (given or discovered at both revisions, then
/// its shard), without building anything.
pub fn list_roots(req: &Request) -> Result<Vec<String>, Error> {
    let sides = Sides::open(req)?;
    Ok(roots_of(req, &sides.base, &sides.head, &sides.head_files))
}

/// The two revisions a request compares, read from git.
struct Sides {
    repo: Repo,
    base: GitTree,
    head: Head,
    /// The head commit, or `worktree`.
    head_name: String,
    head_files: Vec<String>,
}

impl Sides {
    fn open(req: &Request) -> Result<Sides, Error> {
        let repo = Repo::open(&req.repo)?;
        let objects = Objects::new(&repo);
        // Both trees at once: each is a git process of its own.
        let (base, head) = std::thread::scope(|s| {
            let head = req
                .head
                .as_ref()
                .map(|rev| s.spawn(|| GitTree::at(&repo, rev, &objects)));
            let base = GitTree::at(&repo, &req.base, &objects);
            let head = head.map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::new("reading the head revision: its thread panicked"))
                })
            });
            (base, head)
        });
        let base = base?;
        let (head, head_name, head_files) = match head {
            Some(t) => {
                let t = t?;
                let files = t.files();
                let name = t.commit.clone();
                (Head::Commit(Box::new(t)), name, files)
            }
            None => (
                Head::Work(
                    FsTree::new(&repo.top)
                        .map_err(|e| Error::new(format!("{}: {e}", repo.top.display())))?,
                ),
                "worktree".to_string(),
                repo.worktree_files()?,
            ),
        };
        Ok(Sides {
            repo,
            base,
            head,
            head_name,
            head_files,
        })
    }

    /// The paths that differ between the two sides.
    fn changed(&self) -> Result<Vec<String>, Error> {
        match &self.head {
            Head::Commit(t) => Ok(self.base.changed_from(t)),
            Head::Work(_) => self.repo.changed(&self.base.commit, None),
        }
    }
}

fn roots_of(req: &Request, base_tree: &GitTree, head: &Head, head_files: &[String]) -> Vec<String> {
    let mut names: Vec<String> = match &req.roots {
        Some(r) => r.clone(),
        None => {
            let (mut a, _) = discover::discover(base_tree, &base_tree.files());
            let (b, _) = discover::discover(head.tree(), head_files);
            a.extend(b);
            a
        }
    };
    names.sort();
    names.dedup();
    if let Some(shard) = req.shard {
        names = shard.select(&names, |s| s);
    }
    names
}

/// Compare `req`'s revisions.
pub fn diff(req: &Request, settings: &Settings, opts: &Options) -> Result<(Report, Work), Error> {
    let sides = Sides::open(req)?;
    let names = roots_of(req, &sides.base, &sides.head, &sides.head_files);
    let rules = rules_of(req, sides.head.tree())?;
    let changed = sides.changed()?;
    let Sides {
        repo,
        base: base_tree,
        head,
        head_name,
        ..
    } = sides;
    let base_sha = base_tree.commit.clone();
    let head_commit = match &head {
        Head::Commit(t) => Some(t.commit.clone()),
        Head::Work(_) => None,
    };
    tracing::debug!(roots = names.len(), changed = changed.len(), "diff planned");

    // Which roots to build, at which side.
    let everything = req.build_all || opts.restrictor == LoadRestrictor::None;
    let mut base_walker = Walker::new(&base_tree);
    let mut head_walker = Walker::new(head.tree());
    let mut plans = Vec::new();
    let mut work = Work {
        roots: names.len(),
        ..Work::default()
    };
    for name in &names {
        let tp = tree_path(name);
        let at_base = kustomization_file(&base_tree, tp).is_some();
        let at_head = kustomization_file(head.tree(), tp).is_some();
        let base_reach = at_base.then(|| base_walker.reach(tp));
        let build = everything
            || at_base != at_head
            || base_reach
                .as_ref()
                .is_some_and(|r| r.incomplete || touches(&changed, r));
        let head_reach = (build && at_head && head_commit.is_some()).then(|| head_walker.reach(tp));
        if !build && at_base {
            work.skipped += 1;
        }
        plans.push(Plan {
            name: name.clone(),
            at_base,
            at_head,
            build,
            base_reach,
            head_reach,
        });
    }

    // Materialize what the builds read.
    let base_want = wanted(&plans, opts, |p| {
        p.base_reach.as_ref().filter(|_| p.at_base)
    });
    let head_want = match &head {
        Head::Commit(_) => Some(wanted(&plans, opts, |p| p.head_reach.as_ref())),
        Head::Work(_) => None,
    };
    let head_tree = match &head {
        Head::Commit(t) => Some(&**t),
        Head::Work(_) => None,
    };
    let started = std::time::Instant::now();
    let place = crate::processes::temporary::scratch_place();
    let checkout = match check_out(
        &place,
        &base_tree,
        &base_want,
        head_tree,
        head_want.as_ref(),
    )? {
        Some(c) => c,
        // Too large for memory: the system's temporary directory.
        None => check_out(
            &crate::processes::temporary::ScratchPlace {
                parent: std::env::temp_dir(),
                budget: None,
            },
            &base_tree,
            &base_want,
            head_tree,
            head_want.as_ref(),
        )?
        .ok_or_else(|| Error::new("checking out the revisions: over a budget that was not set"))?,
    };
    work.materialized += checkout.files;
    tracing::debug!(
        files = checkout.files,
        dir = %checkout.dir.path().display(),
        ms = started.elapsed().as_millis() as u64,
        "revisions checked out"
    );
    let tmp = checkout.dir;
    let base_dir = tmp.path().join("base");
    let head_top = match &head {
        Head::Commit(_) => tmp.path().join("head"),
        Head::Work(_) => repo.top.clone(),
    };
    let base_top = base_dir.canonicalize().unwrap_or(base_dir.clone());
    let head_top = head_top.canonicalize().unwrap_or(head_top);

    // Build both sides in one render: (plan index, is head).
    let mut jobs: Vec<(usize, bool)> = Vec::new();
    for (i, p) in plans.iter().enumerate().filter(|(_, p)| p.build) {
        if p.at_base {
            jobs.push((i, false));
        }
        if p.at_head {
            jobs.push((i, true));
        }
    }
    work.builds = jobs.len();
    let dirs: Vec<PathBuf> = jobs
        .iter()
        .map(|&(i, h)| {
            let top = if h { &head_top } else { &base_top };
            let tp = tree_path(&plans[i].name);
            if tp.is_empty() {
                top.clone()
            } else {
                top.join(tp)
            }
        })
        .collect();
    let logs: Vec<Mutex<Option<Arc<AuditLog>>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let outputs: Vec<Mutex<Option<Result<Output, String>>>> =
        jobs.iter().map(|_| Mutex::new(None)).collect();
    let explain_sink = settings
        .audit
        .clone()
        .unwrap_or_else(|| Arc::new(AuditLog::in_memory()));
    let tops = [base_top.clone(), head_top.clone(), repo.top.clone()];
    let clean = |msg: &str| clean_paths(msg, &tops);
    render::render_roots(
        settings,
        &dirs,
        opts,
        &|j, mut s| {
            let (i, h) = jobs[j];
            let side = if h {
                short(&head_name)
            } else {
                short(&base_sha)
            };
            let label = format!("{}@{side}", plans[i].name);
            if req.explain {
                let log = explain_sink.in_memory_for_root(&label);
                *logs[j].lock().unwrap_or_else(|e| e.into_inner()) = Some(log.clone());
                s.audit = Some(log);
            } else {
                s.audit = settings.audit.as_ref().map(|a| a.for_root(&label));
            }
            s
        },
        &|j, built| {
            let out = built.map(output_of).map_err(|e| clean(&e.to_string()));
            *outputs[j].lock().unwrap_or_else(|e| e.into_inner()) = Some(out);
        },
    );
    let mut results: BTreeMap<(usize, bool), Result<Output, String>> = BTreeMap::new();
    let mut audit: BTreeMap<(usize, bool), Vec<Value>> = BTreeMap::new();
    for (j, &(i, h)) in jobs.iter().enumerate() {
        let out = outputs[j]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or_else(|| Err("the build did not finish".into()));
        results.insert((i, h), out);
        if let Some(log) = logs[j].lock().unwrap_or_else(|e| e.into_inner()).take() {
            audit.insert((i, h), log.entries());
        }
    }

    // Compare.
    let relative = |p: &str| clean_paths(p, &tops);
    let mut roots = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        if !p.build {
            continue;
        }
        let base = results.remove(&(i, false));
        let head = results.remove(&(i, true));
        let logs = Logs {
            base: audit.get(&(i, false)).map(Vec::as_slice).unwrap_or(&[]),
            head: audit.get(&(i, true)).map(Vec::as_slice).unwrap_or(&[]),
        };
        let report = compare(&p.name, base, head, req, &rules, logs, &relative);
        // A root whose every change is hidden stays, unchanged, for its count.
        if report.status != Status::Unchanged || report.hidden > 0 {
            roots.push(report);
        }
    }
    drop(tmp);
    Ok((
        Report {
            base: base_sha,
            head: head_name,
            roots,
        },
        work,
    ))
}

/// What to do with one root: whether it exists at each side, whether it
/// is built, and what its builds read.
struct Plan {
    name: String,
    at_base: bool,
    at_head: bool,
    build: bool,
    base_reach: Option<Reach>,
    head_reach: Option<Reach>,
}

/// The directories and files of one side that the planned builds read:
/// everything when files outside the roots' directories may be read, or
/// when a root's walk could not follow every entry.
fn wanted(
    plans: &[Plan],
    opts: &Options,
    pick: impl Fn(&Plan) -> Option<&Reach>,
) -> (Vec<String>, Vec<String>) {
    let incomplete = plans
        .iter()
        .any(|p| p.build && pick(p).is_some_and(|r| r.incomplete));
    if opts.restrictor == LoadRestrictor::None || incomplete {
        return (vec![String::new()], Vec::new());
    }
    let (mut dirs, mut files) = (BTreeSet::new(), BTreeSet::new());
    for p in plans.iter().filter(|p| p.build) {
        if let Some(r) = pick(p) {
            dirs.extend(r.dirs.iter().cloned());
            files.extend(r.files.iter().cloned());
        }
    }
    (dirs.into_iter().collect(), files.into_iter().collect())
}

/// The two revisions written out for their builds.
struct Checkout {
    /// Holds `base/` and, for a head commit, `head/`.
    dir: crate::processes::Temporary<tempfile::TempDir>,
    /// How many files were written.
    files: usize,
}

/// Write what the builds read of the base (and of a head commit) into a
/// new directory at `place`; `None` when it would not fit the place's
/// budget.
fn check_out(
    place: &crate::processes::temporary::ScratchPlace,
    base: &GitTree,
    base_want: &(Vec<String>, Vec<String>),
    head: Option<&GitTree>,
    head_want: Option<&(Vec<String>, Vec<String>)>,
) -> Result<Option<Checkout>, Error> {
    let dir = tempfile::Builder::new()
        .prefix("kustom-diff-")
        .tempdir_in(&place.parent)
        .map(crate::processes::Temporary::new)
        .map_err(|e| {
            Error::new(format!(
                "creating a temporary directory in {}: {e}",
                place.parent.display()
            ))
        })?;
    let mut files = 0;
    let sides = [
        (Some(base), Some(base_want), "base"),
        (head, head_want, "head"),
    ];
    for (tree, (dirs, paths), name) in sides.into_iter().filter_map(|(t, w, n)| Some((t?, w?, n))) {
        let into = dir.path().join(name);
        std::fs::create_dir_all(&into)
            .map_err(|e| Error::new(format!("{}: {e}", into.display())))?;
        match tree.materialize(&into, dirs, paths, place.budget)? {
            git::Written::Files(n) => files += n,
            git::Written::OverBudget => return Ok(None),
        }
    }
    Ok(Some(Checkout { dir, files }))
}

/// The noise rules: `--ignore`, the repository's rules file at head
/// (unless turned off) and the defaults when asked for.
fn rules_of(req: &Request, head: &dyn Tree) -> Result<Rules, Error> {
    let mut rules: Vec<(String, String)> = Vec::new();
    let mut defaults = req.ignore_defaults;
    if !req.no_rules_file {
        if let Some(bytes) = head.read(noise::RULES_FILE) {
            let text = String::from_utf8(bytes)
                .map_err(|_| Error::new(format!("{}: not UTF-8 text", noise::RULES_FILE)))?;
            let file = noise::read_rules_file(&text, noise::RULES_FILE)?;
            defaults |= file.ignore_defaults;
            rules.extend(
                file.ignore
                    .into_iter()
                    .map(|r| (r, noise::RULES_FILE.to_string())),
            );
        }
    }
    rules.extend(
        req.ignore
            .iter()
            .map(|r| (r.clone(), "--ignore".to_string())),
    );
    Rules::parse(&rules, defaults)
}

/// The part of a generated object's name before its hash suffix (`-` and
/// ten letters and digits), if it has one.
fn hash_stem(name: &str) -> Option<&str> {
    let (stem, suffix) = name.rsplit_once('-')?;
    (suffix.len() == 10
        && suffix
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
    .then_some(stem)
}

/// Whether a changed path touches what a root reads.
fn touches(changed: &[String], r: &Reach) -> bool {
    changed.iter().any(|c| match c.strip_suffix('/') {
        // An untracked directory: anything read below it, or it below a read directory.
        Some(d) => {
            r.dirs.iter().any(|x| within(x, d) || within(d, x))
                || r.files.iter().any(|f| within(f, d))
        }
        None => r.dirs.iter().any(|x| within(c, x)) || r.files.contains(c),
    })
}

/// A built root as resources keyed by id, with their YAML text.
fn output_of(b: Built) -> Output {
    let mut out = Output::new();
    for d in &b.resources {
        let value = output::final_value(d, &b.top);
        let text = kustom_api::yaml::to_yaml(&value);
        let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
        let meta = value.get("metadata");
        let key = (
            s(value.get("apiVersion")),
            s(value.get("kind")),
            s(meta.and_then(|m| m.get("namespace"))),
            s(meta.and_then(|m| m.get("name"))),
        );
        out.insert(
            key,
            Rendered {
                text,
                value,
                id: d.id().to_string(),
            },
        );
    }
    out
}

/// Paths below a temporary tree or the repository, made relative to it.
fn clean_paths(msg: &str, tops: &[PathBuf]) -> String {
    let mut m = msg.to_string();
    for t in tops {
        let t = t.display().to_string();
        m = m.replace(&format!("{t}/"), "").replace(&t, ".");
    }
    m
}

fn short(rev: &str) -> String {
    if rev.len() == 40 {
        rev[..7].to_string()
    } else {
        rev.to_string()
    }
}

/// One root's audit records at base and head (empty without `--explain`).
#[derive(Clone, Copy)]
struct Logs<'a> {
    base: &'a [Value],
    head: &'a [Value],
}

/// One root's report from its outputs at base and head (None: not a root
/// at that side).
fn compare(
    name: &str,
    base: Option<Result<Output, String>>,
    head: Option<Result<Output, String>>,
    req: &Request,
    rules: &Rules,
    logs: Logs<'_>,
    relative: &dyn Fn(&str) -> String,
) -> RootReport {
    let mut report = RootReport {
        root: name.to_string(),
        status: Status::Changed,
        error: None,
        resources: Vec::new(),
        lines: Lines::default(),
        images: Vec::new(),
        risks: Vec::new(),
        hidden: 0,
    };
    let empty = Output::new();
    let (b, h) = match (&base, &head) {
        (None, None) => {
            report.status = Status::Failed;
            report.error = Some(format!(
                "{name} has no kustomization file at either revision; remove it from the roots"
            ));
            return report;
        }
        (Some(Err(eb)), Some(Err(eh))) if eb == eh => {
            report.status = Status::Unchanged;
            return report;
        }
        (_, Some(Err(eh))) => {
            report.status = Status::Failed;
            report.error = Some(format!("at head: {eh}"));
            return report;
        }
        (Some(Err(eb)), Some(Ok(h))) => {
            report.error = Some(format!("at base (fixed at head): {eb}"));
            (&empty, h)
        }
        (Some(Err(eb)), None) => {
            report.status = Status::Removed;
            report.error = Some(format!("at base: {eb}"));
            return report;
        }
        (None, Some(Ok(h))) => {
            report.status = Status::Added;
            (&empty, h)
        }
        (Some(Ok(b)), None) => {
            report.status = Status::Removed;
            (b, &empty)
        }
        (Some(Ok(b)), Some(Ok(h))) => (b, h),
    };
    let keys: BTreeSet<_> = b.keys().chain(h.keys()).collect();
    let mut pairs: Vec<(Option<&Key>, Option<&Key>)> = Vec::new();
    for key in keys {
        match (b.get(key), h.get(key)) {
            (Some(x), Some(y)) if x.text == y.text => {}
            (x, y) => pairs.push((x.map(|_| key), y.map(|_| key))),
        }
    }
    pair_renames(&mut pairs);
    let mut images = BTreeSet::new();
    for (bk, hk) in pairs {
        let (x, y) = (bk.and_then(|k| b.get(k)), hk.and_then(|k| h.get(k)));
        let change = match (bk, hk) {
            (Some(a), Some(c)) if a != c => Change::Renamed,
            (Some(_), Some(_)) => Change::Modified,
            (None, Some(_)) => Change::Added,
            _ => Change::Removed,
        };
        let Some(key) = hk.or(bk) else { continue };
        let id = Id {
            api_version: &key.0,
            kind: &key.1,
            namespace: &key.2,
            name: &key.3,
        };
        if rules.hides(id) {
            report.hidden += 1;
            continue;
        }
        let (mut xv, mut yv) = (x.map(|r| r.value.clone()), y.map(|r| r.value.clone()));
        if !rules.is_empty() {
            report.hidden += rules.strip(id, xv.as_mut(), yv.as_mut());
        }
        let fields = match (&xv, &yv) {
            (Some(a), Some(c)) if req.explain => crate::plugin_host::audit::changed_fields(a, c),
            _ => vec![String::new()],
        };
        if let (Some(a), Some(c)) = (&xv, &mut yv) {
            keyed::align(a, c);
            if a == c {
                // Only reordered, or only hidden fields changed.
                continue;
            }
        }
        let ns = if key.2.is_empty() {
            String::new()
        } else {
            format!("{}/", key.2)
        };
        let label = format!("{} {} {ns}{}", key.0, key.1, key.3);
        if let (Some(a), Some(c)) = (&xv, &yv) {
            images.extend(triage::images(a, c));
        }
        report
            .risks
            .extend(triage::risks(change, xv.as_ref(), yv.as_ref(), &label));
        if !req.show_secrets {
            (xv, yv) = format::mask_secrets(xv, yv);
            for v in [xv.as_mut(), yv.as_mut()].into_iter().flatten() {
                crate::plugin_host::pem::tokenize_all(v);
            }
        }
        let (xt, yt) = (
            xv.map(|v| kustom_api::yaml::to_yaml(&v)),
            yv.map(|v| kustom_api::yaml::to_yaml(&v)),
        );
        let from_label = match bk {
            Some(k) if change == Change::Renamed => format!("{} {} {ns}{}", k.0, k.1, k.3),
            _ => label.clone(),
        };
        let diff = format::unified(
            xt.as_deref().unwrap_or(""),
            yt.as_deref().unwrap_or(""),
            &format!("a/{name}: {from_label}"),
            &format!("b/{name}: {label}"),
        );
        for line in diff.lines() {
            if line.starts_with('+') && !line.starts_with("+++") {
                report.lines.added += 1;
            } else if line.starts_with('-') && !line.starts_with("---") {
                report.lines.removed += 1;
            }
        }
        // A removed resource is credited to the entry that made it at base.
        let explain: Vec<Credit> = match (req.explain, y, x) {
            (true, Some(y), _) => explain::credit(logs.head, &y.id, &fields, relative),
            (true, None, Some(x)) => explain::credit(logs.base, &x.id, &fields, relative),
            _ => Vec::new(),
        };
        report.resources.push(ResourceChange {
            api_version: key.0.clone(),
            kind: key.1.clone(),
            namespace: key.2.clone(),
            name: key.3.clone(),
            change,
            from: (change == Change::Renamed)
                .then(|| bk.map(|k| k.3.clone()))
                .flatten(),
            diff,
            explain,
        });
    }
    report.images = images.into_iter().collect();
    if report.status == Status::Changed && report.resources.is_empty() && report.error.is_none() {
        report.status = Status::Unchanged;
    }
    report
}

/// A resource's id: apiVersion, kind, namespace, name.
type Key = (String, String, String, String);

/// Join a removed and an added ConfigMap or Secret whose names differ only
/// in the hash suffix (one of each with that stem, same apiVersion, kind
/// and namespace) into one renamed resource.
fn pair_renames(pairs: &mut Vec<(Option<&Key>, Option<&Key>)>) {
    let generated = |k: &Key| (k.1 == "ConfigMap" || k.1 == "Secret") && k.0 == "v1";
    let stem_of =
        |k: &Key| hash_stem(&k.3).map(|s| (k.0.clone(), k.1.clone(), k.2.clone(), s.to_string()));
    let mut joined = Vec::new();
    for (i, (bk, hk)) in pairs.iter().enumerate() {
        let (Some(bk), None) = (bk, hk) else { continue };
        let Some(stem) = stem_of(bk).filter(|_| generated(bk)) else {
            continue;
        };
        let same = |k: &&Key| generated(k) && stem_of(k).as_ref() == Some(&stem);
        let removed: Vec<usize> = (0..pairs.len())
            .filter(|&j| pairs[j].1.is_none() && pairs[j].0.is_some_and(|k| same(&k)))
            .collect();
        let added: Vec<usize> = (0..pairs.len())
            .filter(|&j| pairs[j].0.is_none() && pairs[j].1.is_some_and(|k| same(&k)))
            .collect();
        if let ([r], [a]) = (&removed[..], &added[..]) {
            if *r == i {
                joined.push((i, *a));
            }
        }
    }
    for &(r, a) in &joined {
        pairs[r].1 = pairs[a].1;
    }
    let gone: BTreeSet<usize> = joined.iter().map(|&(_, a)| a).collect();
    let mut i = 0;
    pairs.retain(|_| {
        i += 1;
        !gone.contains(&(i - 1))
    });
}

/// The render options for the two sides of a diff: like `kustom render`'s,
/// but never writing a lock into a tree.
pub fn options_for_diff(mut opts: Options) -> Options {
    opts.write_locks = false;
    opts
}

/// Read the JSON reports of several shards (`kustom diff --merge`).
pub fn read_reports(files: &[PathBuf]) -> Result<Report, Error> {
    let mut reports = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f)
            .map_err(|e| Error::new(format!("--merge {}: {e}", f.display())))?;
        let r: Report = serde_json::from_str(&text).map_err(|e| {
            Error::new(format!(
                "--merge {}: not a kustom diff JSON report ({e}); pass the files written by `kustom diff --format json`",
                f.display()
            ))
        })?;
        reports.push((f.display().to_string(), r));
    }
    Report::merge(reports)
}
