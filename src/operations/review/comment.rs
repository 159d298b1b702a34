//! `kustom diff --format markdown`: pull-request comments that never
//! break. The output is one or more numbered parts, each at most the
//! comment limit in bytes (GitHub caps a comment at 65,536 characters) and
//! each standing alone: every code fence and `<details>` block opened in a
//! part is closed in it. Part 1 holds the triage summary and names every
//! changed root; the roots' sections follow, a root that does not fit
//! continuing in the next part. A single resource diff larger than a part
//! is cut at a line, with a note of how much was left out, where the cut is.

use super::format::{counts, plural, resource_label, short, status_word, word};
use super::report::{Report, ResourceChange, RootReport, Status};
use kustom_api::Error;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// GitHub's limit on a comment's length (characters; kustom counts bytes,
/// which are never fewer).
pub const COMMENT_LIMIT: usize = 65_536;

/// The smallest limit accepted: room for a part's header, a section's
/// frame and a few lines of diff.
pub const MIN_LIMIT: usize = 2_048;

/// Bytes kept in each part for its header and footer.
const FRAME: usize = 320;

/// The comment parts of `report`, each at most `limit` bytes (at least
/// [`MIN_LIMIT`]).
pub fn parts(report: &Report, limit: usize) -> Vec<String> {
    let limit = limit.max(MIN_LIMIT);
    let budget = limit - FRAME;
    let changed: Vec<&RootReport> = report
        .roots
        .iter()
        .filter(|r| r.status != Status::Unchanged)
        .collect();
    let mut bodies = pack_lines(&summary(report, &changed), budget);
    let mut cur = bodies.pop().unwrap_or_default();
    for root in &changed {
        let mut open = false;
        let opening = |continued: bool| {
            let (a, d, m) = counts(root);
            format!(
                "<details><summary><code>{}</code>: {} (+{a} −{d} ~{m}){}</summary>\n\n",
                root.root,
                status_word(root.status),
                if continued { " (continued)" } else { "" }
            )
        };
        const CLOSING: &str = "</details>\n\n";
        let mut blocks: Vec<String> = Vec::new();
        if let Some(e) = &root.error {
            blocks.push(format!("```\n{}\n```\n\n", e.replace("```", "'''")));
        }
        blocks.extend(root.resources.iter().map(block));
        if blocks.is_empty() {
            blocks.push(String::new());
        }
        for (i, b) in blocks.into_iter().enumerate() {
            let frame = if open { 0 } else { opening(i > 0).len() } + CLOSING.len();
            if cur.len() + frame + b.len() > budget {
                if open {
                    cur.push_str(CLOSING);
                    open = false;
                }
                if !cur.is_empty() {
                    bodies.push(std::mem::take(&mut cur));
                }
            }
            if !open {
                cur.push_str(&opening(i > 0));
                open = true;
            }
            let room = budget.saturating_sub(cur.len() + CLOSING.len());
            if b.len() > room {
                cur.push_str(&cut(&b, room));
            } else {
                cur.push_str(&b);
            }
        }
        if open {
            cur.push_str(CLOSING);
        }
    }
    bodies.push(cur);
    let n = bodies.len();
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| frame(report, body, i + 1, n))
        .collect()
}

/// A part with its header (parts after the first) and footer (all but the last).
fn frame(report: &Report, body: String, i: usize, n: usize) -> String {
    let mut out = String::new();
    if i > 1 {
        let _ = write!(
            out,
            "### kustom diff, part {i} of {n}\n\n`{}` → `{}`\n\n",
            short(&report.base),
            short(&report.head)
        );
        out.push_str(&body);
    } else if n > 1 {
        // The summary's title names the parts.
        out.push_str(&body.replacen(
            "\n\n",
            &format!(" (part 1 of {n}; the diff continues in the next parts)\n\n"),
            1,
        ));
    } else {
        out.push_str(&body);
    }
    if i < n {
        let _ = writeln!(out, "*Continued in part {} of {n}.*", i + 1);
    }
    out
}

