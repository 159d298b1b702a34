//! The README and the guide under `docs/` hold together: every relative
//! link and `#anchor` resolves (with GitHub's heading slugs), every guide
//! page is in the index, every `kustom` command in the README's shell
//! blocks is one kustom has (its subcommands and long flags checked against
//! `--help`), and the README's example build works with an empty
//! `$XDG_CONFIG_HOME`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every Markdown page of `docs/`.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of `text` outside fenced code blocks, with their 1-based
/// numbers.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<&str> = None;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m && trimmed.trim_end() == m => fence = None,
            (None, None) => lines.push((i + 1, line)),
            _ => {}
        }
    }
    lines
}

/// The fenced code blocks of `text` whose info string is one of `infos`:
/// (first line number, body).
fn fenced_blocks<'t>(text: &'t str, infos: &[&str]) -> Vec<(usize, Vec<&'t str>)> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, bool, Vec<&str>)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some((i + 2, infos.contains(&info.trim()), Vec::new()));
                }
            }
            Some((start, wanted, body)) => {
                if trimmed == "```" {
                    if *wanted {
                        blocks.push((*start, std::mem::take(body)));
                    }
                    open = None;
                } else {
                    body.push(line);
                }
            }
        }
    }
    blocks
}

/// A heading's anchor as GitHub makes it: the text lower-cased, links
/// reduced to their text, every character but letters, digits, `_`, `-`
/// and spaces dropped, spaces turned into `-`.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // `[text](url)` → text
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|c| open + c) else {
            break;
        };
        let Some(end) = rest[close..].find(')').map(|e| close + e) else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..close]);
        rest = &rest[end + 1..];
    }
    text.push_str(rest);
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor of a Markdown page, duplicates numbered `-1`, `-2`, … as
/// GitHub numbers them.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.len() - line.trim_start_matches('#').len();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(line[hashes..].trim().trim_end_matches('#'));
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// The link targets of a prose line (inline code spans left out).
fn link_targets(line: &str) -> Vec<String> {
    let mut prose = String::new();
    for (i, part) in line.split('`').enumerate() {
        if i % 2 == 0 {
            prose.push_str(part);
        }
    }
    let mut targets = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        targets.push(after[..end].trim().to_string());
        rest = &after[end..];
    }
    targets
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = read(&page);
        let dir = page.parent().expect("a page's directory");
        for (line_no, line) in prose_lines(&text) {
            for target in link_targets(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (path, anchor) = match target.split_once('#') {
                    Some((p, a)) => (p, Some(a)),
                    None => (target.as_str(), None),
                };
                let file = if path.is_empty() {
                    page.clone()
                } else {
                    dir.join(path)
                };
                let at = format!("{}:{line_no}: {target}", page.display());
                if !file.exists() {
                    problems.push(format!("{at}: no such file"));
                    continue;
                }
                let Some(anchor) = anchor else { continue };
                if file.extension().is_none_or(|e| e != "md") {
                    problems.push(format!("{at}: an anchor into a file that is not Markdown"));
                } else if !anchors(&read(&file)).contains(anchor) {
                    problems.push(format!("{at}: no heading with this anchor"));
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} relative links found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_guide_page_is_in_the_index() {
    let index = read(&root().join("docs/README.md"));
    let linked: BTreeSet<String> = prose_lines(&index)
        .into_iter()
        .flat_map(|(_, line)| link_targets(line))
        .map(|t| t.split('#').next().unwrap_or_default().to_string())
        .collect();
    let missing: Vec<String> = pages()
        .iter()
        .filter_map(|p| p.strip_prefix(root().join("docs")).ok())
        .map(|p| p.display().to_string())
        .filter(|p| p != "README.md" && !linked.contains(p))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/README.md does not link {missing:?}"
    );
}

#[test]
fn the_slug_rules_are_githubs() {
    assert_eq!(
        slug("Review a change: `kustom render` and `kustom diff`"),
        "review-a-change-kustom-render-and-kustom-diff"
    );
    assert_eq!(
        slug("What blocks what (as root and as a user)"),
        "what-blocks-what-as-root-and-as-a-user"
    );
    assert_eq!(slug("KEP plugins (native)"), "kep-plugins-native");
    assert_eq!(slug("See [the lock](x.md)"), "see-the-lock");
    assert_eq!(slug("Version, completion, help"), "version-completion-help");
    let twice = anchors("# A\n## What it costs\n```\n# not a heading\n```\n## What it costs\n");
    assert_eq!(
        twice.into_iter().collect::<Vec<_>>(),
        ["a", "what-it-costs", "what-it-costs-1"]
    );
}

fn kustom(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kustom"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run kustom")
}

