//! The CI recipes: the composite GitHub Action (`action.yml`) and the
//! GitLab CI template (`ci/gitlab/kustom-diff.gitlab-ci.yml`) both run
//! `ci/review/kustom-diff-comment.py`, which compares a pull request with
//! its merge base with `kustom diff` and keeps the markdown parts as
//! comments. Here their shell steps run as the platforms would run them, on
//! a scratch repository, against a stand-in comment API
//! (`tests/support/comment_api.py`): the comments must be the parts kustom
//! writes for the merge base and head (same count, text and order), a new
//! run edits them in place, a shorter diff deletes the parts it no longer
//! needs, other people's comments stay, and an API error names the call
//! and its status without showing the token. Needs python3 (skipped
//! visibly without it).

mod support;

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use support::{git, skip, Env};

/// The script's comment limit in the runs below: small, so that one diff
/// takes several parts.
const LIMIT: usize = 2560;
/// What the script keeps of each comment for its marker and the report
/// link (`RESERVE` in the script): kustom gets the rest as --comment-limit.
const RESERVE: usize = 512;
const BOT_TOKEN: &str = "test-bot-token-5f3a9c";
const ALICE_TOKEN: &str = "test-alice-token-77e1";

fn top() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn kustom_bin() -> &'static str {
    env!("CARGO_BIN_EXE_kustom")
}

fn python_present() -> bool {
    let found = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        skip("no python3: the CI recipes' script and its stand-in API were not run");
    }
    found
}

