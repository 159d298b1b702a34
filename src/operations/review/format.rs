//! How a diff is shown: a unified YAML diff per resource (Secrets' values
//! masked), as text (coloured on a terminal), markdown for a pull-request
//! comment (under GitHub's 65,536-character cap), or JSON.

use super::report::{Change, Report, ResourceChange, RootReport, Status};
use crate::plugin_host::audit::MASK;
use kustom_api::Value;
use std::fmt::Write;

/// GitHub's limit on a comment's length.
pub const COMMENT_LIMIT: usize = 65_536;

/// `base` and `head` (one resource at both revisions, either may be
/// absent) with the values of a Secret's `data` and `stringData` masked: a
/// value the same at both sides shows as `***`, one that differs as
/// `*** (changed)`, so a review sees which keys changed and never a value.
pub fn mask_secrets(base: Option<Value>, head: Option<Value>) -> (Option<Value>, Option<Value>) {
    let (mut base, mut head) = (base, head);
    for field in ["data", "stringData"] {
        let b = base.as_ref().and_then(|v| v.get(field)).cloned();
        let h = head.as_ref().and_then(|v| v.get(field)).cloned();
        mask_map(base.as_mut(), field, h.as_ref());
        mask_map(head.as_mut(), field, b.as_ref());
    }
    (base, head)
}

fn mask_map(v: Option<&mut Value>, field: &str, other: Option<&Value>) {
    let Some(v) = v else { return };
    if v.get("kind").and_then(Value::as_str) != Some("Secret") {
        return;
    }
    let Some(map) = v.get_mut(field).and_then(Value::as_object_mut) else {
        return;
    };
    for (k, val) in map.iter_mut() {
        let changed = other.and_then(|o| o.get(k)).is_some_and(|ov| ov != val);
        *val = Value::String(if changed {
            format!("{MASK} (changed)")
        } else {
            MASK.to_string()
        });
    }
}

/// The unified diff of one resource's YAML (`a` at base, `b` at head).
pub fn unified(a: &str, b: &str, a_name: &str, b_name: &str) -> String {
    similar::TextDiff::from_lines(a, b)
        .unified_diff()
        .context_radius(3)
        .header(a_name, b_name)
        .to_string()
}

/// A resource's id as shown: `apps/v1 Deployment prod/web`.
pub fn resource_label(r: &ResourceChange) -> String {
    let ns = if r.namespace.is_empty() {
        String::new()
    } else {
        format!("{}/", r.namespace)
    };
    format!("{} {} {ns}{}", r.api_version, r.kind, r.name)
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Changed => "changed",
        Status::Added => "added",
        Status::Removed => "removed",
        Status::Unchanged => "unchanged",
        Status::Failed => "failed",
    }
}

fn counts(r: &RootReport) -> (usize, usize, usize) {
    let n = |c: Change| r.resources.iter().filter(|x| x.change == c).count();
    (n(Change::Added), n(Change::Removed), n(Change::Modified))
}

fn explain_lines(r: &ResourceChange, out: &mut String) {
    for c in &r.explain {
        let at = if c.kustomization.is_empty() {
            String::new()
        } else {
            format!("{}: ", c.kustomization)
        };
        let field = if c.field.is_empty() {
            "(whole resource)"
        } else {
            &c.field
        };
        let _ = writeln!(out, "#   {field} <- {at}{}", c.entry);
    }
}

/// The text format: per root a header, per resource its unified diff;
/// coloured with `color`.
pub fn text(report: &Report, color: bool) -> String {
    let paint = |code: &str, s: &str| {
        if color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    for root in &report.roots {
        let (a, r, m) = counts(root);
        let _ = writeln!(
            out,
            "{}",
            paint(
                "1",
                &format!(
                    "=== {} ({}: {a} added, {r} removed, {m} modified)",
                    root.root,
                    status_word(root.status)
                )
            )
        );
        if let Some(e) = &root.error {
            let _ = writeln!(out, "{}", paint("31", &format!("error: {e}")));
        }
        for res in &root.resources {
            if !res.explain.is_empty() {
                let _ = writeln!(
                    out,
                    "# {} {}: set by",
                    resource_label(res),
                    word(res.change)
                );
                explain_lines(res, &mut out);
            }
            for line in res.diff.lines() {
                let styled = if line.starts_with("+++") || line.starts_with("---") {
                    paint("1", line)
                } else if line.starts_with('+') {
                    paint("32", line)
                } else if line.starts_with('-') {
                    paint("31", line)
                } else if line.starts_with("@@") {
                    paint("36", line)
                } else {
                    line.to_string()
                };
                out.push_str(&styled);
                out.push('\n');
            }
        }
    }
    if report.roots.is_empty() {
        let _ = writeln!(
            out,
            "no differences ({}..{})",
            short(&report.base),
            short(&report.head)
        );
    }
    out
}

fn word(c: Change) -> &'static str {
    match c {
        Change::Added => "added",
        Change::Removed => "removed",
        Change::Modified => "modified",
    }
}