/// The subcommands a `--help` text lists under `Commands:`.
fn subcommands(help: &str) -> BTreeSet<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .map(|w| w.trim_end_matches(',').to_string())
        .collect()
}

/// The words of one shell command line: quotes removed, `#` comments and
/// everything after a pipe, `;`, `&&`, `||` or redirection dropped.
fn command_words(line: &str) -> Vec<String> {
    let line = line.trim().trim_start_matches("$ ");
    let mut words = Vec::new();
    for word in line.split_whitespace() {
        if word.starts_with('#') || ["|", "||", "&&", ";", ">", ">>", "<", "2>"].contains(&word) {
            break;
        }
        words.push(word.trim_matches(|c| c == '\'' || c == '"').to_string());
    }
    words
}

/// Check one `kustom ARGS` against kustom's help: each word that names a
/// subcommand where the help lists some must be one of them, and each
/// long flag must appear in the help of the command it is given to.
fn check_kustom_command(args: &[String], at: &str, problems: &mut Vec<String>) {
    let mut path: Vec<String> = Vec::new();
    let help_of = |path: &[String]| -> String {
        let mut argv: Vec<&str> = path.iter().map(String::as_str).collect();
        argv.push("--help");
        let out = kustom(&argv);
        assert!(out.status.success(), "kustom {argv:?} failed");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let mut help = help_of(&path);
    let mut commands = subcommands(&help);
    for arg in args {
        if let Some(flag) = arg.strip_prefix("--") {
            let name = flag.split('=').next().unwrap_or_default();
            if !help.contains(&format!("--{name}")) {
                problems.push(format!(
                    "{at}: `kustom {}` has no flag --{name}",
                    path.join(" ")
                ));
            }
            continue;
        }
        if arg.starts_with('-') || commands.is_empty() {
            continue;
        }
        if !commands.contains(arg) {
            problems.push(format!(
                "{at}: `kustom {}` has no subcommand {arg:?} (it has {commands:?})",
                path.join(" ")
            ));
            return;
        }
        path.push(arg.clone());
        help = help_of(&path);
        commands = subcommands(&help);
    }
    if path.is_empty() {
        problems.push(format!("{at}: no subcommand"));
    }
}

#[test]
fn the_readmes_commands_are_kustoms() {
    let readme = read(&root().join("README.md"));
    let mut problems = Vec::new();
    let mut checked = 0;
    for (start, body) in fenced_blocks(&readme, &["sh", "shell", "bash", "console"]) {
        for (i, line) in body.iter().enumerate() {
            let words = command_words(line);
            let at = format!("README.md:{}", start + i);
            let args = match words.first().map(String::as_str) {
                Some("kustom") => &words[1..],
                Some("cargo") if words.get(1).is_some_and(|w| w == "run") => {
                    match words.iter().position(|w| w == "--") {
                        Some(dash) => &words[dash + 1..],
                        None => continue,
                    }
                }
                _ => continue,
            };
            checked += 1;
            check_kustom_command(args, &at, &mut problems);
        }
    }
    assert!(
        checked >= 8,
        "only {checked} kustom commands found in the README"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_readmes_example_builds_with_an_empty_config_home() {
    let readme = read(&root().join("README.md"));
    let config_home = std::env::temp_dir().join(format!("kustom-docs-xdg-{}", std::process::id()));
    std::fs::create_dir_all(&config_home).expect("config home");
    let mut built = 0;
    for (_, body) in fenced_blocks(&readme, &["sh"]) {
        for line in body {
            let words = command_words(line);
            if words.first().map(String::as_str) != Some("cargo")
                || words.get(1).map(String::as_str) != Some("run")
            {
                continue;
            }
            let dash = words
                .iter()
                .position(|w| w == "--")
                .expect("cargo run -- ARGS");
            let out = Command::new(env!("CARGO_BIN_EXE_kustom"))
                .args(&words[dash + 1..])
                .current_dir(root())
                .env("XDG_CONFIG_HOME", &config_home)
                .env_remove("KUSTOMIZE_PLUGIN_HOME")
                .output()
                .expect("run kustom");
            assert!(
                out.status.success(),
                "{line}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                String::from_utf8_lossy(&out.stdout).contains("kind: "),
                "{line}: no resources printed"
            );
            built += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&config_home);
    assert_eq!(
        built, 1,
        "the README's example build (cargo run --release -- build …)"
    );
}
