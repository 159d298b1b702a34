//! Which strings name a git repository, and how they split into clone URL,
//! directory inside the repository and query parameters — the rules of
//! kustomize v5.5.0's `RepoSpec` (api/internal/git/repospec.go), quirks
//! included, since they decide what a kustomization means.

use std::time::Duration;

/// kustomize's default `timeout` for a whole fetch.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(27);

const FILE: &str = "file://";
const HTTP: &str = "http://";
const HTTPS: &str = "https://";
const SSH: &str = "ssh://";

/// A git repository reference as written in a kustomization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoSpec {
    /// The string as written.
    pub raw: String,
    /// Scheme, user and host, with their separator (`https://github.com/`, `git@github.com:`).
    pub host: String,
    /// The repository path after the host (`org/repo`, `org/repo.git`).
    pub repo_path: String,
    /// The kustomization root inside the repository (may be empty).
    pub root: String,
    /// `ref` (or `version`); empty means the remote's HEAD.
    pub git_ref: String,
    /// `submodules` (default true).
    pub submodules: bool,
    /// `timeout` (default 27 s) for the whole fetch.
    pub timeout: Duration,
}

impl RepoSpec {
    /// Parse `url` as kustomize does; `Err` says why it is not a repository URL.
    pub fn parse(url: &str) -> Result<RepoSpec, String> {
        if url.starts_with('/') {
            return Err(format!("uri looks like abs path: {url}"));
        }
        let (rest, query) = url.split_once('?').unwrap_or((url, ""));
        let (git_ref, timeout, submodules) = parse_query(query);
        let (host, rest) = extract_host(rest)?;
        let segments = if host.starts_with(FILE) {
            None
        } else {
            Some(2)
        };
        let (repo_path, root) = split_path(&rest, segments)?;
        Ok(RepoSpec {
            raw: url.to_string(),
            host,
            repo_path,
            root,
            git_ref,
            submodules,
            timeout,
        })
    }

    /// What `git fetch` is given: host and repository path.
    pub fn clone_url(&self) -> String {
        format!("{}{}", self.host, self.repo_path)
    }

    /// The origin annotation's `path` for this repository: kustomize derives
    /// it from an uncloned spec whose directory is `/notCloned`, so a
    /// repository root shows as `notCloned`.
    pub fn origin_path(&self) -> String {
        let abs = kustom_api::paths::join("/notCloned", &self.root);
        let inner = &abs[1..];
        match inner.find('/') {
            Some(i) => inner[i + 1..].to_string(),
            None => inner.to_string(),
        }
    }

    /// Whether `git_ref` is a full commit id (fetched once, never re-resolved).
    pub fn ref_is_commit(&self) -> bool {
        is_commit_id(&self.git_ref)
    }
}

/// A full SHA-1 or SHA-256 commit id.
pub fn is_commit_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

pub use kustom_api::protocol::is_remote_file;

fn parse_query(query: &str) -> (String, Duration, bool) {
    let defaults = (String::new(), DEFAULT_TIMEOUT, true);
    let Some(values) = parse_form(query) else {
        return defaults;
    };
    let get = |k: &str| {
        values
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    };
    let git_ref = match get("ref") {
        "" => get("version").to_string(),
        r => r.to_string(),
    };
    let mut timeout = DEFAULT_TIMEOUT;
    let t = get("timeout");
    if !t.is_empty() {
        if let Ok(secs) = t.parse::<i64>() {
            if secs > 0 {
                timeout = Duration::from_secs(secs as u64);
            }
        } else if let Some(d) = go_duration(t) {
            timeout = d;
        }
    }
    let submodules = match get("submodules") {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => true,
        "0" | "f" | "F" | "FALSE" | "false" | "False" => false,
        _ => true,
    };
    (git_ref, timeout, submodules)
}

/// Go's `url.ParseQuery`: `None` on any malformed pair.
fn parse_form(query: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    for pair in query.split('&') {
        if pair.is_empty() {
            continue;
        }
        if pair.contains(';') {
            return None;
        }
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.push((unescape(k)?, unescape(v)?));
    }
    Some(out)
}

