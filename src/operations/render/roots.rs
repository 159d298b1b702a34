//! Naming roots: `--roots FILE` lists, `--shard K/N` selection, and where
//! a root's output goes below `-o OUTDIR`.

use kustom_api::Error;
use std::path::{Component, Path, PathBuf};

/// Roots listed in a file: one path per line; blank lines and lines
/// starting with `#` are skipped.
pub fn read_roots_file(path: &Path) -> Result<Vec<String>, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::new(format!("--roots {}: {e}", path.display())))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(normalize)
        .collect())
}

/// A root as written, without `./` and trailing `/` (`.` for the top).
pub fn normalize(root: &str) -> String {
    let parts: Vec<&str> = root
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.is_empty() {
        if root.starts_with('/') {
            "/".into()
        } else {
            ".".into()
        }
    } else if root.starts_with('/') {
        format!("/{}", parts.join("/"))
    } else {
        parts.join("/")
    }
}

/// `--shard K/N`: the K-th of N deterministic parts of the roots (K from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This part, 1..=n.
    pub k: usize,
    /// The number of parts.
    pub n: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?}: want K/N with 1 <= K <= N, e.g. 2/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl Shard {
    /// The roots of this shard: the roots are sorted by name and dealt
    /// round-robin, so every job of a matrix given the same roots takes a
    /// disjoint part of them and together they take all.
    pub fn select<T: Clone>(&self, roots: &[T], name: impl Fn(&T) -> &str) -> Vec<T> {
        let mut order: Vec<&T> = roots.iter().collect();
        order.sort_by(|a, b| name(a).cmp(name(b)));
        order.dedup_by(|a, b| name(a) == name(b));
        order
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.n == self.k - 1)
            .map(|(_, r)| r.clone())
            .collect()
    }
}

/// Where the output of `root` goes below `out`: `OUTDIR/ROOT`, refused for
/// a root that climbs above the current directory.
pub fn output_dir(out: &Path, root: &str) -> Result<PathBuf, Error> {
    let mut dir = out.to_path_buf();
    for c in Path::new(root).components() {
        match c {
            Component::Normal(p) => dir.push(p),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                return Err(Error::new(format!(
                    "root {root:?} climbs above the current directory, so it has no place below {}; run kustom render from a directory that contains it",
                    out.display()
                )))
            }
        }
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_disjoint_and_cover_everything() {
        let roots: Vec<String> = (0..10).map(|i| format!("app{i}")).collect();
        let mut all: Vec<String> = (1..=3)
            .flat_map(|k| Shard { k, n: 3 }.select(&roots, |r| r))
            .collect();
        all.sort();
        let mut want = roots.clone();
        want.sort();
        assert_eq!(all, want);
        assert_eq!(Shard { k: 1, n: 3 }.select(&roots, |r| r).len(), 4);
        assert!("0/2".parse::<Shard>().is_err());
        assert!("3/2".parse::<Shard>().is_err());
        assert_eq!("2/2".parse::<Shard>(), Ok(Shard { k: 2, n: 2 }));
    }

    #[test]
    fn roots_are_normalized_and_kept_below_the_output() {
        assert_eq!(normalize("./apps/x/"), "apps/x");
        assert_eq!(normalize("./"), ".");
        assert_eq!(
            output_dir(Path::new("out"), "apps/x").unwrap(),
            PathBuf::from("out/apps/x")
        );
        assert!(output_dir(Path::new("out"), "../x").is_err());
    }
}