fn yaml(rel: &str) -> Value {
    let text = std::fs::read_to_string(top().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let mut docs = kustom_api::yaml::parse_stream(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert_eq!(docs.len(), 1, "{rel}: one YAML document");
    docs.remove(0)
}

// ------------------------------------------------------------ the API

/// The stand-in comment API, ended when dropped.
struct CommentApi {
    child: Child,
    url: String,
}

impl CommentApi {
    fn start() -> CommentApi {
        let mut child = Command::new("python3")
            .arg(top().join("tests/support/comment_api.py"))
            .args(["--page-size", "2"])
            .arg("--user")
            .arg(format!("{BOT_TOKEN}=kustom-bot:1"))
            .arg("--user")
            .arg(format!("{ALICE_TOKEN}=alice:2"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("start tests/support/comment_api.py");
        let mut port = String::new();
        BufReader::new(child.stdout.take().expect("its stdout"))
            .read_line(&mut port)
            .expect("read the port");
        let port: u16 = port
            .trim()
            .parse()
            .expect("the stand-in API prints its port");
        CommentApi {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    fn state(&self) -> Value {
        let text = ureq::get(&format!("{}/_state", self.url))
            .call()
            .expect("GET /_state")
            .into_string()
            .expect("state text");
        serde_json::from_str(&text).expect("state JSON")
    }

    /// The comments of a thread (`["github", "o/r", "7"]`), oldest first.
    fn comments(&self, thread: &[&str]) -> Vec<Value> {
        let state = self.state();
        state["comments"]
            .as_array()
            .expect("comments")
            .iter()
            .filter(|c| c["thread"] == serde_json::json!(thread))
            .cloned()
            .collect()
    }

    fn calls(&self) -> Vec<(String, String)> {
        self.state()["calls"]
            .as_array()
            .expect("calls")
            .iter()
            .map(|c| (c[0].as_str().unwrap().into(), c[1].as_str().unwrap().into()))
            .collect()
    }

    /// Send `body` (JSON) with a token, as GitHub (`Authorization`) or GitLab (`PRIVATE-TOKEN`) wants it.
    fn send(&self, method: &str, path: &str, token: &str, body: Option<Value>) {
        let mut req = ureq::request(method, &format!("{}{path}", self.url))
            .set("Authorization", &format!("Bearer {token}"))
            .set("PRIVATE-TOKEN", token);
        req = req.set("Content-Type", "application/json");
        let sent = match body {
            Some(b) => req.send_string(&b.to_string()),
            None => req.call(),
        };
        sent.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    }

    fn fail(&self, method: &str, path: &str, status: u16) {
        ureq::post(&format!("{}/_fail", self.url))
            .send_string(
                &serde_json::json!({"method": method, "path": path, "status": status}).to_string(),
            )
            .expect("POST /_fail");
    }

    fn stop_failing(&self) {
        ureq::delete(&format!("{}/_fail", self.url))
            .call()
            .expect("DELETE /_fail");
    }
}

impl Drop for CommentApi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ------------------------------------------------------ the repository

const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n";

/// A ConfigMap `settings` with `keys` long entries: enough of them make a
/// diff that needs several comment parts.
fn config_map(keys: usize) -> String {
    let mut s =
        String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n");
    for i in 0..keys {
        s.push_str(&format!(
            "  setting-{i:03}: a value long enough to fill a comment quickly {i}\n"
        ));
    }
    s
}

fn commit(repo: &Path, msg: &str) -> String {
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", msg, "--allow-empty"]);
    git(repo, &["rev-parse", "HEAD"]).trim().to_string()
}

fn write(repo: &Path, rel: &str, text: &str) {
    let p = repo.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// The commits of a pull request and its target branch.
struct Repo {
    dir: PathBuf,
    /// Where the pull request's branch left `main`: the merge base.
    fork: String,
    /// `main` after a later change to `apps/c`: the pull request's base commit.
    main: String,
    /// Changes `apps/web` and adds many settings to `apps/big`.
    big: String,
    /// `big`, with one more change to `apps/web`.
    bigger: String,
    /// `bigger` with `apps/big` back as it was: a short diff.
    short: String,
    /// Everything back as at `fork`: no change.
    none: String,
    /// `apps/web` broken (a missing resource): kustom diff fails.
    broken: String,
}

fn repo(env: &Env) -> Repo {
    let dir = env.root().join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    write(
        &dir,
        "apps/web/kustomization.yaml",
        "resources:\n- deploy.yaml\n",
    );
    write(&dir, "apps/web/deploy.yaml", DEPLOY);
    write(
        &dir,
        "apps/big/kustomization.yaml",
        "resources:\n- cm.yaml\n",
    );
    write(&dir, "apps/big/cm.yaml", &config_map(3));
    write(&dir, "apps/c/kustomization.yaml", "resources:\n- cm.yaml\n");
    write(&dir, "apps/c/cm.yaml", &config_map(1));
    let fork = commit(&dir, "fork");
    write(&dir, "apps/c/cm.yaml", &config_map(2));
    let main = commit(&dir, "main moves on");
    git(&dir, &["checkout", "-q", "-b", "pr", &fork]);
    write(
        &dir,
        "apps/web/kustomization.yaml",
        "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newTag: \"1.27\"\n",
    );
    write(&dir, "apps/big/cm.yaml", &config_map(60));
    let big = commit(&dir, "big");
    write(
        &dir,
        "apps/web/kustomization.yaml",
        "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newTag: \"1.28\"\n",
    );
    let bigger = commit(&dir, "bigger");
    write(&dir, "apps/big/cm.yaml", &config_map(3));
    let short = commit(&dir, "short");
    write(
        &dir,
        "apps/web/kustomization.yaml",
        "resources:\n- deploy.yaml\n",
    );
    let none = commit(&dir, "none");
    write(
        &dir,
        "apps/web/kustomization.yaml",
        "resources:\n- missing.yaml\n",
    );
    let broken = commit(&dir, "broken");
    Repo {
        dir,
        fork,
        main,
        big,
        bigger,
        short,
        none,
        broken,
    }
}

/// The parts `kustom diff` itself writes for base..head with the limit the
/// script gives it.
fn expected_parts(env: &Env, repo: &Repo, base: &str, head: &str) -> Vec<String> {
    let out = env.root().join("expected");
    let _ = std::fs::remove_dir_all(&out);
    let o = env
        .command(Path::new(kustom_bin()))
        .args(["diff", "-C"])
        .arg(&repo.dir)
        .args([
            "--base",
            base,
            "--head",
            head,
            "--explain",
            "--format",
            "markdown",
        ])
        .args(["--comment-limit", &(LIMIT - RESERVE).to_string(), "-o"])
        .arg(&out)
        .output()
        .expect("kustom diff");
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "kustom diff: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut parts = Vec::new();
    for k in 1.. {
        match std::fs::read_to_string(out.join(format!("comment-{k}.md"))) {
            Ok(t) => parts.push(t),
            Err(_) => break,
        }
    }
    parts
}

/// The script's comments on a thread, oldest first: (id, part text with
/// the marker line checked and taken off).
fn posted(api: &CommentApi, thread: &[&str], bot: &str) -> Vec<(u64, String)> {
    let comments = api.comments(thread);
    let mine: Vec<&Value> = comments.iter().filter(|c| c["user"][0] == bot).collect();
    let n = mine.len();
    mine.iter()
        .enumerate()
        .map(|(i, c)| {
            let body = c["body"].as_str().expect("body");
            assert!(
                body.len() <= LIMIT,
                "comment {} is {} bytes, over the limit {LIMIT}",
                c["id"],
                body.len()
            );
            let marker = format!("<!-- kustom-diff name=default part={}/{n} -->\n", i + 1);
            let text = body.strip_prefix(&marker).unwrap_or_else(|| {
                panic!("comment {} does not start with {marker:?}: {body}", c["id"])
            });
            (c["id"].as_u64().expect("id"), text.to_string())
        })
        .collect()
}

fn texts(comments: &[(u64, String)]) -> Vec<String> {
    comments.iter().map(|(_, t)| t.clone()).collect()
}

fn ids(comments: &[(u64, String)]) -> Vec<u64> {
    comments.iter().map(|(id, _)| *id).collect()
}

/// Calls made since `before` calls, as "METHOD" words.
fn methods_since(api: &CommentApi, before: usize) -> Vec<String> {
    api.calls()[before..]
        .iter()
        .map(|(m, _)| m.clone())
        .collect()
}

// ------------------------------------------------- the action's steps

/// What a run of the action's steps left.
struct ActionRun {
    /// The exit status of the step that failed, else 0.
    status: i32,
    /// Every step's STDOUT and STDERR.
    log: String,
    /// Each step's outputs, by step id.
    outputs: BTreeMap<String, BTreeMap<String, String>>,
}

/// Evaluates the `${{ }}` expressions `action.yml` uses; any other form
/// fails the test, so the action cannot grow one this runner ignores.
struct Expressions<'a> {
    inputs: &'a BTreeMap<String, String>,
    outputs: &'a BTreeMap<String, BTreeMap<String, String>>,
    runner_temp: &'a Path,
}

impl Expressions<'_> {
    fn value(&self, expr: &str) -> String {
        let expr = expr.trim();
        if let Some((a, b)) = expr.split_once("||") {
            let a = self.value(a);
            return if a.is_empty() { self.value(b) } else { a };
        }
        if let Some(name) = expr.strip_prefix("inputs.") {
            return self
                .inputs
                .get(name)
                .unwrap_or_else(|| {
                    panic!("action.yml uses inputs.{name}, which it does not declare")
                })
                .clone();
        }
        if let Some(rest) = expr.strip_prefix("steps.") {
            let (id, output) = rest
                .split_once(".outputs.")
                .unwrap_or_else(|| panic!("unsupported expression {expr}"));
            assert!(
                self.outputs.contains_key(id),
                "action.yml uses steps.{id} before (or without) a step with that id"
            );
            return self.outputs[id].get(output).cloned().unwrap_or_default();
        }
        match expr {
            "runner.temp" => self.runner_temp.display().to_string(),
            "github.token" => "the-default-github-token".into(),
            _ => panic!("unsupported expression {expr} in action.yml"),
        }
    }

    /// A string with each `${{ … }}` replaced.
    fn substitute(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").expect("a closed ${{") + start;
            out.push_str(&self.value(&rest[start + 3..end]));
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// A step's `if:` (a bare expression).
    fn condition(&self, cond: &str) -> bool {
        let cond = cond.trim();
        if let Some(a) = cond.strip_suffix("== ''") {
            return self.value(a).is_empty();
        }
        if let Some(a) = cond.strip_suffix("!= ''") {
            return !self.value(a).is_empty();
        }
        panic!("unsupported condition {cond} in action.yml")
    }
}

/// Run the action's `run:` steps as GitHub runs a composite action (bash
/// with `-eo pipefail`, the step's `env:`, outputs through
/// `$GITHUB_OUTPUT`); `uses:` steps are checked for their expressions and
/// skipped. `env` is the job's environment.
fn run_action(
    inputs: &[(&str, &str)],
    env: &[(String, String)],
    dir: &Path,
    scratch: &Path,
) -> ActionRun {
    let action = yaml("action.yml");
    assert_eq!(
        action["runs"]["using"], "composite",
        "action.yml: a composite action"
    );
    let runner_temp = scratch.join("runner-temp");
    std::fs::create_dir_all(&runner_temp).unwrap();
    let no_outputs = BTreeMap::new();
    let mut given: BTreeMap<String, String> = BTreeMap::new();
    for (name, spec) in action["inputs"].as_object().expect("inputs") {
        let default = spec["default"].as_str().unwrap_or("");
        let e = Expressions {
            inputs: &BTreeMap::new(),
            outputs: &no_outputs,
            runner_temp: &runner_temp,
        };
        given.insert(name.clone(), e.substitute(default));
    }
    for (name, value) in inputs {
        assert!(given.contains_key(*name), "action.yml has no input {name}");
        given.insert(name.to_string(), value.to_string());
    }
    let mut run = ActionRun {
        status: 0,
        log: String::new(),
        outputs: BTreeMap::new(),
    };
    for (i, step) in action["runs"]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .enumerate()
    {
        let id = step["id"]
            .as_str()
            .map_or(format!("step{i}"), str::to_string);
        let e = Expressions {
            inputs: &given,
            outputs: &run.outputs,
            runner_temp: &runner_temp,
        };
        let wanted = step["if"].as_str().is_none_or(|c| e.condition(c));
        if let Some(uses) = step["uses"].as_str() {
            assert!(uses.contains('@'), "{uses}: pin a version");
            for v in step["with"].as_object().into_iter().flatten() {
                e.substitute(v.1.as_str().unwrap_or(""));
            }
            run.outputs.insert(id, BTreeMap::new());
            continue;
        }
        let script = e.substitute(step["run"].as_str().expect("a run step"));
        assert_eq!(
            step["shell"], "bash",
            "step {id}: a composite step names its shell"
        );
        let step_env: Vec<(String, String)> = step["env"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), e.substitute(v.as_str().unwrap_or(""))))
            .collect();
        if !wanted || run.status != 0 {
            run.outputs.insert(id, BTreeMap::new());
            continue;
        }
        let output_file = scratch.join(format!("output-{id}"));
        std::fs::write(&output_file, "").unwrap();
        let o = Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &script])
            .current_dir(dir)
            .env_clear()
            .envs(env.iter().cloned())
            .env("RUNNER_TEMP", &runner_temp)
            .env("GITHUB_ACTION_PATH", top())
            .env("GITHUB_OUTPUT", &output_file)
            .envs(step_env)
            .output()
            .expect("bash");
        run.log.push_str(&String::from_utf8_lossy(&o.stdout));
        run.log.push_str(&String::from_utf8_lossy(&o.stderr));
        let outputs = std::fs::read_to_string(&output_file)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        run.outputs.insert(id, outputs);
        if !o.status.success() {
            run.status = o.status.code().unwrap_or(-1);
        }
    }
    run
}

/// The environment a job starts with: PATH and the scratch HOME, no proxy
/// (the stand-in API is on 127.0.0.1).
fn job_env(env: &Env) -> Vec<(String, String)> {
    vec![
        ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
        ("HOME".into(), env.home().display().to_string()),
        ("XDG_CONFIG_HOME".into(), env.xdg().display().to_string()),
    ]
}

fn github_env(env: &Env, api: &CommentApi, base: &str, head: &str) -> Vec<(String, String)> {
    let event = env.write(
        "event.json",
        &serde_json::json!({"pull_request": {"number": 7, "base": {"sha": base, "ref": "main"}, "head": {"sha": head}}})
            .to_string(),
    );
    let mut vars = job_env(env);
    for (k, v) in [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_REPOSITORY", "o/r"),
        ("GITHUB_API_URL", api.url.as_str()),
        ("GITHUB_SERVER_URL", "https://github.example"),
        ("GITHUB_RUN_ID", "99"),
        ("RUNNER_OS", "Linux"),
        ("RUNNER_ARCH", "X64"),
    ] {
        vars.push((k.into(), v.into()));
    }
    vars.push(("GITHUB_EVENT_PATH".into(), event.display().to_string()));
    vars.push((
        "GITHUB_STEP_SUMMARY".into(),
        env.root().join("step-summary.md").display().to_string(),
    ));
    vars
}

/// Run the action for the pull request `base`..`head` (checked out at head).
fn action(env: &Env, api: &CommentApi, repo: &Repo, base: &str, head: &str) -> ActionRun {
    git(&repo.dir, &["checkout", "-q", head]);
    let limit = LIMIT.to_string();
    let run = run_action(
        &[
            ("kustom", kustom_bin()),
            ("comment-limit", &limit),
            ("token", BOT_TOKEN),
        ],
        &github_env(env, api, base, head),
        &repo.dir,
        env.root(),
    );
    assert!(
        !run.log.contains(BOT_TOKEN),
        "the token is in the log:\n{}",
        run.log
    );
    run
}

#[test]
fn github_action_keeps_one_comment_per_part() {
    if !python_present() {
        return;
    }
    let env = Env::new();
    let repo = repo(&env);
    let api = CommentApi::start();
    let thread = ["github", "o/r", "7"];
    let comments_path = "/repos/o/r/issues/7/comments";
    api.send(
        "POST",
        comments_path,
        ALICE_TOKEN,
        Some(serde_json::json!({"body": "LGTM"})),
    );

    // The pull request's base commit is main's tip, whose change to apps/c
    // is not the pull request's: the diff is against the merge base.
    let run = action(&env, &api, &repo, &repo.main, &repo.big);
    assert_eq!(run.status, 0, "{}", run.log);
    let want = expected_parts(&env, &repo, &repo.fork, &repo.big);
    assert!(want.len() >= 3, "the big diff takes {} parts", want.len());
    let first = posted(&api, &thread, "kustom-bot");
    assert_eq!(
        texts(&first),
        want,
        "the comments are kustom's parts, in order"
    );
    assert!(want[0].contains("apps/web") && want[0].contains("apps/big"));
    assert!(
        !want.concat().contains("apps/c"),
        "apps/c changed on main only"
    );
    let diff_outputs = &run.outputs["diff"];
    assert_eq!(diff_outputs["status"], "1");
    assert_eq!(diff_outputs["parts"], want.len().to_string());
    let html = std::fs::read_to_string(&diff_outputs["report"]).expect("the HTML report");
    assert!(
        html.contains("apps/big") && html.contains("<html"),
        "{html:.200}"
    );
    let summary = std::fs::read_to_string(env.root().join("step-summary.md")).unwrap();
    assert!(summary.contains(&want[0]), "the job summary holds part 1");
    let alice = &api.comments(&thread)[0];
    assert_eq!(
        (alice["body"].as_str(), alice["user"][0].as_str()),
        (Some("LGTM"), Some("alice"))
    );

    // A new commit: the same comments, edited.
    let before = api.calls().len();
    let run = action(&env, &api, &repo, &repo.main, &repo.bigger);
    assert_eq!(run.status, 0, "{}", run.log);
    let want = expected_parts(&env, &repo, &repo.fork, &repo.bigger);
    assert_eq!(
        want.len(),
        first.len(),
        "one more image change keeps the part count"
    );
    let second = posted(&api, &thread, "kustom-bot");
    assert_eq!(texts(&second), want);
    assert_eq!(ids(&second), ids(&first), "edited in place");
    let methods = methods_since(&api, before);
    assert!(
        methods.iter().all(|m| m == "GET" || m == "PATCH"),
        "{methods:?}"
    );
    assert!(methods.iter().any(|m| m == "PATCH"));

    // Nothing new: nothing written.
    let before = api.calls().len();
    assert_eq!(
        action(&env, &api, &repo, &repo.main, &repo.bigger).status,
        0
    );
    assert!(methods_since(&api, before).iter().all(|m| m == "GET"));
    assert_eq!(posted(&api, &thread, "kustom-bot"), second);

    // Someone deleted part 2: parts 2 to N are posted again, in order, and
    // the rest of the earlier ones go.
    api.send(
        "DELETE",
        &format!("/repos/o/r/issues/comments/{}", second[1].0),
        BOT_TOKEN,
        None,
    );
    assert_eq!(
        action(&env, &api, &repo, &repo.main, &repo.bigger).status,
        0
    );
    let third = posted(&api, &thread, "kustom-bot");
    assert_eq!(texts(&third), want);
    assert_eq!(third[0].0, second[0].0, "part 1 stays");
    assert!(third[1..]
        .iter()
        .all(|(id, _)| *id > second.last().unwrap().0));

    // A shorter diff: the parts it no longer needs are deleted.
    let run = action(&env, &api, &repo, &repo.main, &repo.short);
    assert_eq!(run.status, 0, "{}", run.log);
    let want = expected_parts(&env, &repo, &repo.fork, &repo.short);
    assert!(want.len() < third.len());
    let fourth = posted(&api, &thread, "kustom-bot");
    assert_eq!(texts(&fourth), want);
    assert_eq!(ids(&fourth), ids(&third)[..want.len()]);

    // No change at all: one short comment.
    let run = action(&env, &api, &repo, &repo.main, &repo.none);
    assert_eq!(run.status, 0, "{}", run.log);
    assert_eq!(run.outputs["diff"]["status"], "0");
    let fifth = posted(&api, &thread, "kustom-bot");
    assert_eq!(
        texts(&fifth),
        expected_parts(&env, &repo, &repo.fork, &repo.none)
    );
    assert_eq!(fifth.len(), 1);
    assert!(
        fifth[0].1.contains("no rendered manifest changes"),
        "{}",
        fifth[0].1
    );
    assert_eq!(fifth[0].0, fourth[0].0);

    // A root that fails at head: the comment says so and the job fails.
    let run = action(&env, &api, &repo, &repo.main, &repo.broken);
    assert_eq!(run.status, 2, "{}", run.log);
    let failed = posted(&api, &thread, "kustom-bot");
    assert!(
        failed[0].1.contains("apps/web") && failed[0].1.contains("failed"),
        "{}",
        failed[0].1
    );

    // kustom diff stops before any report (here: a missing --roots file):
    // the comment says it failed and links the run's log.
    let limit = LIMIT.to_string();
    let run = run_action(
        &[
            ("kustom", kustom_bin()),
            ("comment-limit", &limit),
            ("token", BOT_TOKEN),
            ("args", "--roots no-such-file.txt"),
        ],
        &github_env(&env, &api, &repo.main, &repo.big),
        &repo.dir,
        env.root(),
    );
    assert_eq!(run.status, 2, "{}", run.log);
    assert_eq!(
        run.outputs["diff"]["report"], "",
        "no HTML report to upload"
    );
    let note = posted(&api, &thread, "kustom-bot");
    assert_eq!(note.len(), 1);
    assert!(
        note[0].1.starts_with("### kustom diff failed")
            && note[0]
                .1
                .contains("[The job's log](https://github.example/o/r/actions/runs/99)"),
        "{}",
        note[0].1
    );
    assert!(
        run.log.contains("no-such-file.txt"),
        "kustom's error is in the log"
    );

    // The API refuses: the error names the call and the status, and the
    // job fails before posting anything else.
    api.fail("POST", comments_path, 403);
    let run = action(&env, &api, &repo, &repo.main, &repo.big);
    api.stop_failing();
    assert_eq!(run.status, 1, "{}", run.log);
    assert!(
        run.log
            .contains(&format!("POST {comments_path} answered HTTP 403")),
        "{}",
        run.log
    );
    assert!(run.log.contains("pull-requests: write"), "{}", run.log);
    // The stand-in repeats the token in its refusal; the log must not.
    assert!(
        run.log.contains("refused by the test for token ***"),
        "{}",
        run.log
    );
    assert_eq!(api.comments(&thread)[0]["body"], "LGTM");
}

#[test]
fn shallow_clone_is_deepened_first() {
    if !python_present() {
        return;
    }
    let env = Env::new();
    let repo = repo(&env);
    let api = CommentApi::start();
    // CI's default: a clone of the head alone, without the base commit.
    git(&repo.dir, &["branch", "under-review", &repo.big]);
    let clone = env.root().join("clone");
    let source = format!("file://{}", repo.dir.display());
    git(
        env.root(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            "--branch",
            "under-review",
            &source,
            "clone",
        ],
    );
    assert_eq!(
        git(&clone, &["rev-parse", "--is-shallow-repository"]).trim(),
        "true"
    );
    let limit = LIMIT.to_string();
    let run = run_action(
        &[
            ("kustom", kustom_bin()),
            ("comment-limit", &limit),
            ("token", BOT_TOKEN),
        ],
        &github_env(&env, &api, &repo.main, &repo.big),
        &clone,
        env.root(),
    );
    assert_eq!(run.status, 0, "{}", run.log);
    let posted = posted(&api, &["github", "o/r", "7"], "kustom-bot");
    assert_eq!(
        texts(&posted),
        expected_parts(&env, &repo, &repo.fork, &repo.big)
    );
}

#[test]
fn github_action_joins_shard_reports() {
    if !python_present() {
        return;
    }
    let env = Env::new();
    let repo = repo(&env);
    let api = CommentApi::start();
    // A matrix's jobs: one JSON report per shard.
    for k in 1..=2 {
        let o = env
            .command(Path::new(kustom_bin()))
            .args(["diff", "-C"])
            .arg(&repo.dir)
            .args(["--base", &repo.fork, "--head", &repo.big, "--explain"])
            .args(["--shard", &format!("{k}/2"), "--format", "json"])
            .output()
            .expect("kustom diff --shard");
        assert!(o.status.code().is_some_and(|c| c <= 1));
        std::fs::write(env.root().join(format!("shard-{k}.json")), &o.stdout).unwrap();
    }
    let reports = format!("{}/shard-*.json", env.root().display());
    let limit = LIMIT.to_string();
    let run = run_action(
        &[
            ("kustom", kustom_bin()),
            ("comment-limit", &limit),
            ("token", BOT_TOKEN),
            ("reports", &reports),
        ],
        &github_env(&env, &api, &repo.main, &repo.big),
        &repo.dir,
        env.root(),
    );
    assert_eq!(run.status, 0, "{}", run.log);
    let posted = posted(&api, &["github", "o/r", "7"], "kustom-bot");
    assert_eq!(
        texts(&posted),
        expected_parts(&env, &repo, &repo.fork, &repo.big),
        "the joined shards give the whole diff's comments"
    );
}

// ---------------------------------------------- the GitLab template

/// Run the template's `script:` as a GitLab runner does: its lines one
/// after another in one POSIX shell with `set -e`, the job's variables in
/// the environment (`overrides` win, as project CI/CD variables do).
fn gitlab_job(overrides: &[(String, String)], dir: &Path) -> Output {
    let template = yaml("ci/gitlab/kustom-diff.gitlab-ci.yml");
    let job = &template["kustom-diff"];
    let lines: Vec<&str> = job["script"]
        .as_array()
        .expect("script")
        .iter()
        .map(|l| l.as_str().expect("a script line"))
        .collect();
    let mut vars: BTreeMap<String, String> = job["variables"]
        .as_object()
        .expect("variables")
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().expect("a string variable").to_string(),
            )
        })
        .collect();
    vars.extend(overrides.iter().cloned());
    Command::new("sh")
        .args(["-e", "-c", &lines.join("\n")])
        .current_dir(dir)
        .env_clear()
        .envs(vars)
        .output()
        .expect("sh")
}

#[test]
fn gitlab_template_keeps_one_note_per_part() {
    if !python_present() {
        return;
    }
    let env = Env::new();
    let repo = repo(&env);
    let api = CommentApi::start();
    let thread = ["gitlab", "42", "3"];
    let notes = "/api/v4/projects/42/merge_requests/3/notes";
    // Someone else's note that looks like ours, and a system note: both stay.
    let lookalike = "<!-- kustom-diff name=default part=1/1 -->\nnot from the job";
    api.send(
        "POST",
        notes,
        ALICE_TOKEN,
        Some(serde_json::json!({"body": lookalike})),
    );
    api.send(
        "POST",
        notes,
        ALICE_TOKEN,
        Some(serde_json::json!({"body": "added 1 commit", "system": true})),
    );
    let job_url = "https://gitlab.example/g/p/-/jobs/9";
    let run = |head: &str| {
        let mut vars = job_env(&env);
        for (k, v) in [
            ("GITLAB_CI", "true"),
            ("CI_PIPELINE_SOURCE", "merge_request_event"),
            ("CI_PROJECT_ID", "42"),
            ("CI_MERGE_REQUEST_IID", "3"),
            ("CI_MERGE_REQUEST_DIFF_BASE_SHA", &repo.fork),
            ("CI_COMMIT_SHA", head),
            ("CI_JOB_URL", job_url),
            ("KUSTOM_GITLAB_TOKEN", BOT_TOKEN),
            ("KUSTOM_BIN", kustom_bin()),
            ("KUSTOM_COMMENT_LIMIT", &LIMIT.to_string()),
        ] {
            vars.push((k.into(), v.into()));
        }
        vars.push(("CI_API_V4_URL".into(), format!("{}/api/v4", api.url)));
        vars.push(("CI_PROJECT_DIR".into(), repo.dir.display().to_string()));
        vars.push(("KUSTOM_SOURCE".into(), top().display().to_string()));
        git(&repo.dir, &["checkout", "-q", head]);
        let o = gitlab_job(&vars, &repo.dir);
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.status.success(), "{log}");
        assert!(!log.contains(BOT_TOKEN), "the token is in the log:\n{log}");
    };

    run(&repo.big);
    let want = expected_parts(&env, &repo, &repo.fork, &repo.big);
    assert!(want.len() >= 3);
    let link = format!(
        "\n[The HTML report]({job_url}/artifacts/file/kustom-diff/report.html): every changed root and resource, filterable.\n"
    );
    let first = posted(&api, &thread, "kustom-bot");
    let mut with_link = want.clone();
    with_link[0].push_str(&link);
    assert_eq!(texts(&first), with_link, "part 1 links the HTML report");
    // The file the template's artifacts: upload, where the link points.
    let template = yaml("ci/gitlab/kustom-diff.gitlab-ci.yml");
    let artifact = template["kustom-diff"]["artifacts"]["paths"][0]
        .as_str()
        .expect("an artifact path");
    assert!(link.contains(artifact));
    let html = std::fs::read_to_string(repo.dir.join(artifact)).expect("the HTML report");
    assert!(html.contains("apps/big"));

    run(&repo.short);
    let mut want = expected_parts(&env, &repo, &repo.fork, &repo.short);
    want[0].push_str(&link);
    let second = posted(&api, &thread, "kustom-bot");
    assert_eq!(texts(&second), want);
    assert!(second.len() < first.len());
    assert_eq!(second[0].0, first[0].0, "part 1 edited in place");
    let all = api.comments(&thread);
    assert_eq!(all[0]["body"], lookalike);
    assert_eq!(all[1]["system"], true);
}