fn unescape(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Go's `time.ParseDuration` for positive durations (`1m30s`, `1.5h`, `500ms`).
fn go_duration(s: &str) -> Option<Duration> {
    let s = s.strip_prefix('+').unwrap_or(s);
    if s.is_empty() || s.starts_with('-') {
        return None;
    }
    let mut total = 0f64;
    let mut rest = s;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total += num * scale;
    }
    (total > 0.0).then(|| Duration::from_secs_f64(total))
}

fn extract_host(n: &str) -> Result<(String, String), String> {
    let n = strip_prefix_ignore_case(n, "git::").unwrap_or(n);
    let (scheme, n) = [SSH, HTTPS, HTTP, FILE]
        .iter()
        .find_map(|p| strip_prefix_ignore_case(n, p).map(|rest| (*p, rest)))
        .unwrap_or(("", n));
    let (user, n) = extract_user(n);
    let lower = n.to_ascii_lowercase();
    let std_github = lower.starts_with("github.com/") || lower.starts_with("github.com:");
    let accept_scp = scheme.is_empty() && (!user.is_empty() || std_github);
    if scheme.is_empty() && !accept_scp {
        return Err("failed to parse scheme".into());
    }
    if scheme == FILE {
        // file:// keeps a user part in the path.
        return Ok((FILE.to_string(), format!("{user}{n}")));
    }
    let mut sep = n.find('/');
    if accept_scp {
        if let Some(colon) = n.find(':') {
            if sep.is_none() || (colon > 0 && colon < sep.unwrap_or(usize::MAX)) {
                sep = Some(colon);
            }
        }
    }
    let (mut host, rest) = match sep {
        Some(i) => (n[..=i].to_string(), n[i + 1..].to_string()),
        None => (n.to_string(), String::new()),
    };
    let (mut scheme, mut user) = (scheme.to_string(), user.to_string());
    if std_github {
        if scheme.starts_with(SSH) || !user.is_empty() {
            scheme.clear();
            host = "github.com:".into();
        } else {
            scheme = HTTPS.into();
            user.clear();
            host = "github.com/".into();
        }
    }
    if host.is_empty() {
        return Err("failed to parse host segment".into());
    }
    Ok((format!("{scheme}{user}{host}"), rest))
}