/// The triage summary: title, totals, the table of changed roots, the
/// changed images and the risk flags.
fn summary(report: &Report, changed: &[&RootReport]) -> Vec<Line> {
    let mut out = Vec::new();
    let hidden = report.hidden();
    let n = changed.len();
    let range = format!("`{}` → `{}`", short(&report.base), short(&report.head));
    if n == 0 {
        out.push(Line::text("### kustom diff: no changes\n\n".into()));
        let mut s = format!("{range}: no rendered manifest changes.");
        if hidden > 0 {
            let _ = write!(s, " {hidden} change{} hidden by rules.", plural(hidden));
        }
        out.push(Line::text(format!("{s}\n")));
        return out;
    }
    out.push(Line::text(format!(
        "### kustom diff: {n} root{} differ{}\n\n",
        plural(n),
        if n == 1 { "s" } else { "" }
    )));
    let resources: usize = changed.iter().map(|r| r.resources.len()).sum();
    let (plus, minus) = changed
        .iter()
        .fold((0, 0), |(a, b), r| (a + r.lines.added, b + r.lines.removed));
    let mut totals = format!(
        "{range} · {resources} resource{} changed · +{plus} −{minus} lines",
        plural(resources)
    );
    if hidden > 0 {
        let _ = write!(
            totals,
            " · {hidden} change{} hidden by rules",
            plural(hidden)
        );
    }
    out.push(Line::text(format!("{totals}\n\n")));
    out.push(Line::text(
        "| root | status | added | removed | changed | lines |\n".into(),
    ));
    out.push(Line::text("|---|---|---:|---:|---:|---:|\n".into()));
    for r in changed {
        let (a, d, m) = counts(r);
        out.push(Line::row(format!(
            "| `{}` | {} | {a} | {d} | {m} | +{} −{} |\n",
            r.root,
            status_word(r.status),
            r.lines.added,
            r.lines.removed
        )));
    }
    out.push(Line::text("\n".into()));
    let images = report.images();
    if !images.is_empty() {
        out.push(Line::text("**Changed images**\n\n".into()));
        for i in images {
            out.push(Line::text(format!("- `{}` → `{}`\n", i.old, i.new)));
        }
        out.push(Line::text("\n".into()));
    }
    let risks: Vec<String> = changed
        .iter()
        .flat_map(|r| {
            r.risks
                .iter()
                .map(move |x| format!("- :warning: `{}`: {} — {}\n", r.root, x.resource, x.flag))
        })
        .collect();
    if !risks.is_empty() {
        out.push(Line::text("**Risk flags**\n\n".into()));
        out.extend(risks.into_iter().map(Line::text));
        out.push(Line::text("\n".into()));
    }
    out
}

/// A line of the summary; table rows repeat the table's header when they
/// continue in another part.
struct Line {
    text: String,
    row: bool,
}

impl Line {
    fn text(text: String) -> Line {
        Line { text, row: false }
    }
    fn row(text: String) -> Line {
        Line { text, row: true }
    }
}

/// The summary's lines packed into bodies of at most `budget` bytes (one
/// body unless the summary alone is larger than a part).
fn pack_lines(lines: &[Line], budget: usize) -> Vec<String> {
    const TABLE: &str =
        "| root | status | added | removed | changed | lines |\n|---|---|---:|---:|---:|---:|\n";
    let mut bodies = Vec::new();
    let mut cur = String::new();
    for l in lines {
        if cur.len() + l.text.len() > budget && !cur.is_empty() {
            cur.push_str("\n*The summary continues in the next part.*\n\n");
            bodies.push(std::mem::take(&mut cur));
            if l.row {
                cur.push_str(TABLE);
            }
        }
        cur.push_str(&l.text);
    }
    bodies.push(cur);
    bodies
}

