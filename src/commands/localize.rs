//! `kustom localize`: kustomize's `localize` command. Copies a kustomization
//! and everything it references — remote bases and files included — into a
//! new directory, rewriting references so that the copy builds offline:
//! local files keep their relative paths; remote files go to
//! `localized-files/<host>/<path>`; remote roots to
//! `localized-files/<host>/<repo path>/<ref>/<dir in repo>` (kustomize's
//! layout). The copy is verified by building both unless `--no-verify`.

use super::build_settings::BuildArgs;
use crate::fetch::lock::LockState;
use crate::fetch::remote::http::url_host;
use crate::fetch::remote::spec::{self, RepoSpec};
use crate::fetch::remote::Fetcher;
use crate::operations::builder::Builder;
use clap::Parser;
use kustom_api::{paths, yaml, Error, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where remote content goes inside each localized root.
pub const LOCALIZE_DIR: &str = "localized-files";

/// Flags of `kustom localize`.
#[derive(Parser, Debug)]
pub struct LocalizeArgs {
    /// The kustomization directory or remote root URL (with `?ref=`).
    #[arg(default_value = ".")]
    pub target: String,
    /// A new directory (default `localized-<target name>` here).
    pub destination: Option<PathBuf>,
    /// Directory the localized files may come from (default: the target).
    #[arg(long)]
    pub scope: Option<PathBuf>,
    /// Skip building the target and the copy to compare them.
    #[arg(long)]
    pub no_verify: bool,
}

struct Localizer<'a> {
    fetcher: &'a Fetcher,
    /// Local files and roots must lie here (None inside remote roots).
    scope: PathBuf,
    new_dir: PathBuf,
}

/// A root being localized: where it is read from and written to.
struct Root {
    src: PathBuf,
    dst: PathBuf,
    /// The checkout containing it, for remote roots.
    repo: Option<PathBuf>,
}

/// `kustom localize` with the user's cache.
pub fn run_cli(args: &LocalizeArgs) -> Result<(), Error> {
    let fetcher = Arc::new(Fetcher::new(
        crate::fetch::remote::cache::default_dir(),
        false,
        Default::default(),
    ));
    run(args, &fetcher)
}

/// Run `kustom localize`. The fetcher is shared with the verifying build
/// of the original, so each remote is fetched (and each ref resolved) once.
pub fn run(args: &LocalizeArgs, fetcher: &Arc<Fetcher>) -> Result<(), Error> {
    let remote = RepoSpec::parse(&args.target)
        .ok()
        .filter(|_| !Path::new(&args.target).exists());
    let (target, repo) = match &remote {
        Some(s) if s.git_ref.is_empty() => {
            return Err(Error::new(format!(
                "localize remote root {:?} missing ref query string parameter",
                args.target
            )))
        }
        Some(s) => {
            if args.scope.is_some() {
                return Err(Error::new(
                    "--scope cannot be given for a remote target: its scope is its repository",
                ));
            }
            let (checkout, root) = fetcher
                .repo(s)
                .map_err(|e| Error::new(format!("localize target {}: {e}", s.raw)))?;
            (canonical(&root)?, Some(canonical(&checkout.dir)?))
        }
        None => (canonical(Path::new(&args.target))?, None),
    };
    let scope = match (&args.scope, &repo) {
        (Some(s), None) => canonical(s)?,
        (None, None) => target.clone(),
        (_, Some(r)) => r.clone(),
    };
    if !target.starts_with(&scope) {
        return Err(Error::new(format!(
            "localize scope {} does not contain target {}",
            scope.display(),
            target.display()
        )));
    }
    let new_dir = match &args.destination {
        Some(d) => d.clone(),
        None => PathBuf::from(default_new_dir(&target, remote.as_ref(), repo.as_deref())),
    };
    if new_dir.exists() {
        return Err(Error::new(format!(
            "localize destination {} already exists: name a new directory",
            new_dir.display()
        )));
    }
    std::fs::create_dir_all(&new_dir)
        .map_err(|e| Error::new(format!("creating {}: {e}", new_dir.display())))?;
    let new_dir = canonical(&new_dir)?;
    let dst = new_dir.join(target.strip_prefix(&scope).unwrap_or(Path::new("")));
    let lc = Localizer {
        fetcher,
        scope,
        new_dir: new_dir.clone(),
    };
    let result = lc
        .localize(&Root {
            src: target.clone(),
            dst: dst.clone(),
            repo,
        })
        .and_then(|()| {
            if args.no_verify {
                Ok(())
            } else {
                verify(&args.target, &dst, fetcher)
            }
        });
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&new_dir);
        return Err(e.context(format!("unable to localize target {:?}", args.target)));
    }
    eprintln!(
        "SUCCESS: localized {:?} to directory {}",
        args.target,
        new_dir.display()
    );
    Ok(())
}