fn extract_user(s: &str) -> (&str, &str) {
    let b = s.as_bytes();
    if b.first().is_some_and(|c| c.is_ascii_alphabetic()) {
        let end = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(s.len());
        if s[end..].starts_with('@') {
            return (&s[..=end], &s[end + 1..]);
        }
    }
    ("", s)
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

fn split_path(n: &str, segments: Option<usize>) -> Result<(String, String), String> {
    let split = explicit_split(n).or_else(|| match segments {
        None => Some((n.to_string(), String::new())),
        Some(k) => {
            let parts: Vec<&str> = n.split('/').collect();
            (parts.len() >= k).then(|| (parts[..k].join("/"), parts[k..].join("/")))
        }
    });
    let Some((repo, root)) = split.filter(|(r, _)| !r.is_empty()) else {
        return Err("failed to parse repo path segment".into());
    };
    let cleaned = kustom_api::paths::clean(root.strip_prefix('/').unwrap_or(&root));
    if cleaned.split('/').next() == Some("..") {
        return Err(format!("url path exits repo: {n}"));
    }
    Ok((repo, root.strip_prefix('/').unwrap_or(&root).to_string()))
}

fn explicit_split(n: &str) -> Option<(String, String)> {
    if let Some(i) = n.find("_git/") {
        let (head, tail) = n.split_at(i + "_git/".len());
        let mut parts = tail.split('/');
        let repo = parts.next().unwrap_or("");
        return Some((format!("{head}{repo}"), parts.collect::<Vec<_>>().join("/")));
    }
    if let Some(i) = n.find("//") {
        return Some((n[..i].to_string(), n[i + 2..].to_string()));
    }
    if let Some(i) = n.find(".git") {
        let end = i + ".git".len();
        return Some((n[..end].to_string(), n[end..].to_string()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(url: &str) -> (String, String, String, String) {
        let s = RepoSpec::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
        (s.host, s.repo_path, s.root, s.git_ref)
    }

    #[test]
    fn splits_the_usual_forms() {
        let t = |h: &str, r: &str, d: &str, f: &str| {
            (h.to_string(), r.to_string(), d.to_string(), f.to_string())
        };
        assert_eq!(
            parts("github.com/org/repo/deploy/prod?ref=v1"),
            t("https://github.com/", "org/repo", "deploy/prod", "v1")
        );
        assert_eq!(
            parts("git@github.com:org/repo.git/sub?version=main"),
            t("git@github.com:", "org/repo.git", "sub", "main")
        );
        assert_eq!(
            parts("https://gitlab.example.org/group/sub/repo.git//k8s?ref=abc&ref=x"),
            t(
                "https://gitlab.example.org/",
                "group/sub/repo.git",
                "k8s",
                "abc"
            )
        );
        assert_eq!(
            parts("https://dev.azure.com/org/project/_git/repo/path/to"),
            t(
                "https://dev.azure.com/",
                "org/project/_git/repo",
                "path/to",
                ""
            )
        );
        assert_eq!(
            parts("ssh://git@example.com/org/repo//x"),
            t("ssh://git@example.com/", "org/repo", "x", "")
        );
        assert_eq!(
            parts("ssh://github.com/org/repo"),
            t("github.com:", "org/repo", "", "")
        );
        assert_eq!(
            parts("file:///tmp/repos/base//overlay?ref=v2"),
            t("file://", "/tmp/repos/base", "overlay", "v2")
        );
        assert_eq!(
            parts("file:///tmp/repos/base"),
            t("file://", "/tmp/repos/base", "", "")
        );
        assert_eq!(
            parts("git::https://example.com/org/repo?ref=v1"),
            t("https://example.com/", "org/repo", "", "v1")
        );
        // The ".git" marker matches inside other names, as kustomize's does.
        assert_eq!(
            parts("https://example.com/a/org.github.io/x"),
            t("https://example.com/", "a/org.git", "hub.io/x", "")
        );
    }

    #[test]
    fn rejects_what_kustomize_rejects() {
        for bad in [
            "../base",
            "base",
            "gitlab.com/org/repo",
            "/abs/path",
            "https://example.com/repo",
            "ftp://example.com/org/repo",
            "https://example.com/org/repo//../x",
        ] {
            assert!(RepoSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn query_parameters() {
        let s = RepoSpec::parse("github.com/o/r?timeout=90&submodules=false").unwrap();
        assert_eq!(s.timeout, Duration::from_secs(90));
        assert!(!s.submodules);
        let s = RepoSpec::parse("github.com/o/r?timeout=1m30s&submodules=maybe").unwrap();
        assert_eq!(s.timeout, Duration::from_secs(90));
        assert!(s.submodules);
        let s = RepoSpec::parse("github.com/o/r?timeout=-3&ref=a;b").unwrap();
        assert_eq!((s.timeout, s.git_ref.as_str()), (DEFAULT_TIMEOUT, ""));
    }

    #[test]
    fn origin_paths_keep_the_not_cloned_quirk() {
        let s = RepoSpec::parse("github.com/o/r").unwrap();
        assert_eq!(s.origin_path(), "notCloned");
        let s = RepoSpec::parse("github.com/o/r/a/b?ref=x").unwrap();
        assert_eq!(s.origin_path(), "a/b");
    }

    #[test]
    fn remote_files() {
        assert!(is_remote_file("https://example.com/x.yaml"));
        assert!(is_remote_file("HTTP://example.com/x.yaml"));
        assert!(!is_remote_file("github.com/o/r"));
        assert!(!is_remote_file("./https://x"));
    }
}
