//! Noise rules: what `kustom diff` hides, and counts. A rule is a
//! resource glob, `GROUP/KIND/NAMESPACE/NAME` (`*` matches any run of
//! characters; the core group is `core` or empty, a cluster-scoped
//! resource's namespace is empty), hiding every change to the resources it
//! matches; or a field path, `.metadata.annotations[checksum/*]`, hiding
//! that field in every resource; or both, `GLOB:.PATH`, hiding the field in
//! the resources the glob matches.
//!
//! A path is `.`-separated keys; `[KEY]` (or `["KEY"]`) for a key with dots
//! or slashes; `*` in a key matches any run of characters (and any list
//! index); `[N]` a list index; `**` any number of levels.
//!
//! Rules come from `--ignore`, from the repository's `.kustom/diff.yaml`
//! (so CI and people see the same diff), and with `--ignore-defaults` the
//! usual Helm noise ([`DEFAULTS`]).

use kustom_api::{Error, Value};

/// The repository file read by default, relative to the repository's top.
pub const RULES_FILE: &str = ".kustom/diff.yaml";

/// The rules `--ignore-defaults` adds: Helm's chart and app-version
/// labels and annotations, and `checksum/*` annotations (config hashes
/// that change with every config change already shown).
pub const DEFAULTS: &[&str] = &[
    ".**.metadata.annotations[helm.sh/chart]",
    ".**.metadata.labels[helm.sh/chart]",
    ".**.metadata.annotations[app.kubernetes.io/version]",
    ".**.metadata.labels[app.kubernetes.io/version]",
    ".**.metadata.annotations[checksum/*]",
];

/// A resource's id as rules see it.
#[derive(Debug, Clone, Copy)]
pub struct Id<'a> {
    /// `apiVersion`.
    pub api_version: &'a str,
    /// `kind`.
    pub kind: &'a str,
    /// `metadata.namespace`, "" when none.
    pub namespace: &'a str,
    /// `metadata.name`.
    pub name: &'a str,
}

/// Parsed rules.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    resources: Vec<Glob4>,
    fields: Vec<(Option<Glob4>, Vec<Seg>)>,
}

#[derive(Debug, Clone)]
struct Glob4([String; 4]);

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    /// A key (or index) glob.
    Key(String),
    /// Any number of levels.
    Deep,
}

/// What the repository's rules file says.
#[derive(Debug, Clone, Default)]
pub struct RulesFile {
    /// `ignore:` rules.
    pub ignore: Vec<String>,
    /// `ignoreDefaults: true`.
    pub ignore_defaults: bool,
}

/// Read a rules file's text (`name` for errors).
pub fn read_rules_file(text: &str, name: &str) -> Result<RulesFile, Error> {
    let what = |msg: String| {
        Error::new(format!(
            "{name}: {msg}; it holds `ignore:` (a list of rules) and `ignoreDefaults:` (true or false)"
        ))
    };
    let docs = kustom_api::yaml::parse_stream(text).map_err(|e| what(e.to_string()))?;
    let mut out = RulesFile::default();
    for doc in docs.iter().filter(|d| !d.is_null()) {
        let Some(m) = doc.as_object() else {
            return Err(what("not a mapping".into()));
        };
        for (k, v) in m {
            match (k.as_str(), v) {
                ("ignore", Value::Array(a)) => {
                    for r in a {
                        match r.as_str() {
                            Some(s) => out.ignore.push(s.to_string()),
                            None => return Err(what(format!("ignore: {r} is not a string"))),
                        }
                    }
                }
                ("ignore", Value::Null) => {}
                ("ignoreDefaults", Value::Bool(b)) => out.ignore_defaults = *b,
                (k, _) => return Err(what(format!("unexpected `{k}`"))),
            }
        }
    }
    Ok(out)
}