fn short(rev: &str) -> &str {
    if rev.len() == 40 {
        &rev[..7]
    } else {
        rev
    }
}

/// The markdown format: a summary table, then one collapsible section
/// per root, the whole under `limit` characters (GitHub's comment cap);
/// what does not fit is named in a note at the end.
pub fn markdown(report: &Report, limit: usize) -> String {
    let changed: Vec<&RootReport> = report
        .roots
        .iter()
        .filter(|r| r.status != Status::Unchanged)
        .collect();
    let mut head = String::new();
    let _ = writeln!(
        head,
        "### kustom diff: {} root{} differ{}\n",
        changed.len(),
        if changed.len() == 1 { "" } else { "s" },
        if changed.len() == 1 { "s" } else { "" }
    );
    let _ = writeln!(
        head,
        "`{}` → `{}`\n",
        short(&report.base),
        short(&report.head)
    );
    if changed.is_empty() {
        head.push_str("No rendered manifest changes.\n");
        return head;
    }
    // Room kept for the closing note.
    let reserve = 1_500.min(limit / 4);
    let budget = limit.saturating_sub(reserve);
    let mut table =
        String::from("| root | status | added | removed | modified |\n|---|---|---:|---:|---:|\n");
    let mut rows_left_out = 0;
    for r in &changed {
        let (a, d, m) = counts(r);
        let row = format!(
            "| `{}` | {} | {a} | {d} | {m} |\n",
            r.root,
            status_word(r.status)
        );
        if head.len() + table.len() + row.len() > budget / 2 {
            rows_left_out += 1;
        } else {
            table.push_str(&row);
        }
    }
    let mut out = head + &table + "\n";
    let mut left_out: Vec<&str> = Vec::new();
    let mut cut: Vec<&str> = Vec::new();
    for r in &changed {
        let section = section(r);
        if out.len() + section.len() <= budget && left_out.is_empty() {
            out.push_str(&section);
            continue;
        }
        // The first section that does not fit is cut at a line; the
        // ones after it are left out.
        let room = budget.saturating_sub(out.len());
        if left_out.is_empty() && cut.is_empty() && room > 600 {
            let closing = "\n… (cut here)\n```\n\n</details>\n\n";
            let mut part = String::new();
            for line in section.lines() {
                if part.len() + line.len() + 1 + closing.len() > room {
                    break;
                }
                part.push_str(line);
                part.push('\n');
            }
            // Close an open code block.
            if part.matches("```").count() % 2 == 1 {
                part.push_str(closing);
            } else {
                part.push_str("\n… (cut here)\n\n</details>\n\n");
            }
            out.push_str(&part);
            cut.push(&r.root);
        } else {
            left_out.push(&r.root);
        }
    }
    if rows_left_out > 0 || !left_out.is_empty() || !cut.is_empty() {
        let mut note = String::from(
            "> [!NOTE]\n> This comment is cut to fit GitHub's 65,536-character limit.",
        );
        if !cut.is_empty() {
            let _ = write!(note, " The diff of `{}` is cut.", cut[0]);
        }
        if rows_left_out > 0 {
            let _ = write!(note, " {rows_left_out} root(s) are missing from the table.");
        }
        if !left_out.is_empty() {
            let _ = write!(note, " {} root(s) left out:", left_out.len());
            for (i, name) in left_out.iter().enumerate() {
                let item = format!(" `{name}`");
                if note.len() + item.len() + 120 > reserve {
                    let _ = write!(note, " and {} more", left_out.len() - i);
                    break;
                }
                note.push_str(&item);
                if i + 1 < left_out.len() {
                    note.push(',');
                }
            }
            note.push('.');
        }
        note.push_str(" Run `kustom diff` locally or see the JSON report for everything.\n");
        out.push_str(&note);
    }
    out
}

/// One root's collapsible section.
fn section(r: &RootReport) -> String {
    let (a, d, m) = counts(r);
    let mut s = format!(
        "<details><summary><code>{}</code>: {} (+{a} −{d} ~{m})</summary>\n\n",
        r.root,
        status_word(r.status)
    );
    if let Some(e) = &r.error {
        let _ = writeln!(s, "```\n{}\n```\n", e.replace("```", "'''"));
    }
    for res in &r.resources {
        let _ = writeln!(s, "**{}** {}\n", word(res.change), resource_label(res));
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
    }
    s.push_str("</details>\n\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_show_which_keys_changed_never_values() {
        let b = json!({"kind": "Secret", "data": {"a": "MQ==", "b": "Mg=="}});
        let h = json!({"kind": "Secret", "data": {"a": "MQ==", "b": "Mw==", "c": "NA=="}});
        let (b, h) = mask_secrets(Some(b), Some(h));
        assert_eq!(
            b.unwrap()["data"],
            json!({"a": "***", "b": "*** (changed)"})
        );
        assert_eq!(
            h.unwrap()["data"],
            json!({"a": "***", "b": "*** (changed)", "c": "***"})
        );
    }
}