/// kustomize's default destination name.
fn default_new_dir(target: &Path, spec: Option<&RepoSpec>, repo: Option<&Path>) -> String {
    let base = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match spec {
        Some(s) => {
            let name = if repo == Some(target) {
                s.repo_path
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .to_string()
            } else {
                base
            };
            format!("localized-{name}-{}", s.git_ref.replace('/', "-"))
        }
        None if base.is_empty() => "localized".into(),
        None => format!("localized-{base}"),
    }
}

/// `kustom build`'s flags at their defaults, for the verifying builds.
#[derive(Parser, Debug)]
struct DefaultBuild {
    #[command(flatten)]
    build: BuildArgs,
}

/// Build the original and the copy, as `kustom build` with no flags would;
/// they must give the same bytes. The original's remotes come from
/// `fetcher`, which localizing already filled.
fn verify(target: &str, dst: &Path, fetcher: &Arc<Fetcher>) -> Result<(), Error> {
    let build = |what: &std::ffi::OsStr, shared: Option<&Arc<Fetcher>>| -> Result<Vec<u8>, Error> {
        let fail = |e: Error| {
            Error::new(format!(
                "kustom build {} failed: {e}",
                what.to_string_lossy()
            ))
        };
        let args = DefaultBuild::try_parse_from([std::ffi::OsStr::new("kustom build"), what])
            .map_err(|e| fail(Error::new(e.to_string())))?
            .build;
        let lock = LockState::for_build(&args.dir, false).map_err(fail)?;
        let mut settings = args.plugin_settings(lock).map_err(fail)?;
        if let Some(f) = shared {
            settings.remote = f.clone();
        }
        let builder = Builder::new(settings, args.restrictor().map_err(fail)?);
        let built = builder
            .build_root(&args.dir, args.reorder().map_err(fail)?, false)
            .map_err(fail)?;
        let mut out = Vec::new();
        crate::operations::output::render_to(&built.resources, &built.top, &mut out)
            .map_err(|e| fail(Error::new(e.to_string())))?;
        Ok(out)
    };
    let original = build(std::ffi::OsStr::new(target), Some(fetcher))?;
    let localized = build(dst.as_os_str(), None)?;
    if original != localized {
        return Err(Error::new(format!(
            "VERIFICATION FAILED: `kustom build` for {target} and {} are different after localization",
            dst.display()
        )));
    }
    eprintln!(
        "VERIFICATION SUCCESS: `kustom build` for {target} and {} are the same after localization",
        dst.display()
    );
    Ok(())
}

fn canonical(p: &Path) -> Result<PathBuf, Error> {
    p.canonicalize()
        .map_err(|e| Error::new(format!("{}: {e}", p.display())))
}

fn io_err(p: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::new(format!("{}: {e}", p.display()))
}