/// One resource: what happened, its credits and its diff.
fn block(res: &ResourceChange) -> String {
    let mut s = format!("**{}** {}\n\n", word(res.change), resource_label(res));
    if !res.explain.is_empty() {
        for c in &res.explain {
            let field = if c.field.is_empty() {
                "(whole resource)"
            } else {
                &c.field
            };
            let at = if c.kustomization.is_empty() {
                String::new()
            } else {
                format!("`{}` ", c.kustomization)
            };
            let _ = writeln!(s, "- `{field}` ← {at}{}", c.entry);
        }
        s.push('\n');
    }
    if !res.diff.is_empty() {
        let _ = writeln!(s, "```diff\n{}```\n", res.diff.replace("```", "'''"));
    }
    s
}

/// `block` cut at a line so that it fits `room` bytes, its code fence
/// closed, with a note of what was left out.
fn cut(block: &str, room: usize) -> String {
    let lines: Vec<&str> = block.split_inclusive('\n').collect();
    let note = |n: usize, bytes: usize| {
        format!(
            "```\n\n> [!NOTE]\n> Cut here: {n} more line{} ({bytes} bytes) of this diff do not fit in a comment. Run `kustom diff` locally or read the JSON report for all of it.\n\n",
            plural(n)
        )
    };
    // The longest note that can be needed.
    let reserve = note(lines.len(), block.len()).len();
    let mut kept = String::new();
    let mut i = 0;
    while i < lines.len() && kept.len() + lines[i].len() + reserve <= room {
        kept.push_str(lines[i]);
        i += 1;
    }
    let left: usize = lines[i..].iter().map(|l| l.len()).sum();
    let in_fence = !kept.matches("```").count().is_multiple_of(2);
    if in_fence {
        kept.push_str(&note(lines.len() - i, left));
    } else {
        // Cut before the fence opened (a long list of credits).
        kept.push_str(&note(lines.len() - i, left)[4..]);
    }
    kept
}

