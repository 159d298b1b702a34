#!/usr/bin/env python3
"""Run `kustom diff` for a pull request (GitHub) or a merge request (GitLab)
and keep its markdown as comments there: one comment per part, found again
on the next run by a hidden marker on its first line and edited in place.

The repository's action.yml and ci/gitlab/kustom-diff.gitlab-ci.yml both
run it. Python 3.8 or newer, standard library only.

    kustom-diff-comment.py diff   # compare; write OUT/comments/comment-N.md,
                                  # OUT/report.json, OUT/report.html, OUT/state.json
    kustom-diff-comment.py post   # make the comments match OUT/comments
    kustom-diff-comment.py run    # both

Settings come from the environment (a command-line option of the same
meaning wins):

    KUSTOM_BIN            the kustom executable (default: `kustom` on PATH)
    KUSTOM_DIFF_REPO      the repository, any directory inside it (default .)
    KUSTOM_DIFF_BASE      compare against the merge base of this revision and
                          the head (default: the pull request's base branch:
                          github.event.pull_request.base.sha, or GitLab's
                          CI_MERGE_REQUEST_DIFF_BASE_SHA)
    KUSTOM_DIFF_HEAD      the revision to compare (default: the pull request's
                          head commit, else HEAD)
    KUSTOM_DIFF_ARGS      more `kustom diff` arguments, shell-quoted
    KUSTOM_DIFF_REPORTS   instead of comparing: the JSON reports of
                          `kustom diff --shard K/N --format json` to join
                          (file names or globs, whitespace-separated)
    KUSTOM_DIFF_OUT       the output directory (default kustom-diff)
    KUSTOM_COMMENT_LIMIT  the largest comment in bytes, marker and report link
                          included (default 65536, GitHub's limit)
    KUSTOM_COMMENT_NAME   tells these comments apart from those of another
                          kustom diff on the same pull request (default: default)
    KUSTOM_COMMENT_AUTHOR GitHub only: earlier parts are only comments by this
                          login (default: any author)
    KUSTOM_REPORT_URL     where the HTML report can be opened; linked from part 1
    KUSTOM_CI_PLATFORM    github or gitlab (default: from GITHUB_ACTIONS / GITLAB_CI)

GitHub: GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_EVENT_PATH
(the pull request's number, base and head), as Actions sets them.
GitLab: KUSTOM_GITLAB_TOKEN (or GITLAB_TOKEN), an access token with the
`api` scope (CI_JOB_TOKEN cannot write notes); CI_API_V4_URL,
CI_PROJECT_ID, CI_MERGE_REQUEST_IID, CI_MERGE_REQUEST_DIFF_BASE_SHA, as
merge request pipelines set them.

Exit status: 0 done (whether or not the manifests differ); 2 kustom diff
failed (after posting a comment that says so); 1 anything else (a git or
API error, named on STDERR).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

PROG = "kustom-diff-comment"

# Bytes of each comment kept out of kustom's --comment-limit for the hidden
# marker (at most 110 bytes) and part 1's link to the HTML report.
RESERVE = 512

# kustom refuses a smaller --comment-limit.
KUSTOM_MIN_LIMIT = 2048

MARKER = re.compile(r"\A<!-- kustom-diff name=(\S+) part=(\d+)/(\d+) -->\n")
NAME = re.compile(r"\A[A-Za-z0-9._-]{1,64}\Z")
PART_FILE = re.compile(r"\Acomment-(\d+)\.md\Z")


class Failure(Exception):
    """A problem to report in one line and exit 1 on."""


def log(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def env(name: str, default: str = "") -> str:
    value = os.environ.get(name, "")
    return value if value != "" else default


def marker(name: str, k: int, n: int) -> str:
    return f"<!-- kustom-diff name={name} part={k}/{n} -->\n"


# ---------------------------------------------------------------- git


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", "-C", str(repo), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and proc.returncode != 0:
        raise Failure(f"git {' '.join(args)}: {proc.stderr.strip() or 'exit status %d' % proc.returncode}")
    return proc


def has_commit(repo: Path, rev: str) -> bool:
    return git(repo, "cat-file", "-e", f"{rev}^{{commit}}", check=False).returncode == 0


def complete_history(repo: Path, revs: list[str]) -> None:
    """Make the merge base computable: a shallow clone (CI's default) is
    deepened, and a commit still missing is fetched by name."""
    shallow = git(repo, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    if shallow:
        log("the clone is shallow: fetching the whole history (set fetch-depth: 0 / GIT_DEPTH: 0 to save this)")
        git(repo, "fetch", "--quiet", "--no-tags", "--unshallow", "origin")
    for rev in revs:
        if not has_commit(repo, rev):
            log(f"fetching {rev}")
            fetched = git(repo, "fetch", "--quiet", "--no-tags", "origin", rev, check=False)
            if fetched.returncode != 0 or not has_commit(repo, rev):
                raise Failure(
                    f"revision {rev} is not in the clone and could not be fetched from origin: "
                    "check out with the full history (fetch-depth: 0 / GIT_DEPTH: 0)"
                )


def commit_of(repo: Path, rev: str) -> str:
    return git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").stdout.strip()


def merge_base(repo: Path, a: str, b: str) -> str:
    proc = git(repo, "merge-base", a, b, check=False)
    if proc.returncode != 0:
        raise Failure(f"{a} and {b} have no merge base (git merge-base: exit status {proc.returncode})")
    return proc.stdout.strip()


# ------------------------------------------------------- where we run


class Context:
    """The platform and what it says about the change under review."""

    def __init__(self, platform: str, base: str, head: str, job_url: str):
        self.platform = platform
        self.base = base
        self.head = head
        self.job_url = job_url


def detect_platform(explicit: str) -> str:
    platform = explicit or env("KUSTOM_CI_PLATFORM")
    if not platform:
        if env("GITHUB_ACTIONS") == "true":
            platform = "github"
        elif env("GITLAB_CI") == "true":
            platform = "gitlab"
        else:
            raise Failure("not on GitHub Actions or GitLab CI: set KUSTOM_CI_PLATFORM to github or gitlab")
    if platform not in ("github", "gitlab"):
        raise Failure(f"KUSTOM_CI_PLATFORM={platform}: expected github or gitlab")
    return platform


def github_event() -> dict:
    path = env("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            event = json.load(f)
    except (OSError, ValueError) as e:
        raise Failure(f"GITHUB_EVENT_PATH {path}: {e}")
    return event if isinstance(event, dict) else {}


def context(platform: str) -> Context:
    if platform == "github":
        pr = github_event().get("pull_request") or {}
        server, repository, run = env("GITHUB_SERVER_URL", "https://github.com"), env("GITHUB_REPOSITORY"), env("GITHUB_RUN_ID")
        job_url = f"{server}/{repository}/actions/runs/{run}" if repository and run else ""
        return Context(
            platform,
            (pr.get("base") or {}).get("sha", ""),
            (pr.get("head") or {}).get("sha", ""),
            job_url,
        )
    # In a merged-results pipeline CI_COMMIT_SHA is the merge commit; the
    # merge request's own head is CI_MERGE_REQUEST_SOURCE_BRANCH_SHA.
    head = env("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA") or env("CI_COMMIT_SHA")
    return Context(platform, env("CI_MERGE_REQUEST_DIFF_BASE_SHA"), head, env("CI_JOB_URL"))


# ---------------------------------------------------------------- diff


def run_kustom(argv: list[str], stdout_path: Path | None = None) -> int:
    log("running " + " ".join(shlex.quote(a) for a in argv))
    try:
        if stdout_path is None:
            return subprocess.run(argv).returncode
        with open(stdout_path, "wb") as out:
            return subprocess.run(argv, stdout=out).returncode
    except OSError as e:
        raise Failure(f"cannot run {argv[0]}: {e} (set KUSTOM_BIN to the kustom executable)")


def readable_report(path: Path) -> bool:
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(report, dict) and isinstance(report.get("roots"), list)


def part_files(comments: Path) -> list[Path]:
    """comment-1.md … comment-N.md in order; anything else there is an error."""
    if not comments.is_dir():
        return []
    numbered = {}
    for entry in comments.iterdir():
        m = PART_FILE.match(entry.name)
        if not m:
            raise Failure(f"{entry}: not a comment part (expected only comment-N.md in {comments})")
        numbered[int(m.group(1))] = entry
    if sorted(numbered) != list(range(1, len(numbered) + 1)):
        raise Failure(f"{comments}: the parts are not numbered 1 to {len(numbered)}")
    return [numbered[k] for k in range(1, len(numbered) + 1)]


def failure_note(base: str, head: str, status: int, job_url: str) -> str:
    where = f"[The job's log]({job_url})" if job_url else "The CI job's log"
    revisions = f"`{base[:7]}` → `{head[:7]}`: " if base and head else ""
    return (
        "### kustom diff failed\n\n"
        f"{revisions}kustom diff could not compare the revisions (exit status {status}). {where} says why.\n"
    )


def write_outputs(values: dict) -> None:
    """GitHub Actions step outputs, when there is a file for them."""
    path = env("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            for key, value in values.items():
                f.write(f"{key}={value}\n")


def shard_reports(patterns: list[str]) -> list[str]:
    files = []
    for pattern in patterns:
        matched = sorted(glob.glob(pattern))
        if not matched:
            raise Failure(f"no report matches {pattern}")
        files.extend(matched)
    return files


def compare(opts, ctx: Context, report_json: Path) -> tuple[int, str, str]:
    """Run kustom diff of the change into `report_json`: (exit status, base, head)."""
    repo = Path(git(Path(opts.repo), "rev-parse", "--show-toplevel").stdout.strip())
    base_rev = opts.base or ctx.base
    head_rev = opts.head or ctx.head or "HEAD"
    if not base_rev:
        raise Failure("no base revision: not a pull request event; set KUSTOM_DIFF_BASE")
    complete_history(repo, [base_rev, head_rev])
    head = commit_of(repo, head_rev)
    base = merge_base(repo, commit_of(repo, base_rev), head)
    log(f"comparing {base} (the merge base of {base_rev} and {head_rev}) with {head}")
    status = run_kustom(
        [opts.kustom, "diff", "-C", str(repo), "--base", base, "--head", head, "--format", "json", *opts.diff_args],
        report_json,
    )
    return status, base, head


def join(opts, report_json: Path) -> tuple[int, str, str]:
    """Join shards' reports into `report_json`: (exit status, base, head)."""
    files = shard_reports(opts.reports)
    status = run_kustom([opts.kustom, "diff", "--merge", *files, "--format", "json"], report_json)
    try:
        report = json.loads(report_json.read_text(encoding="utf-8"))
        return status, str(report.get("base", "")), str(report.get("head", ""))
    except (OSError, ValueError, AttributeError):
        return status, "", ""


def diff(opts) -> int:
    out = Path(opts.out)
    comments = out / "comments"
    limit = opts.comment_limit - RESERVE
    if limit < KUSTOM_MIN_LIMIT:
        raise Failure(f"comment limit {opts.comment_limit}: give at least {KUSTOM_MIN_LIMIT + RESERVE} bytes")
    out.mkdir(parents=True, exist_ok=True)
    # What an earlier run left: only our own files go.
    part_files(comments)
    if comments.exists():
        shutil.rmtree(comments)
    for name in ("report.json", "report.html", "state.json"):
        (out / name).unlink(missing_ok=True)

    platform = detect_platform(opts.platform)
    ctx = context(platform)
    report_json = out / "report.json"
    status, base, head = join(opts, report_json) if opts.reports else compare(opts, ctx, report_json)
    # 0 same, 1 differs, 2 a root failed (the report says which) or no report at all.
    if status in (0, 1, 2) and readable_report(report_json):
        merge = [opts.kustom, "diff", "--merge", str(report_json)]
        run_kustom([*merge, "--format", "markdown", "--comment-limit", str(limit), "-o", str(comments)])
        run_kustom([*merge, "--format", "html"], out / "report.html")
        if not part_files(comments) or (out / "report.html").stat().st_size == 0:
            raise Failure(f"kustom diff --merge {report_json} wrote no comment or no HTML report")
    else:
        report_json.unlink(missing_ok=True)
        comments.mkdir()
        (comments / "comment-1.md").write_text(failure_note(base, head, status, ctx.job_url), encoding="utf-8")
        status = 2
    parts = part_files(comments)
    state = {"platform": platform, "base": base, "head": head, "status": status, "parts": len(parts)}
    (out / "state.json").write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    report = out / "report.html"
    write_outputs(
        {
            "status": status,
            "parts": len(parts),
            "comments": comments.resolve(),
            "report": report.resolve() if report.exists() else "",
        }
    )
    summary = env("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(parts[0].read_text(encoding="utf-8") + "\n")
    log(f"kustom diff exit status {status}; {len(parts)} comment part(s) in {comments}")
    return 0


# ---------------------------------------------------------------- HTTP


class Comment:
    """A comment (GitHub) or note (GitLab) on the change under review."""

    def __init__(self, id: int, body: str, author: str):
        self.id = id
        self.body = body
        self.author = author


class NoRedirect(urllib.request.HTTPRedirectHandler):
    # A redirect would carry the token to wherever it points.
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


class Api:
    """JSON over HTTP with a token that never reaches a message."""

    # Statuses worth another try: rate limits and a proxy's hiccups.
    RETRY = (429, 502, 503, 504)

    def __init__(self, base_url: str, token: str, headers: dict, hint):
        self.base_url = base_url.rstrip("/")
        self.origin = urllib.parse.urlsplit(self.base_url)[:2]
        self.token = token
        self.headers = headers
        self.hint = hint

    def redact(self, text: str) -> str:
        return text.replace(self.token, "***") if self.token else text

    def call(self, method: str, url: str, what: str, body: dict | None = None):
        """(headers, parsed JSON or None); Failure naming the call on error."""
        if urllib.parse.urlsplit(url)[:2] != self.origin:
            raise Failure(f"{what}: the API pointed to {urllib.parse.urlsplit(url).netloc}, not {self.origin[1]}")
        path = urllib.parse.urlsplit(url).path
        data = json.dumps(body).encode("utf-8") if body is not None else None
        headers = dict(self.headers)
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(4):
            request = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with OPENER.open(request, timeout=60) as response:
                    raw = response.read()
                    return response.headers, (json.loads(raw) if raw.strip() else None)
            except urllib.error.HTTPError as e:
                if e.code in self.RETRY and attempt < 3:
                    wait = e.headers.get("Retry-After", "")
                    time.sleep(min(int(wait), 30) if wait.isdigit() else 2**attempt)
                    continue
                detail = self.server_message(e)
                hint = self.hint(e.code)
                raise Failure(
                    f"{what}: {method} {path} answered HTTP {e.code} {e.reason}"
                    + (f": {detail}" if detail else "")
                    + (f" ({hint})" if hint else "")
                )
            except (urllib.error.URLError, OSError) as e:
                if attempt < 3:
                    time.sleep(2**attempt)
                    continue
                reason = getattr(e, "reason", e)
                raise Failure(f"{what}: {method} {path}: cannot reach {self.origin[1]}: {self.redact(str(reason))}")
            except ValueError as e:
                raise Failure(f"{what}: {method} {path}: the answer is not JSON: {e}")
        raise AssertionError("unreachable")

    def server_message(self, e: urllib.error.HTTPError) -> str:
        try:
            raw = e.read().decode("utf-8", "replace")
        except OSError:
            return ""
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        message = raw
        if isinstance(parsed, dict):
            message = parsed.get("message") or parsed.get("error") or raw
        if not isinstance(message, str):
            message = json.dumps(message)
        return self.redact(" ".join(message.split()))[:300]


class GitHub:
    """A pull request's comments: GitHub's issue comments API."""

    def __init__(self, author: str):
        token = env("GITHUB_TOKEN")
        if not token:
            raise Failure("GITHUB_TOKEN is not set (the action passes its `token` input)")
        repository = env("GITHUB_REPOSITORY")
        number = env("KUSTOM_PR_NUMBER") or str((github_event().get("pull_request") or {}).get("number", ""))
        self.available = bool(repository and number)
        self.where = f"pull request {repository}#{number}"
        self.author = author
        self.api = Api(
            env("GITHUB_API_URL", "https://api.github.com"),
            token,
            {
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": PROG,
            },
            self.hint,
        )
        self.comments_url = f"{self.api.base_url}/repos/{repository}/issues/{number}/comments"
        self.comment_url = f"{self.api.base_url}/repos/{repository}/issues/comments/"

    @staticmethod
    def hint(status: int) -> str:
        if status in (401, 403):
            return (
                "the token may not write comments: give the workflow `permissions: pull-requests: write`; "
                "a pull request from a fork gets a read-only token"
            )
        if status == 404:
            return "check GITHUB_REPOSITORY and the pull request's number"
        return ""

    def list(self) -> list[Comment]:
        comments = []
        url = f"{self.comments_url}?per_page=100"
        while url:
            headers, page = self.api.call("GET", url, "listing the pull request's comments")
            for c in page or []:
                comments.append(Comment(c["id"], c.get("body") or "", (c.get("user") or {}).get("login", "")))
            url = next_link(headers.get("Link", ""))
        return comments

    def ours(self, c: Comment) -> bool:
        return not self.author or c.author == self.author

    def create(self, body: str) -> int:
        _, c = self.api.call("POST", self.comments_url, "posting a comment", {"body": body})
        return c["id"]

    def update(self, id: int, body: str) -> None:
        self.api.call("PATCH", f"{self.comment_url}{id}", f"updating comment {id}", {"body": body})

    def delete(self, id: int) -> None:
        self.api.call("DELETE", f"{self.comment_url}{id}", f"deleting comment {id}")


def next_link(link: str) -> str:
    for part in link.split(","):
        m = re.match(r'\s*<([^>]+)>\s*;\s*rel="next"', part)
        if m:
            return m.group(1)
    return ""


class GitLab:
    """A merge request's notes: GitLab's notes API."""

    def __init__(self):
        token = env("KUSTOM_GITLAB_TOKEN") or env("GITLAB_TOKEN")
        if not token:
            raise Failure(
                "KUSTOM_GITLAB_TOKEN is not set: a project access token with the api scope, "
                "as a masked CI/CD variable (CI_JOB_TOKEN cannot write notes)"
            )
        project, iid = env("CI_PROJECT_ID"), env("CI_MERGE_REQUEST_IID")
        self.available = bool(project and iid)
        self.where = f"merge request !{iid} of project {project}"
        api_url = env("CI_API_V4_URL")
        if not api_url:
            raise Failure("CI_API_V4_URL is not set")
        self.api = Api(api_url, token, {"PRIVATE-TOKEN": token, "User-Agent": PROG}, self.hint)
        self.notes_url = (
            f"{self.api.base_url}/projects/{urllib.parse.quote(project, safe='')}/merge_requests/{iid}/notes"
        )
        self.me = ""

    @staticmethod
    def hint(status: int) -> str:
        if status in (401, 403):
            return "KUSTOM_GITLAB_TOKEN must be an access token with the api scope that may comment on the merge request"
        if status == 404:
            return "check CI_PROJECT_ID and CI_MERGE_REQUEST_IID"
        return ""

    def list(self) -> list[Comment]:
        # Only our own notes are ours: GitLab lets no one else edit them.
        _, user = self.api.call("GET", f"{self.api.base_url}/user", "asking whose token this is")
        self.me = str(user["id"])
        notes = []
        page = "1"
        while page:
            query = urllib.parse.urlencode({"per_page": 100, "page": page, "sort": "asc", "order_by": "created_at"})
            headers, batch = self.api.call("GET", f"{self.notes_url}?{query}", "listing the merge request's notes")
            for n in batch or []:
                if not n.get("system"):
                    notes.append(Comment(n["id"], n.get("body") or "", str((n.get("author") or {}).get("id", ""))))
            page = headers.get("X-Next-Page", "").strip()
        return notes

    def ours(self, c: Comment) -> bool:
        return c.author == self.me

    def create(self, body: str) -> int:
        _, n = self.api.call("POST", self.notes_url, "posting a note", {"body": body})
        return n["id"]

    def update(self, id: int, body: str) -> None:
        self.api.call("PUT", f"{self.notes_url}/{id}", f"updating note {id}", {"body": body})

    def delete(self, id: int) -> None:
        self.api.call("DELETE", f"{self.notes_url}/{id}", f"deleting note {id}")


# ---------------------------------------------------------------- post


def bodies(name: str, parts: list[str], report_url: str, limit: int) -> list[str]:
    n = len(parts)
    link = f"\n[The HTML report]({report_url}): every changed root and resource, filterable.\n" if report_url else ""
    if len(marker(name, n, n).encode()) + len(link.encode()) > RESERVE:
        log("the report URL is too long to link from the comment; leaving the link out")
        link = ""
    out = []
    for k, text in enumerate(parts, 1):
        body = marker(name, k, n) + text + (link if k == 1 else "")
        if len(body.encode()) > limit:
            raise Failure(f"part {k} is {len(body.encode())} bytes, more than the comment limit {limit}")
        out.append(body)
    return out


def sync(forum, name: str, wanted: list[str]) -> None:
    """Make the comments carrying our marker be `wanted`, in order: edit
    those that are there, post the missing ones, delete the rest."""
    earlier = []
    for c in forum.list():
        m = MARKER.match(c.body)
        if m and m.group(1) == name and forum.ours(c):
            earlier.append((int(m.group(2)), c))
    # Parts 1, 2, … that are there in that order (oldest first) are edited
    # in place; from the first gap on, parts are posted again so that the
    # pull request shows them in order.
    kept, stale = [], []
    for k, c in earlier:
        if k == len(kept) + 1 and k <= len(wanted):
            kept.append(c)
        else:
            stale.append(c)
    n = len(wanted)
    for k, (c, body) in enumerate(zip(kept, wanted), 1):
        if c.body == body:
            log(f"part {k} of {n}: comment {c.id} is up to date")
        else:
            forum.update(c.id, body)
            log(f"part {k} of {n}: updated comment {c.id}")
    for k in range(len(kept) + 1, n + 1):
        id = forum.create(wanted[k - 1])
        log(f"part {k} of {n}: posted comment {id}")
    for c in stale:
        forum.delete(c.id)
        log(f"deleted comment {c.id}, an earlier part no longer needed")


def post(opts) -> int:
    out = Path(opts.out)
    try:
        state = json.loads((out / "state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise Failure(f"{out / 'state.json'}: {e} (run `{PROG} diff` first)")
    if not NAME.match(opts.name):
        raise Failure(f"comment name {opts.name!r}: use 1 to 64 letters, digits, '.', '_' or '-'")
    parts = [p.read_text(encoding="utf-8") for p in part_files(out / "comments")]
    if not parts:
        raise Failure(f"{out / 'comments'}: no comment parts (run `{PROG} diff` first)")
    platform = detect_platform(opts.platform or state.get("platform", ""))
    forum = GitHub(opts.author) if platform == "github" else GitLab()
    if not forum.available:
        log("not a pull request or merge request pipeline: nothing posted")
    else:
        log(f"posting {len(parts)} part(s) to {forum.where}")
        sync(forum, opts.name, bodies(opts.name, parts, opts.report_url, opts.comment_limit))
    if state.get("status") == 2:
        log("kustom diff failed (exit status 2): see its messages above")
        return 2
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["diff", "post", "run"])
    parser.add_argument("--out", default=env("KUSTOM_DIFF_OUT", "kustom-diff"))
    parser.add_argument("--platform", default="")
    parser.add_argument("--kustom", default=env("KUSTOM_BIN", "kustom"))
    parser.add_argument("--repo", default=env("KUSTOM_DIFF_REPO", "."))
    parser.add_argument("--base", default=env("KUSTOM_DIFF_BASE"))
    parser.add_argument("--head", default=env("KUSTOM_DIFF_HEAD"))
    parser.add_argument("--comment-limit", type=int, default=int(env("KUSTOM_COMMENT_LIMIT", "65536")))
    parser.add_argument("--name", default=env("KUSTOM_COMMENT_NAME", "default"))
    parser.add_argument("--author", default=env("KUSTOM_COMMENT_AUTHOR"))
    parser.add_argument("--report-url", default=env("KUSTOM_REPORT_URL"))
    parser.add_argument("--reports", nargs="+", default=env("KUSTOM_DIFF_REPORTS").split())
    parser.add_argument("diff_args", nargs="*", help="more kustom diff arguments (after --)")
    opts = parser.parse_args(argv)
    opts.diff_args = shlex.split(env("KUSTOM_DIFF_ARGS")) + opts.diff_args
    try:
        if opts.command == "diff":
            return diff(opts)
        if opts.command == "post":
            return post(opts)
        return diff(opts) or post(opts)
    except Failure as e:
        log(f"error: {e}")
        return 1
    except (KeyError, TypeError) as e:
        log(f"error: an answer from the API lacks what it should hold: {e!r}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