impl Localizer<'_> {
    fn localize(&self, root: &Root) -> Result<(), Error> {
        let file = crate::operations::kustomization::find_file(&root.src)?;
        let text = std::fs::read_to_string(&file).map_err(io_err(&file))?;
        let mut docs = yaml::parse_stream(&text).map_err(|e| e.context(file.display()))?;
        let mut k = match docs.pop() {
            Some(Value::Object(m)) if docs.is_empty() => m,
            _ => {
                return Err(Error::new(format!(
                    "{}: a kustomization must be one YAML mapping",
                    file.display()
                )))
            }
        };
        std::fs::create_dir_all(&root.dst).map_err(io_err(&root.dst))?;
        let ctx = |field: &str| format!("unable to localize {field} entry (in {})", file.display());
        if let Some(Value::Object(o)) = k.get_mut("openapi") {
            if let Some(Value::String(p)) = o.get_mut("path") {
                *p = self
                    .file(root, p)
                    .map_err(|e| e.context(ctx("openapi path")))?;
            }
        }
        for field in ["configurations", "crds"] {
            self.each_string(&mut k, field, |p| self.file(root, p))
                .map_err(|e| e.context(ctx(field)))?;
        }
        for field in ["bases", "components"] {
            self.each_string(&mut k, field, |p| self.root(root, p))
                .map_err(|e| e.context(ctx(field)))?;
        }
        self.each_string(&mut k, "resources", |p| self.resource(root, p))
            .map_err(|e| e.context(ctx("resources")))?;
        for field in ["generators", "transformers", "validators"] {
            // Inline configs stay; files and roots are localized.
            self.each_string(&mut k, field, |p| {
                if p.contains('\n') {
                    Ok(p.to_string())
                } else {
                    self.resource(root, p)
                }
            })
            .map_err(|e| e.context(ctx(field)))?;
        }
        for field in ["configMapGenerator", "secretGenerator"] {
            if let Some(Value::Array(gens)) = k.get_mut(field) {
                for g in gens.iter_mut().filter_map(Value::as_object_mut) {
                    if let Some(Value::String(env)) = g.get_mut("env") {
                        *env = self.file(root, env).map_err(|e| e.context(ctx(field)))?;
                    }
                    for list in ["envs", "files"] {
                        if let Some(Value::Array(items)) = g.get_mut(list) {
                            for item in items.iter_mut() {
                                if let Value::String(s) = item {
                                    *s = self
                                        .file_source(root, s)
                                        .map_err(|e| e.context(ctx(field)))?;
                                }
                            }
                        }
                    }
                }
            }
        }
        for field in ["patches", "patchesJson6902", "replacements"] {
            if let Some(Value::Array(items)) = k.get_mut(field) {
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    if let Some(Value::String(p)) = item.get_mut("path") {
                        *p = self.file(root, p).map_err(|e| e.context(ctx(field)))?;
                    }
                }
            }
        }
        // A strategic merge entry is a file name or an inline patch.
        self.each_string(&mut k, "patchesStrategicMerge", |p| {
            if p.contains('\n') || p.trim_start().starts_with('{') {
                Ok(p.to_string())
            } else {
                self.file(root, p)
            }
        })
        .map_err(|e| e.context(ctx("patchesStrategicMerge")))?;
        let name = file.file_name().expect("a kustomization file");
        let out = root.dst.join(name);
        crate::fetch::lock::write_atomically(&out, yaml::to_yaml(&Value::Object(k)).as_bytes())
    }

    fn each_string(
        &self,
        k: &mut serde_json::Map<String, Value>,
        field: &str,
        mut f: impl FnMut(&str) -> Result<String, Error>,
    ) -> Result<(), Error> {
        if let Some(Value::Array(items)) = k.get_mut(field) {
            for item in items.iter_mut() {
                if let Value::String(s) = item {
                    *s = f(s)?;
                }
            }
        }
        Ok(())
    }

    /// A generator file source: `[key=]path`.
    fn file_source(&self, root: &Root, source: &str) -> Result<String, Error> {
        match source.split_once('=') {
            Some((key, path)) if !spec::is_remote_file(source) || !key.contains('/') => {
                Ok(format!("{key}={}", self.file(root, path)?))
            }
            _ => self.file(root, source),
        }
    }

    /// A `resources:` entry: a file if it reads as resources, else a root.
    fn resource(&self, root: &Root, p: &str) -> Result<String, Error> {
        let file_err = if spec::is_remote_file(p) {
            match self.fetcher.file(p) {
                Ok(path) if parses(&path) => return self.file(root, p),
                Ok(_) => Error::new(format!("invalid resource at file {p:?}")),
                Err(e) => Error::new(e.to_string()),
            }
        } else if root.src.join(p).is_file() {
            if parses(&root.src.join(p)) {
                return self.file(root, p);
            }
            Error::new(format!("invalid resource at file {p:?}"))
        } else {
            Error::new(format!("{p:?} is not a file"))
        };
        self.root(root, p).map_err(|root_err| {
            Error::new(format!(
                "{p:?}: neither a resource file ({file_err}) nor a kustomization root ({root_err})"
            ))
        })
    }

    /// Copy a file; returns the reference to write in its place.
    fn file(&self, root: &Root, p: &str) -> Result<String, Error> {
        if p.is_empty() {
            return Ok(String::new());
        }
        if spec::is_remote_file(p) {
            let local = self
                .fetcher
                .file(p)
                .map_err(|e| Error::new(format!("{p}: {e}")))?;
            let rel = remote_file_path(p);
            self.copy(&local, &root.dst.join(&rel))?;
            return Ok(rel);
        }
        let src = canonical(&root.src.join(p))?;
        let limit = root.repo.as_deref().unwrap_or(&root.src);
        let allowed = if root.repo.is_some() {
            limit
        } else {
            &self.scope
        };
        if !src.starts_with(allowed) {
            return Err(Error::new(format!(
                "file {p:?} ({}) is outside the localize scope {}",
                src.display(),
                allowed.display()
            )));
        }
        if src.starts_with(&self.new_dir) {
            return Err(Error::new(format!(
                "file {p:?} at {} enters localize destination {}",
                src.display(),
                self.new_dir.display()
            )));
        }
        let rel = relative(&root.src, &src);
        self.copy(&src, &root.dst.join(&rel))?;
        Ok(rel)
    }

    /// Localize a root (a local directory or a remote base); returns the
    /// reference to write in its place.
    fn root(&self, root: &Root, p: &str) -> Result<String, Error> {
        if let Ok(s) = RepoSpec::parse(p) {
            if s.git_ref.is_empty() {
                return Err(Error::new(format!(
                    "localize remote root {p:?} missing ref query string parameter"
                )));
            }
            let (checkout, dir) = self
                .fetcher
                .repo(&s)
                .map_err(|e| Error::new(format!("{p}: {e}")))?;
            let dir = canonical(&dir)?;
            let repo = canonical(&checkout.dir)?;
            let in_repo = relative(&repo, &dir);
            let rel = paths::clean(&format!(
                "{LOCALIZE_DIR}/{}/{}/{}/{in_repo}",
                host_dir(&s),
                s.repo_path.trim_end_matches(".git"),
                s.git_ref
            ));
            self.localize(&Root {
                src: dir,
                dst: root.dst.join(&rel),
                repo: Some(repo),
            })?;
            return Ok(rel);
        }
        let dir = canonical(&root.src.join(p))?;
        if !dir.is_dir() {
            return Err(Error::new(format!("{p:?} is not a directory")));
        }
        match &root.repo {
            Some(repo) if !dir.starts_with(repo) => {
                return Err(Error::new(format!(
                    "root {} is outside its repository {}",
                    dir.display(),
                    repo.display()
                )))
            }
            None if !dir.starts_with(&self.scope) => {
                return Err(Error::new(format!(
                    "root {} outside localize scope {}",
                    dir.display(),
                    self.scope.display()
                )))
            }
            _ => {}
        }
        if dir.starts_with(&self.new_dir) {
            return Err(Error::new(format!(
                "root {} references into localize destination {}",
                dir.display(),
                self.new_dir.display()
            )));
        }
        let rel = relative(&root.src, &dir);
        self.localize(&Root {
            src: dir,
            dst: root.dst.join(&rel),
            repo: root.repo.clone(),
        })?;
        Ok(rel)
    }

    fn copy(&self, from: &Path, to: &Path) -> Result<(), Error> {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        std::fs::copy(from, to).map_err(io_err(to))?;
        Ok(())
    }
}

