//! Slash paths the way Go's `path/filepath` handles them, for the places
//! where kustomize's output shows a path it cleaned or joined.

/// Go's `filepath.Clean`: the shortest equivalent path, processed
/// lexically (`a//b/./c/..` → `a/b`; empty → `.`; `..` above `/` is `/`).
pub fn clean(path: &str) -> String {
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if rooted => {}
                _ => parts.push(".."),
            },
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// Go's `filepath.Join(base, rel)`: empty parts skipped, the rest joined
/// and cleaned; all empty gives "".
pub fn join(base: &str, rel: &str) -> String {
    match (base.is_empty(), rel.is_empty()) {
        (true, true) => String::new(),
        (true, false) => clean(rel),
        (false, true) => clean(base),
        (false, false) => clean(&format!("{base}/{rel}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleans_and_joins_like_go() {
        assert_eq!(clean(""), ".");
        assert_eq!(clean("a//b/./c/.."), "a/b");
        assert_eq!(clean("../../x"), "../../x");
        assert_eq!(clean("/../x/"), "/x");
        assert_eq!(join("", ""), "");
        assert_eq!(join("", "kustomization.yaml"), "kustomization.yaml");
        assert_eq!(join("../base", "../common/x.yaml"), "../common/x.yaml");
        assert_eq!(join("a/b", "../../.."), "..");
    }
}
