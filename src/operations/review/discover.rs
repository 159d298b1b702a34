//! Which roots a repository has: the directories Argo CD `Application` /
//! `ApplicationSet` objects (git directory and list generators included)
//! or Flux `Kustomization` objects point at, when the repository has
//! such objects; otherwise every kustomization directory that no other
//! kustomization includes.

use crate::operations::kustomization::FILE_NAMES;
use crate::operations::render::reach::{kustomization_file, Tree, Walker};
use kustom_api::{yaml, Error, Value};
use std::collections::BTreeSet;

/// Where the roots came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Kustomization directories no other kustomization includes.
    Kustomizations,
    /// Argo CD and/or Flux objects.
    GitOps,
}

/// The roots of a tree whose files are `files` (tree paths), sorted.
pub fn discover<T: Tree + ?Sized>(tree: &T, files: &[String]) -> (Vec<String>, Source) {
    // Every kustomization file in one pass: the walks that follow (roots
    // here, what each root reads later) read them one at a time.
    let named: Vec<String> = files
        .iter()
        .filter(|f| FILE_NAMES.contains(&f.rsplit_once('/').map_or(f.as_str(), |(_, n)| n)))
        .cloned()
        .collect();
    tree.read_ahead(&named);
    let dirs: BTreeSet<String> = files
        .iter()
        .flat_map(|f| {
            let mut out = Vec::new();
            let mut p = f.as_str();
            while let Some((d, _)) = p.rsplit_once('/') {
                out.push(d.to_string());
                p = d;
            }
            out
        })
        .collect();
    let gitops = gitops_roots(tree, files, &dirs);
    if let Some(roots) = gitops {
        return (roots, Source::GitOps);
    }
    (kustomization_roots(tree, files), Source::Kustomizations)
}

/// Kustomization directories that no other kustomization includes.
pub fn kustomization_roots<T: Tree + ?Sized>(tree: &T, files: &[String]) -> Vec<String> {
    let kdirs: BTreeSet<String> = files
        .iter()
        .filter_map(|f| {
            let (dir, name) = f.rsplit_once('/').unwrap_or(("", f));
            FILE_NAMES.contains(&name).then(|| dir.to_string())
        })
        .filter(|d| kustomization_file(tree, d).is_some_and(|f| parent(&f) == d))
        .collect();
    let mut walker = Walker::new(tree);
    let mut included = BTreeSet::new();
    for d in &kdirs {
        let r = walker.reach(d);
        included.extend(r.dirs.into_iter().filter(|x| x != d));
    }
    kdirs
        .into_iter()
        .filter(|d| !included.contains(d))
        .map(|d| if d.is_empty() { ".".into() } else { d })
        .collect()
}

/// The tree path of a root name (`.` is the top, `""`).
pub fn tree_path(root: &str) -> &str {
    if root == "." {
        ""
    } else {
        root
    }
}

fn parent(file: &str) -> &str {
    file.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Roots named by Argo CD and Flux objects; None when there are none.
fn gitops_roots<T: Tree + ?Sized>(
    tree: &T,
    files: &[String],
    dirs: &BTreeSet<String>,
) -> Option<Vec<String>> {
    let mut found = false;
    let mut paths = BTreeSet::new();
    let yaml_files: Vec<String> = files
        .iter()
        .filter(|f| f.ends_with(".yaml") || f.ends_with(".yml"))
        .cloned()
        .collect();
    let mentions_gitops = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        text.contains("argoproj.io") || text.contains("toolkit.fluxcd.io")
    };
    for (f, bytes) in tree.read_matching(&yaml_files, "gitops", &mentions_gitops) {
        let f = &f;
        let text = String::from_utf8_lossy(&bytes);
        let Ok(docs) = yaml::parse_stream(&text) else {
            tracing::warn!(file = %f, "not YAML; skipped while looking for Argo CD and Flux objects");
            continue;
        };
        for doc in &docs {
            let api = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
            let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
            let spec = doc.get("spec");
            match (api.split('/').next().unwrap_or(""), kind) {
                ("argoproj.io", "Application") => {
                    found = true;
                    paths.extend(source_paths(spec));
                }
                ("argoproj.io", "ApplicationSet") => {
                    found = true;
                    paths.extend(appset_paths(spec, dirs, f));
                }
                ("kustomize.toolkit.fluxcd.io", "Kustomization") => {
                    found = true;
                    if let Some(p) = spec.and_then(|s| s.get("path")).and_then(Value::as_str) {
                        paths.insert(p.to_string());
                    } else {
                        paths.insert(String::new());
                    }
                }
                _ => {}
            }
        }
    }
    if !found {
        return None;
    }
    let mut roots = BTreeSet::new();
    for p in paths {
        let root = crate::operations::render::roots::normalize(&p);
        if kustomization_file(tree, tree_path(&root)).is_some() {
            roots.insert(root);
        } else {
            tracing::warn!(path = %root, "an Argo CD or Flux object points here, but it has no kustomization file; not a root");
        }
    }
    Some(roots.into_iter().collect())
}