impl Rules {
    /// Parse `rules`, each with where it came from (for errors), and
    /// [`DEFAULTS`] with `defaults`.
    pub fn parse(rules: &[(String, String)], defaults: bool) -> Result<Rules, Error> {
        let mut out = Rules::default();
        let all = rules.iter().map(|(r, o)| (r.as_str(), o.as_str())).chain(
            DEFAULTS
                .iter()
                .filter(|_| defaults)
                .map(|r| (*r, "--ignore-defaults")),
        );
        for (rule, origin) in all {
            let bad = |msg: &str| {
                Error::new(format!(
                    "{origin}: ignore rule `{rule}`: {msg}; write GROUP/KIND/NAMESPACE/NAME (a resource glob), .FIELD.PATH, or GLOB:.FIELD.PATH"
                ))
            };
            let (glob, path) = if let Some(p) = rule.strip_prefix('.') {
                (None, Some(p))
            } else {
                match rule.split_once(":.") {
                    Some((g, p)) => (Some(g), Some(p)),
                    None => (Some(rule), None),
                }
            };
            let glob = match glob {
                Some(g) => {
                    let parts: Vec<&str> = g.split('/').collect();
                    let [a, b, c, d] = parts[..] else {
                        return Err(bad("a resource glob has four parts"));
                    };
                    Some(Glob4([a, b, c, d].map(str::to_string)))
                }
                None => None,
            };
            match path {
                Some(p) => {
                    let segs = parse_path(p).map_err(|m| bad(&m))?;
                    out.fields.push((glob, segs));
                }
                None => out.resources.extend(glob),
            }
        }
        Ok(out)
    }

    /// Whether there are no rules.
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty() && self.fields.is_empty()
    }

    /// Whether every change to the resource `id` is hidden.
    pub fn hides(&self, id: Id<'_>) -> bool {
        self.resources.iter().any(|g| g.matches(id))
    }

    /// Remove the fields the rules name from both sides of one resource;
    /// the number of them that differed (the changes hidden).
    pub fn strip(&self, id: Id<'_>, base: Option<&mut Value>, head: Option<&mut Value>) -> usize {
        let (mut base, mut head) = (base, head);
        let mut hidden = 0;
        for (glob, segs) in &self.fields {
            if glob.as_ref().is_some_and(|g| !g.matches(id)) {
                continue;
            }
            let mut paths = Vec::new();
            for v in [base.as_deref(), head.as_deref()].into_iter().flatten() {
                find(v, segs, &mut Vec::new(), &mut paths);
            }
            // Deepest and last first, so that removing an element does not
            // move the ones still to remove.
            paths.sort_by(|a, b| compare_paths(b, a));
            paths.dedup();
            for p in &paths {
                let at = |v: &Option<&mut Value>| v.as_deref().and_then(|v| get(v, p)).cloned();
                if at(&base) != at(&head) {
                    hidden += 1;
                }
                for v in [base.as_deref_mut(), head.as_deref_mut()]
                    .into_iter()
                    .flatten()
                {
                    remove(v, p);
                }
            }
        }
        hidden
    }
}

impl Glob4 {
    fn matches(&self, id: Id<'_>) -> bool {
        let group = id.api_version.rsplit_once('/').map_or("", |(g, _)| g);
        let g = &self.0;
        (glob(&g[0], group) || (group.is_empty() && g[0] == "core"))
            && glob(&g[1], id.kind)
            && glob(&g[2], id.namespace)
            && glob(&g[3], id.name)
    }
}

/// `*` matches any run of characters; everything else itself.
fn glob(pattern: &str, s: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == s;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !s.starts_with(first) || s.len() < first.len() + last.len() || !s.ends_with(last) {
        return false;
    }
    let mut rest = &s[first.len()..s.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

fn parse_path(p: &str) -> Result<Vec<Seg>, String> {
    let mut segs = Vec::new();
    let mut rest = p;
    let mut first = true;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']').ok_or("a `[` without `]`")?;
            let key = r[..close].trim_matches('"');
            segs.push(Seg::Key(key.to_string()));
            rest = &r[close + 1..];
        } else {
            if !first {
                rest = rest.strip_prefix('.').ok_or("keys are separated by `.`")?;
            }
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            let key = &rest[..end];
            if key.is_empty() {
                return Err("an empty key".into());
            }
            segs.push(if key == "**" {
                Seg::Deep
            } else {
                Seg::Key(key.to_string())
            });
            rest = &rest[end..];
        }
        first = false;
    }
    if segs.is_empty() {
        return Err("an empty path".into());
    }
    Ok(segs)
}

/// Push the paths below `at` in `v` that `segs` match.
fn find(v: &Value, segs: &[Seg], at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let Some((seg, rest)) = segs.split_first() else {
        out.push(at.clone());
        return;
    };
    let children: Vec<(String, &Value)> = match v {
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v)).collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => Vec::new(),
    };
    match seg {
        Seg::Deep => {
            find(v, rest, at, out);
            for (k, c) in children {
                at.push(k);
                find(c, segs, at, out);
                at.pop();
            }
        }
        Seg::Key(pattern) => {
            for (k, c) in children {
                if glob(pattern, &k) {
                    at.push(k);
                    find(c, rest, at, out);
                    at.pop();
                }
            }
        }
    }
}