/// Write `parts` as `dir/comment-1.md`, `comment-2.md`, …: all or none.
/// They are written into a new directory beside `dir`, then renamed to
/// it; an existing `dir` may hold only earlier comment parts, which the
/// new ones replace.
pub fn write_parts(dir: &Path, parts: &[String]) -> Result<(), Error> {
    let what = |e: &dyn std::fmt::Display| Error::new(format!("-o {}: {e}", dir.display()));
    if dir.exists() {
        let entries = std::fs::read_dir(dir).map_err(|e| what(&e))?;
        for e in entries {
            let name = e.map_err(|e| what(&e))?.file_name();
            let name = name.to_string_lossy();
            let part = name
                .strip_prefix("comment-")
                .and_then(|n| n.strip_suffix(".md"))
                .is_some_and(|n| n.parse::<usize>().is_ok());
            if !part {
                return Err(what(&format!(
                    "it holds {name}, which is not a comment part; give a new or empty directory"
                )));
            }
        }
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| what(&e))?;
    let tmp = tempfile::Builder::new()
        .prefix(".kustom-comments-")
        .tempdir_in(&parent)
        .map_err(|e| what(&e))?;
    for (i, p) in parts.iter().enumerate() {
        let f = tmp.path().join(format!("comment-{}.md", i + 1));
        std::fs::write(&f, p).map_err(|e| what(&e))?;
    }
    // The earlier parts move aside until the new ones are in place.
    let old = if dir.exists() {
        let aside = tempfile::Builder::new()
            .prefix(".kustom-comments-old-")
            .tempdir_in(&parent)
            .map_err(|e| what(&e))?;
        let aside_dir = aside.path().join("old");
        std::fs::rename(dir, &aside_dir).map_err(|e| what(&e))?;
        Some((aside, aside_dir))
    } else {
        None
    };
    if let Err(e) = std::fs::rename(tmp.path(), dir) {
        if let Some((_, aside_dir)) = &old {
            let _ = std::fs::rename(aside_dir, dir);
        }
        return Err(what(&e));
    }
    // Renamed away: nothing left for the guard to remove.
    let _ = tmp.keep();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operations::review::report::{Change, Lines};

    fn resource(name: &str, diff_lines: usize) -> ResourceChange {
        let diff: String = (0..diff_lines)
            .map(|i| format!("+  key{i}: value-{i}\n"))
            .collect();
        ResourceChange {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            namespace: String::new(),
            name: name.into(),
            change: Change::Added,
            from: None,
            diff: format!("--- a\n+++ b\n{diff}"),
            explain: Vec::new(),
        }
    }

    fn report(roots: usize, resources: usize, lines: usize) -> Report {
        Report {
            base: "a".repeat(40),
            head: "b".repeat(40),
            roots: (0..roots)
                .map(|r| RootReport {
                    root: format!("apps/app{r}"),
                    status: Status::Changed,
                    error: None,
                    resources: (0..resources)
                        .map(|i| resource(&format!("cm{i}"), lines))
                        .collect(),
                    lines: Lines::default(),
                    images: Vec::new(),
                    risks: Vec::new(),
                    hidden: 0,
                })
                .collect(),
        }
    }

    fn balanced(part: &str) -> bool {
        part.matches("```").count().is_multiple_of(2)
            && part.matches("<details>").count() == part.matches("</details>").count()
    }

    #[test]
    fn parts_fit_stand_alone_and_name_every_root_in_part_one() {
        let r = report(12, 8, 60);
        let parts = parts(&r, 8_000);
        assert!(parts.len() > 3, "{}", parts.len());
        for (i, p) in parts.iter().enumerate() {
            assert!(p.len() <= 8_000, "part {} has {} bytes", i + 1, p.len());
            assert!(balanced(p), "part {} is not balanced:\n{p}", i + 1);
        }
        for root in &r.roots {
            assert!(parts[0].contains(&format!("`{}`", root.root)));
        }
        assert!(parts[0].contains(&format!("(part 1 of {};", parts.len())));
        assert!(parts[1].starts_with(&format!("### kustom diff, part 2 of {}", parts.len())));
        // Every resource is in some part.
        let all = parts.concat();
        for i in 0..8 {
            assert!(all.contains(&format!("ConfigMap cm{i}\n")));
        }
    }

    #[test]
    fn a_diff_larger_than_a_part_is_cut_at_a_line_and_says_so() {
        let r = report(1, 1, 2_000);
        let parts = parts(&r, 10_000);
        for p in &parts {
            assert!(p.len() <= 10_000 && balanced(p), "{}", p.len());
        }
        let with_cut = parts
            .iter()
            .find(|p| p.contains("Cut here"))
            .expect("a note");
        let note = &with_cut[with_cut.find("Cut here: ").unwrap()..];
        let n: usize = note["Cut here: ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let shown = with_cut.matches("+  key").count();
        // The 2,000 lines of diff, and the fence's closing lines after them.
        assert_eq!(shown + n, 2_002, "{shown} shown, {n} left out");
        // Cut at a line boundary: the last kept line is whole.
        let before = &with_cut[..with_cut.find("```\n\n> [!NOTE]").unwrap()];
        let last = before.lines().last().unwrap();
        assert!(
            last.starts_with("+  key") && last.contains(": value-"),
            "{last}"
        );
    }

    #[test]
    fn parts_are_written_all_or_none() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("out");
        write_parts(&dir, &["a".into(), "b".into()]).unwrap();
        write_parts(&dir, &["c".into()]).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["comment-1.md"]);
        assert_eq!(
            std::fs::read_to_string(dir.join("comment-1.md")).unwrap(),
            "c"
        );
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        let e = write_parts(&dir, &["d".into()]).unwrap_err().to_string();
        assert!(e.contains("notes.txt"), "{e}");
        assert_eq!(
            std::fs::read_to_string(dir.join("comment-1.md")).unwrap(),
            "c"
        );
        // Nothing left beside it.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    #[test]
    fn no_change_is_one_short_comment() {
        let r = report(0, 0, 0);
        let parts = parts(&r, COMMENT_LIMIT);
        assert_eq!(parts.len(), 1);
        assert!(
            parts[0].len() < 200 && parts[0].contains("no rendered manifest changes"),
            "{}",
            parts[0]
        );
    }
}