/// Whether a file reads as Kubernetes objects.
fn parses(path: &Path) -> bool {
    crate::operations::builder::read_resource_file(path, "", path).is_ok()
}

/// `localized-files/<host>/<path>` for a remote file URL.
fn remote_file_path(url: &str) -> String {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let path = rest.find('/').map(|i| &rest[i..]).unwrap_or("");
    let path = path.split(['?', '#']).next().unwrap_or("");
    paths::join(
        &format!("{LOCALIZE_DIR}/{}", url_host(url)),
        paths::clean(&format!("/{path}")).trim_start_matches('/'),
    )
}

/// kustomize's host directory for a remote root.
fn host_dir(s: &RepoSpec) -> String {
    let scheme = s.host.split("://").next().unwrap_or("");
    if s.host.starts_with("file://") {
        return "file-schemed".into();
    }
    let target = if s.host.contains("://") && matches!(scheme, "https" | "http" | "ssh") {
        s.host.clone()
    } else {
        format!("ssh://{}", s.host)
    };
    url_host(target.trim_end_matches(':')).to_string()
}

/// `to` relative to `from` (both absolute, clean), Go's `filepath.Rel`.
fn relative(from: &Path, to: &Path) -> String {
    let f: Vec<_> = from.components().collect();
    let t: Vec<_> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); f.len() - common];
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_names_follow_kustomize() {
        assert_eq!(
            remote_file_path("https://raw.githubusercontent.com:443/org/repo/v1/a/../x.yaml?x=1"),
            "localized-files/raw.githubusercontent.com/org/repo/v1/x.yaml"
        );
        let s = RepoSpec::parse("git@github.com:org/repo.git//deploy?ref=v1").unwrap();
        assert_eq!(host_dir(&s), "github.com");
        let s = RepoSpec::parse("file:///tmp/r//x?ref=v1").unwrap();
        assert_eq!(host_dir(&s), "file-schemed");
        assert_eq!(relative(Path::new("/a/b"), Path::new("/a/c/d")), "../c/d");
        assert_eq!(relative(Path::new("/a"), Path::new("/a")), ".");
    }
}
