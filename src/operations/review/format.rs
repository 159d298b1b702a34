//! How a diff is shown: a unified YAML diff per resource (Secrets' values
//! masked), as text (coloured on a terminal) or JSON; markdown comments
//! are [`super::comment`]'s.

use super::report::{Change, Report, ResourceChange, RootReport, Status};
use crate::plugin_host::audit::MASK;
use kustom_api::Value;
use std::fmt::Write;

/// `base` and `head` (one resource at both revisions, either may be
/// absent) with the values of a Secret's `data` and `stringData` masked:
/// `***` for every value, and at head `*** (changed)` where the value
/// differs from base's, so that a review sees which keys were added,
/// removed or changed (the line differs) and never a value.
pub fn mask_secrets(base: Option<Value>, head: Option<Value>) -> (Option<Value>, Option<Value>) {
    let (mut base, mut head) = (base, head);
    for field in ["data", "stringData"] {
        let b = base.as_ref().and_then(|v| v.get(field)).cloned();
        mask_map(base.as_mut(), field, None);
        mask_map(head.as_mut(), field, b.as_ref());
    }
    (base, head)
}

/// Mask the values of `v`'s `field` (when `v` is a Secret); with `base`
/// (base's values of the same field), mark those that differ from it.
fn mask_map(v: Option<&mut Value>, field: &str, base: Option<&Value>) {
    let Some(v) = v else { return };
    if v.get("kind").and_then(Value::as_str) != Some("Secret") {
        return;
    }
    let Some(map) = v.get_mut(field).and_then(Value::as_object_mut) else {
        return;
    };
    for (k, val) in map.iter_mut() {
        let changed = base.and_then(|o| o.get(k)).is_some_and(|ov| ov != val);
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

/// A resource's id as shown: `apps/v1 Deployment prod/web`, and for a
/// rename `v1 ConfigMap app-b5g778hd6d → app-782t6ck7kc`.
pub fn resource_label(r: &ResourceChange) -> String {
    let ns = if r.namespace.is_empty() {
        String::new()
    } else {
        format!("{}/", r.namespace)
    };
    match &r.from {
        Some(from) => format!("{} {} {ns}{from} → {}", r.api_version, r.kind, r.name),
        None => format!("{} {} {ns}{}", r.api_version, r.kind, r.name),
    }
}

/// How a root's status is written.
pub fn status_word(s: Status) -> &'static str {
    match s {
        Status::Changed => "changed",
        Status::Added => "added",
        Status::Removed => "removed",
        Status::Unchanged => "unchanged",
        Status::Failed => "failed",
    }
}

/// A root's resources added, removed and changed (modified or renamed).
pub fn counts(r: &RootReport) -> (usize, usize, usize) {
    let n = |c: Change| r.resources.iter().filter(|x| x.change == c).count();
    (
        n(Change::Added),
        n(Change::Removed),
        n(Change::Modified) + n(Change::Renamed),
    )
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
                let by = if res.change == Change::Removed {
                    "made at base by"
                } else {
                    "set by"
                };
                let _ = writeln!(out, "# {} {}: {by}", resource_label(res), word(res.change));
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
    let shown = report
        .roots
        .iter()
        .filter(|r| r.status != Status::Unchanged)
        .count();
    if shown == 0 {
        let _ = writeln!(
            out,
            "no differences ({}..{})",
            short(&report.base),
            short(&report.head)
        );
    }
    for line in triage_lines(report) {
        let _ = writeln!(out, "{}", paint("1", &line));
    }
    out
}

/// The triage lines of the text format: hidden changes, changed images
/// and risk flags.
fn triage_lines(report: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let hidden = report.hidden();
    if hidden > 0 {
        out.push(format!("{hidden} change{} hidden by rules", plural(hidden)));
    }
    for i in report.images() {
        out.push(format!("image {} -> {}", i.old, i.new));
    }
    for r in &report.roots {
        for risk in &r.risks {
            out.push(format!("RISK {}: {}: {}", r.root, risk.resource, risk.flag));
        }
    }
    out
}

/// "s" unless `n` is 1.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// How a resource's change is written.
pub fn word(c: Change) -> &'static str {
    match c {
        Change::Added => "added",
        Change::Removed => "removed",
        Change::Modified => "modified",
        Change::Renamed => "renamed",
    }
}

/// A revision as shown: a commit's first 7 hex digits.
pub fn short(rev: &str) -> &str {
    if rev.len() == 40 {
        &rev[..7]
    } else {
        rev
    }
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
        assert_eq!(b.unwrap()["data"], json!({"a": "***", "b": "***"}));
        assert_eq!(
            h.unwrap()["data"],
            json!({"a": "***", "b": "*** (changed)", "c": "***"})
        );
    }
}
