//! `kustom diff --format html`: one self-contained page (no network, no
//! external script, style or font) with the triage summary on top and a
//! tree of roots and resources, each resource's diff folded, that a text
//! box filters. Values are masked as in the other formats (the report
//! holds masked diffs only).

use super::format::{counts, plural, resource_label, short, status_word, word};
use super::report::{Report, Status};
use std::fmt::Write;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;color:#1f2328}\
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:2px 8px}\
td.n{text-align:right}ul{list-style:none;padding-left:1.2em}\
pre{background:#f6f8fa;padding:8px;overflow-x:auto}.add{color:#116329;background:#dafbe1}\
.del{color:#82071e;background:#ffebe9}.hunk{color:#0550ae}.risk{color:#9a6700}\
#filter{width:30em;padding:4px;margin:1em 0}summary{cursor:pointer}";

/// The filter: a root shows when its path or one of its resources
/// matches; a resource when it or its root matches. `#filter=TEXT` in the
/// address fills the box.
const SCRIPT: &str = "(function(){var box=document.getElementById('filter');\
function apply(){var q=box.value.toLowerCase();\
document.querySelectorAll('#tree>li.root').forEach(function(root){\
var rootHit=root.dataset.name.toLowerCase().indexOf(q)>=0;var any=false;\
root.querySelectorAll('li.resource').forEach(function(r){\
var hit=rootHit||r.dataset.name.toLowerCase().indexOf(q)>=0;r.hidden=!hit;any=any||hit;});\
root.hidden=!(rootHit||any);});}\
box.addEventListener('input',apply);\
var given=new URLSearchParams(location.hash.slice(1)).get('filter');\
if(given!==null){box.value=given;}apply();})();";

/// Escape text for HTML content and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The HTML report of `report`.
pub fn html(report: &Report) -> String {
    let changed: Vec<_> = report
        .roots
        .iter()
        .filter(|r| r.status != Status::Unchanged)
        .collect();
    let range = format!("{} → {}", short(&report.base), short(&report.head));
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\
<title>kustom diff {}</title><style>{STYLE}</style></head><body>\n<h1>kustom diff</h1>\n<p><code>{}</code></p>\n",
        esc(&range),
        esc(&range)
    );
    // The triage summary.
    s.push_str("<section id=\"summary\">\n");
    let hidden = report.hidden();
    let n = changed.len();
    let _ = write!(s, "<p>{n} root{} changed", plural(n));
    if hidden > 0 {
        let _ = write!(s, "; {hidden} change{} hidden by rules", plural(hidden));
    }
    s.push_str(".</p>\n");
    if n > 0 {
        s.push_str("<table><tr><th>root</th><th>status</th><th>added</th><th>removed</th><th>changed</th><th>lines</th></tr>\n");
        for r in &changed {
            let (a, d, m) = counts(r);
            let _ = writeln!(
                s,
                "<tr><td><code>{}</code></td><td>{}</td><td class=n>{a}</td><td class=n>{d}</td><td class=n>{m}</td><td class=n>+{} −{}</td></tr>",
                esc(&r.root),
                status_word(r.status),
                r.lines.added,
                r.lines.removed
            );
        }
        s.push_str("</table>\n");
    }
    let images = report.images();
    if !images.is_empty() {
        s.push_str("<h2>Changed images</h2><ul id=\"images\">\n");
        for i in images {
            let _ = writeln!(
                s,
                "<li><code>{}</code> → <code>{}</code></li>",
                esc(&i.old),
                esc(&i.new)
            );
        }
        s.push_str("</ul>\n");
    }
    let risky: Vec<_> = changed
        .iter()
        .flat_map(|r| r.risks.iter().map(move |x| (r, x)))
        .collect();
    if !risky.is_empty() {
        s.push_str("<h2>Risk flags</h2><ul id=\"risks\">\n");
        for (r, x) in risky {
            let _ = writeln!(
                s,
                "<li class=risk><code>{}</code>: {} — {}</li>",
                esc(&r.root),
                esc(&x.resource),
                esc(&x.flag)
            );
        }
        s.push_str("</ul>\n");
    }
    s.push_str("</section>\n");
    // The tree.
    s.push_str("<input id=\"filter\" type=\"search\" placeholder=\"Filter roots and resources\" aria-label=\"Filter\">\n<ul id=\"tree\">\n");
    for r in &changed {
        let (a, d, m) = counts(r);
        let _ = writeln!(
            s,
            "<li class=\"root\" data-name=\"{}\"><details open><summary><code>{}</code>: {} (+{a} −{d} ~{m})</summary>",
            esc(&r.root),
            esc(&r.root),
            status_word(r.status)
        );
        if let Some(e) = &r.error {
            let _ = writeln!(s, "<pre class=\"error\">{}</pre>", esc(e));
        }
        s.push_str("<ul>\n");
        for res in &r.resources {
            let label = resource_label(res);
            let _ = write!(
                s,
                "<li class=\"resource\" data-name=\"{}\"><details><summary>{} {}</summary>",
                esc(&label),
                word(res.change),
                esc(&label)
            );
            if !res.explain.is_empty() {
                s.push_str("<ul class=\"explain\">");
                for c in &res.explain {
                    let field = if c.field.is_empty() {
                        "(whole resource)"
                    } else {
                        &c.field
                    };
                    let _ = write!(
                        s,
                        "<li><code>{}</code> ← <code>{}</code> {}</li>",
                        esc(field),
                        esc(&c.kustomization),
                        esc(&c.entry)
                    );
                }
                s.push_str("</ul>");
            }
            s.push_str("<pre class=\"diff\">");
            for line in res.diff.lines() {
                let class = if line.starts_with("+++") || line.starts_with("---") {
                    ""
                } else if line.starts_with('+') {
                    "add"
                } else if line.starts_with('-') {
                    "del"
                } else if line.starts_with("@@") {
                    "hunk"
                } else {
                    ""
                };
                let _ = writeln!(s, "<span class=\"{class}\">{}</span>", esc(line));
            }
            s.push_str("</pre></details></li>\n");
        }
        s.push_str("</ul></details></li>\n");
    }
    s.push_str("</ul>\n");
    let _ = write!(s, "<script>{SCRIPT}</script>\n</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operations::review::report::{Change, Lines, ResourceChange, RootReport};

    #[test]
    fn text_is_escaped_and_nothing_is_fetched() {
        let r = Report {
            base: "a".repeat(40),
            head: "worktree".into(),
            roots: vec![RootReport {
                root: "apps/<x>".into(),
                status: Status::Changed,
                error: None,
                resources: vec![ResourceChange {
                    api_version: "v1".into(),
                    kind: "ConfigMap".into(),
                    namespace: String::new(),
                    name: "c".into(),
                    change: Change::Modified,
                    from: None,
                    diff: "-  a: \"<script>x</script>\"\n+  a: b\n".into(),
                    explain: Vec::new(),
                }],
                lines: Lines {
                    added: 1,
                    removed: 1,
                },
                images: Vec::new(),
                risks: Vec::new(),
                hidden: 0,
            }],
        };
        let page = html(&r);
        assert!(!page.contains("<script>x") && page.contains("&lt;script&gt;x"));
        assert!(page.contains("data-name=\"apps/&lt;x&gt;\""));
        assert!(!page.contains("src=") && !page.contains("href=") && !page.contains("@import"));
    }
}