fn compare_paths(a: &[String], b: &[String]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x.parse::<usize>(), y.parse::<usize>()) {
            (Ok(i), Ok(j)) => i.cmp(&j),
            _ => x.cmp(y),
        };
        if o.is_ne() {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

fn get<'v>(v: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(v, |v, k| match v {
        Value::Object(m) => m.get(k),
        Value::Array(a) => a.get(k.parse::<usize>().ok()?),
        _ => None,
    })
}

/// Remove `path` from `v`; a mapping or list left empty by it goes too.
fn remove(v: &mut Value, path: &[String]) -> bool {
    let Some((k, rest)) = path.split_first() else {
        return false;
    };
    let child_gone = |c: &mut Value| {
        if rest.is_empty() {
            return true;
        }
        remove(c, rest)
            && match c {
                Value::Object(m) => m.is_empty(),
                Value::Array(a) => a.is_empty(),
                _ => false,
            }
    };
    match v {
        Value::Object(m) => {
            let gone = m.get_mut(k).is_some_and(child_gone);
            if gone {
                m.remove(k);
            }
            gone
        }
        Value::Array(a) => {
            let i = k.parse::<usize>().ok().filter(|&i| i < a.len());
            let gone = i.is_some_and(|i| child_gone(&mut a[i]));
            if let (true, Some(i)) = (gone, i) {
                a.remove(i);
            }
            gone
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id<'a>(kind: &'a str, ns: &'a str, name: &'a str) -> Id<'a> {
        Id {
            api_version: if kind == "Deployment" {
                "apps/v1"
            } else {
                "v1"
            },
            kind,
            namespace: ns,
            name,
        }
    }

    fn rules(r: &[&str], defaults: bool) -> Rules {
        let r: Vec<(String, String)> = r.iter().map(|x| (x.to_string(), "test".into())).collect();
        Rules::parse(&r, defaults).unwrap()
    }

    #[test]
    fn resource_globs_match_group_kind_namespace_and_name() {
        let r = rules(
            &["core/ConfigMap/*/legacy-*", "apps/*/kube-system/*"],
            false,
        );
        assert!(r.hides(id("ConfigMap", "prod", "legacy-x")));
        assert!(!r.hides(id("ConfigMap", "prod", "x")));
        assert!(r.hides(id("Deployment", "kube-system", "dns")));
        assert!(!r.hides(id("Deployment", "prod", "dns")));
        let bad = Rules::parse(
            &[("Deployment/web".into(), ".kustom/diff.yaml".into())],
            false,
        );
        let msg = bad.unwrap_err().to_string();
        assert!(
            msg.contains(".kustom/diff.yaml") && msg.contains("four parts"),
            "{msg}"
        );
    }

    #[test]
    fn field_rules_remove_fields_and_count_what_differed() {
        let r = rules(&[], true);
        let mut b = json!({"metadata": {"labels": {"helm.sh/chart": "x-1", "app": "a"}},
            "spec": {"template": {"metadata": {"annotations": {"checksum/config": "aaa"}}}}});
        let mut h = json!({"metadata": {"labels": {"helm.sh/chart": "x-2", "app": "a"}},
            "spec": {"template": {"metadata": {"annotations": {"checksum/config": "bbb"}}}}});
        let n = r.strip(id("Deployment", "", "web"), Some(&mut b), Some(&mut h));
        assert_eq!(n, 2);
        assert_eq!(b, h);
        // Mappings left empty go too.
        assert_eq!(b, json!({"metadata": {"labels": {"app": "a"}}}));
        // Scoped to some resources, with a list index glob.
        let r = rules(
            &["apps/Deployment/*/*:.spec.template.spec.containers[*].image"],
            false,
        );
        let mut b = json!({"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "x:1"}]}}}});
        let mut h = json!({"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "x:2"}]}}}});
        assert_eq!(
            r.strip(id("Deployment", "", "w"), Some(&mut b), Some(&mut h)),
            1
        );
        assert_eq!(b, h);
        let mut h2 = json!({"spec": {"x": 1}});
        assert_eq!(r.strip(id("ConfigMap", "", "w"), None, Some(&mut h2)), 0);
    }

    #[test]
    fn the_rules_file_is_read_and_bad_ones_named() {
        let f = read_rules_file(
            "ignore:\n- .metadata.labels[x]\nignoreDefaults: true\n",
            "f.yaml",
        )
        .unwrap();
        assert_eq!(f.ignore, [".metadata.labels[x]"]);
        assert!(f.ignore_defaults);
        let e = read_rules_file("ignor: []\n", ".kustom/diff.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(".kustom/diff.yaml") && e.contains("ignor"),
            "{e}"
        );
    }
}