#[test]
fn recipes_parse_and_name_the_shared_script() {
    let script = "ci/review/kustom-diff-comment.py";
    assert!(top().join(script).is_file());
    let action = yaml("action.yml");
    let runs: Vec<&str> = action["runs"]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect();
    assert!(runs
        .iter()
        .any(|r| r.contains(&format!("\"$GITHUB_ACTION_PATH/{script}\" diff"))));
    assert!(runs
        .iter()
        .any(|r| r.contains(&format!("\"$GITHUB_ACTION_PATH/{script}\" post"))));
    let uploads: Vec<&Value> = action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .collect();
    assert_eq!(uploads.len(), 1, "the action uploads the HTML report");
    assert_eq!(
        uploads[0]["with"]["path"],
        "${{ steps.diff.outputs.report }}"
    );

    let template = yaml("ci/gitlab/kustom-diff.gitlab-ci.yml");
    let job = &template["kustom-diff"];
    let script_lines = job["script"].as_array().expect("script");
    assert!(script_lines.iter().any(|l| l
        .as_str()
        .unwrap()
        .contains(&format!("\"$KUSTOM_SOURCE/{script}\" run"))));
    assert_eq!(
        job["rules"][0]["if"],
        "$CI_PIPELINE_SOURCE == \"merge_request_event\""
    );
    assert_eq!(job["artifacts"]["paths"][0], "kustom-diff/report.html");

    // The script's own check of its arguments runs without a platform.
    if python_present() {
        let o = Command::new("python3")
            .arg(top().join(script))
            .arg("--help")
            .output()
            .expect("python3");
        assert!(o.status.success());
        let help = String::from_utf8_lossy(&o.stdout);
        for command in ["diff", "post", "run"] {
            assert!(help.contains(command), "{help}");
        }
    }
}