/// `source.path` and `sources[].path` of an Application spec.
fn source_paths(spec: Option<&Value>) -> Vec<String> {
    let Some(spec) = spec else { return Vec::new() };
    let mut out: Vec<String> = spec
        .get("source")
        .and_then(|s| s.get("path"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .into_iter()
        .collect();
    out.extend(
        spec.get("sources")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| s.get("path").and_then(Value::as_str).map(str::to_string)),
    );
    out
}

/// The paths an ApplicationSet's template takes, for its git directory
/// and list generators (others are skipped with a warning).
fn appset_paths(spec: Option<&Value>, dirs: &BTreeSet<String>, file: &str) -> Vec<String> {
    let Some(spec) = spec else { return Vec::new() };
    let templates = source_paths(spec.get("template").and_then(|t| t.get("spec")));
    let mut out = Vec::new();
    let generators = spec.get("generators").and_then(Value::as_array);
    for g in generators.into_iter().flatten() {
        if let Some(git) = g.get("git") {
            let globs = git.get("directories").and_then(Value::as_array);
            let (mut include, mut exclude) = (Vec::new(), Vec::new());
            for d in globs.into_iter().flatten() {
                let Some(p) = d.get("path").and_then(Value::as_str) else {
                    continue;
                };
                if d.get("exclude").and_then(Value::as_bool) == Some(true) {
                    exclude.push(p);
                } else {
                    include.push(p);
                }
            }
            if include.is_empty() {
                tracing::warn!(file, "ApplicationSet git generator without directories (files generators are not followed); skipped");
                continue;
            }
            for d in dirs {
                if include.iter().any(|p| glob_match(p, d))
                    && !exclude.iter().any(|p| glob_match(p, d))
                {
                    for t in &templates {
                        out.push(substitute_path(t, d));
                    }
                }
            }
        } else if let Some(list) = g.get("list") {
            for e in list
                .get("elements")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                for t in &templates {
                    out.push(substitute_elements(t, e));
                }
            }
        } else {
            tracing::warn!(
                file,
                "ApplicationSet generator other than git directories or list; skipped"
            );
        }
    }
    out.retain(|p| !p.contains("{{"));
    out
}

/// A template path with a git directory generator's parameters filled in
/// (both the plain and the Go-template spellings).
fn substitute_path(template: &str, dir: &str) -> String {
    let segments: Vec<&str> = dir.split('/').collect();
    let base = segments.last().copied().unwrap_or("");
    fill(template, |expr| {
        let expr = expr.trim_start_matches('.');
        match expr {
            "path" | "path.path" => Some(dir.to_string()),
            "path.basename" => Some(base.to_string()),
            "path.basenameNormalized" => Some(normalized(base)),
            _ => {
                let index = expr
                    .strip_prefix("path[")
                    .and_then(|r| r.strip_suffix(']'))
                    .or_else(|| expr.strip_prefix("index .path.segments "))
                    .or_else(|| expr.strip_prefix("index path.segments "));
                index
                    .and_then(|i| i.trim().parse::<usize>().ok())
                    .and_then(|i| segments.get(i))
                    .map(|s| s.to_string())
            }
        }
    })
}

/// A template path with a list element's values filled in.
fn substitute_elements(template: &str, element: &Value) -> String {
    fill(template, |expr| {
        let key = expr.trim_start_matches('.');
        let mut v = element;
        for part in key.split('.') {
            v = v.get(part)?;
        }
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    })
}

