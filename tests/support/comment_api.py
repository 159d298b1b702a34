#!/usr/bin/env python3
"""A stand-in for the comment APIs ci/review/kustom-diff-comment.py talks
to, for tests/ci_recipes.rs: GitHub's issue comments
(/repos/O/R/issues/N/comments, /repos/O/R/issues/comments/ID) and GitLab's
merge request notes (/api/v4/projects/P/merge_requests/I/notes[/ID],
/api/v4/user), kept in memory, on 127.0.0.1.

    comment_api.py --user TOKEN=LOGIN:ID ... [--page-size N]

prints the port it listens on, then serves until killed. A request is
authenticated by its token (GitHub's `Authorization: Bearer`, GitLab's
`PRIVATE-TOKEN`); unknown tokens get 401. Pages hold at most --page-size
items whatever per_page asks, so that paging is exercised. Comments are
checked against the platforms' length limits. A posted note whose JSON
says `"system": true` is a system note (GitLab makes those itself).

For the test: GET /_state gives every comment (oldest first) and every
call made; POST /_fail {"method", "path", "status"} makes calls whose path
matches the regular expression fail with that status (and a message that
repeats the token) until DELETE /_fail.
"""

import argparse
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit

GITHUB_LIMIT = 65536
GITLAB_LIMIT = 1000000


class State:
    def __init__(self, users, page_size):
        self.users = users  # token -> (login, id)
        self.page_size = page_size
        self.comments = []  # dicts, oldest first
        self.calls = []
        self.failure = None
        self.next_id = 1000

    def add(self, thread, body, user, system=False):
        self.next_id += 1
        comment = {"id": self.next_id, "thread": thread, "body": body, "user": user, "system": system}
        self.comments.append(comment)
        return comment


class Handler(BaseHTTPRequestHandler):
    state = None  # set in main

    def log_message(self, format, *args):
        pass  # the test reads /_state, not a log

    def reply(self, status, body=None, headers=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n) or b"null")

    def token(self):
        auth = self.headers.get("Authorization", "")
        return auth.split(" ", 1)[1] if " " in auth else self.headers.get("PRIVATE-TOKEN", "")

    def handle_any(self, method):
        s = self.state
        url = urlsplit(self.path)
        path, query = url.path, parse_qs(url.query)
        if path == "/_state" and method == "GET":
            return self.reply(200, {"comments": s.comments, "calls": s.calls})
        if path == "/_fail":
            s.failure = self.body() if method == "POST" else None
            return self.reply(204)
        s.calls.append([method, path])
        token = self.token()
        if s.failure and s.failure["method"] == method and re.search(s.failure["path"], path):
            # Echoes the token, as careless servers and proxies do: the
            # client must not print it.
            return self.reply(s.failure["status"], {"message": f"refused by the test for token {token}"})
        user = self.state.users.get(token)
        if user is None:
            return self.reply(401, {"message": "Bad credentials"})
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/comments", path)
        if m:
            return self.github_list_or_create(method, ("github", m.group(1), m.group(2)), query, user)
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/comments/(\d+)", path)
        if m:
            return self.github_one(method, m.group(1), int(m.group(2)))
        if path == "/api/v4/user" and method == "GET":
            return self.reply(200, {"id": user[1], "username": user[0]})
        m = re.fullmatch(r"/api/v4/projects/([^/]+)/merge_requests/(\d+)/notes(?:/(\d+))?", path)
        if m:
            thread = ("gitlab", m.group(1), m.group(2))
            if m.group(3):
                return self.gitlab_one(method, thread, int(m.group(3)), user)
            return self.gitlab_list_or_create(method, thread, query, user)
        return self.reply(404, {"message": "Not Found"})

    def page(self, thread, query):
        items = [c for c in self.state.comments if tuple(c["thread"]) == thread]
        per_page = min(int(query.get("per_page", ["30"])[0]), self.state.page_size)
        page = int(query.get("page", ["1"])[0])
        return items[(page - 1) * per_page : page * per_page], page, per_page, len(items)

    @staticmethod
    def github_json(c):
        return {"id": c["id"], "body": c["body"], "user": {"login": c["user"][0], "id": c["user"][1]}}

    def github_list_or_create(self, method, thread, query, user):
        if method == "GET":
            items, page, per_page, total = self.page(thread, query)
            headers = {}
            if page * per_page < total:
                host = self.headers.get("Host")
                headers["Link"] = (
                    f'<http://{host}{urlsplit(self.path).path}?per_page={per_page}&page={page + 1}>; rel="next"'
                )
            return self.reply(200, [self.github_json(c) for c in items], headers)
        if method == "POST":
            body = self.body()["body"]
            if len(body) > GITHUB_LIMIT:
                return self.reply(422, {"message": "Validation Failed: body is too long"})
            return self.reply(201, self.github_json(self.state.add(thread, body, user)))
        return self.reply(405, {"message": "Method Not Allowed"})

    def github_one(self, method, repo, id):
        c = next((c for c in self.state.comments if c["id"] == id and c["thread"][:2] == ("github", repo)), None)
        if c is None:
            return self.reply(404, {"message": "Not Found"})
        if method == "PATCH":
            body = self.body()["body"]
            if len(body) > GITHUB_LIMIT:
                return self.reply(422, {"message": "Validation Failed: body is too long"})
            c["body"] = body
            return self.reply(200, self.github_json(c))
        if method == "DELETE":
            self.state.comments.remove(c)
            return self.reply(204)
        return self.reply(405, {"message": "Method Not Allowed"})

    @staticmethod
    def gitlab_json(c):
        return {
            "id": c["id"],
            "body": c["body"],
            "system": c["system"],
            "author": {"username": c["user"][0], "id": c["user"][1]},
        }

    def gitlab_list_or_create(self, method, thread, query, user):
        if method == "GET":
            items, page, per_page, total = self.page(thread, query)
            more = page * per_page < total
            return self.reply(200, [self.gitlab_json(c) for c in items], {"X-Next-Page": str(page + 1) if more else ""})
        if method == "POST":
            sent = self.body()
            if len(sent["body"]) > GITLAB_LIMIT:
                return self.reply(400, {"message": {"note": ["is too long"]}})
            note = self.state.add(thread, sent["body"], user, bool(sent.get("system")))
            return self.reply(201, self.gitlab_json(note))
        return self.reply(405, {"message": "405 Method Not Allowed"})

    def gitlab_one(self, method, thread, id, user):
        c = next((c for c in self.state.comments if c["id"] == id and tuple(c["thread"]) == thread), None)
        if c is None:
            return self.reply(404, {"message": "404 Not found"})
        # GitLab lets only a note's author edit or delete it.
        if tuple(c["user"]) != tuple(user):
            return self.reply(403, {"message": "403 Forbidden"})
        if method == "PUT":
            c["body"] = self.body()["body"]
            return self.reply(200, self.gitlab_json(c))
        if method == "DELETE":
            self.state.comments.remove(c)
            return self.reply(204)
        return self.reply(405, {"message": "405 Method Not Allowed"})

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_DELETE(self):
        self.handle_any("DELETE")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--user", action="append", default=[], help="TOKEN=LOGIN:ID")
    parser.add_argument("--page-size", type=int, default=100)
    opts = parser.parse_args()
    users = {}
    for u in opts.user:
        token, who = u.split("=", 1)
        login, id = who.rsplit(":", 1)
        users[token] = (login, int(id))
    Handler.state = State(users, opts.page_size)
    server = HTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