/// Replace each `{{ expr }}` that `f` knows; leave the others.
fn fill(template: &str, f: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start..].find("}}") else {
            break;
        };
        out.push_str(&rest[..start]);
        let expr = rest[start + 2..start + len].trim();
        match f(expr) {
            Some(v) => out.push_str(&v),
            None => out.push_str(&rest[start..start + len + 2]),
        }
        rest = &rest[start + len + 2..];
    }
    out.push_str(rest);
    out
}

/// Argo CD's basenameNormalized: characters other than [a-zA-Z0-9-.] become '-'.
fn normalized(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// Go's `path.Match`: `*` and `?` never match `/`; `[...]` classes.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    fn go(p: &[char], n: &[char]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some('*') => (0..=n.len())
                .take_while(|&i| i == 0 || n[i - 1] != '/')
                .any(|i| go(&p[1..], &n[i..])),
            Some('?') => !n.is_empty() && n[0] != '/' && go(&p[1..], &n[1..]),
            Some('[') => {
                let Some(end) = p.iter().skip(1).position(|&c| c == ']').map(|e| e + 1) else {
                    return false;
                };
                let Some(&c) = n.first() else { return false };
                let class = &p[1..end];
                let (neg, class) = match class.first() {
                    Some('^') | Some('!') => (true, &class[1..]),
                    _ => (false, class),
                };
                let mut hit = false;
                let mut i = 0;
                while i < class.len() {
                    if i + 2 < class.len() && class[i + 1] == '-' {
                        hit |= class[i] <= c && c <= class[i + 2];
                        i += 3;
                    } else {
                        hit |= class[i] == c;
                        i += 1;
                    }
                }
                hit != neg && c != '/' && go(&p[end + 1..], &n[1..])
            }
            Some('\\') if p.len() > 1 => !n.is_empty() && n[0] == p[1] && go(&p[2..], &n[1..]),
            Some(&c) => !n.is_empty() && n[0] == c && go(&p[1..], &n[1..]),
        }
    }
    go(&p, &n)
}

/// The files below `top` on the file system (hidden directories skipped),
/// as tree paths.
pub fn list_files(top: &std::path::Path) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    let mut todo = vec![(top.to_path_buf(), String::new())];
    while let Some((dir, rel)) = todo.pop() {
        let rd = std::fs::read_dir(&dir)
            .map_err(|e| Error::new(format!("listing {}: {e}", dir.display())))?;
        for entry in rd.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_dir() {
                if !name.starts_with('.') {
                    todo.push((entry.path(), path));
                }
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The roots below `top` on the file system (for `kustom render` without
/// roots), as paths relative to it.
pub fn roots_below(top: &std::path::Path) -> Result<Vec<String>, Error> {
    let tree = crate::operations::render::reach::FsTree::new(top)
        .map_err(|e| Error::new(format!("{}: {e}", top.display())))?;
    let files = list_files(&tree.top)?;
    let (roots, _) = discover(&tree, &files);
    if roots.is_empty() {
        return Err(Error::new(format!(
            "no kustomization directory below {}; name the roots to build, or pass --roots FILE",
            top.display()
        )));
    }
    Ok(roots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_follow_go_path_match() {
        assert!(glob_match("apps/*", "apps/web"));
        assert!(!glob_match("apps/*", "apps/web/base"));
        assert!(glob_match("apps/*/overlays/prod", "apps/web/overlays/prod"));
        assert!(glob_match("apps/[a-c]?", "apps/b1"));
        assert!(!glob_match("apps/[^a-c]?", "apps/b1"));
        assert!(glob_match("*", "x"));
    }

    #[test]
    fn templates_are_filled() {
        assert_eq!(
            substitute_path("{{path}}/overlays/prod", "apps/web"),
            "apps/web/overlays/prod"
        );
        assert_eq!(substitute_path("{{.path.path}}", "apps/web"), "apps/web");
        assert_eq!(
            substitute_path("x/{{ path.basename }}", "apps/web"),
            "x/web"
        );
        assert_eq!(substitute_path("{{path[0]}}", "apps/web"), "apps");
        assert_eq!(
            substitute_elements("envs/{{env}}", &serde_json::json!({"env": "prod"})),
            "envs/prod"
        );
    }
}
