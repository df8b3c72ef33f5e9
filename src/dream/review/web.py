"""``dream serve``: a small local web page to review dream runs.

A stdlib ``ThreadingHTTPServer``; pages are plain HTML with inline CSS and inline SVG charts
drawn by code (no scripts, no network assets, a strict Content-Security-Policy). It binds to
127.0.0.1 by default and refuses a non-loopback address unless a token is given; with a
token every request must carry it (``Authorization: Bearer``, the ``dream_token`` cookie, or
``?token=`` once, which sets the cookie and redirects to a clean URL). Without a token,
requests whose ``Host`` is not a loopback name are refused (DNS-rebinding protection).

Pages: ``/`` (runs with status, cost, tokens and duration, and plots of cost and memory
growth over runs), ``/runs/<id>`` (one run: figures, details, the diff of its commits, and
Promote/Discard for a dream run left for review; a review's proposals with Accept/Reject),
``/api/runs`` (the same data as JSON), ``/questions`` (open questions with answer forms;
:mod:`dream.review.steer` answers them, corrects fields and crumples notes through the
command line's own functions); the memory pages (``/memory``, ``/sessions/``,
``/search``) are :mod:`dream.review.memory_pages`. Memory size after a run is the number of
Markdown documents (``brief.md`` and ``.dream/`` excluded) in each store at the run's commit, summed
over the stores seen so far.
"""

from __future__ import annotations

import difflib
import hmac
import ipaddress
import json
import os
import secrets
import socket
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from dream import runs as run_records
from dream.app import App
from dream.errors import BadInput, DreamError
from dream.review import memory_pages, pages
from dream.review.steer import ACTIONS as STEER_ACTIONS
from dream.review.steer import Steering
from dream.store.git import looks_like_sha

MIN_TOKEN_LENGTH = 16
MAX_DIFF_CHARS = 200_000
RUN_LIMIT = 200
COOKIE = "dream_token"
CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")


def is_loopback(host: str) -> bool:
    host = host.strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback bind without a (long enough) token."""
    if is_loopback(host):
        return
    if not token:
        raise BadInput(f"refusing to serve on {host} without a token: anyone on the network "
                       "could read your memory",
                       "keep the default --host 127.0.0.1, or add --token auto (or a secret "
                       f"of at least {MIN_TOKEN_LENGTH} characters)")
    if len(token) < MIN_TOKEN_LENGTH:
        raise BadInput(f"the token is too short for a network bind ({len(token)} characters)",
                       f"use --token auto or a secret of at least {MIN_TOKEN_LENGTH} characters")


# -- data --------------------------------------------------------------------------------------
@dataclass
class RunsView:
    """Reads runs from the database and sizes from the stores. One lock serialises access:
    the SQLite connection and the git readers are shared by the server's threads."""

    app: App
    lock: threading.Lock = field(default_factory=threading.Lock)
    _sizes: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    _counted: dict[str, str] = field(default_factory=dict)    # store id -> last sha counted

    @property
    def conn(self) -> sqlite3.Connection:
        return self.app.db

    def runs(self, limit: int = RUN_LIMIT) -> list[dict[str, Any]]:
        """Newest first, each with ``memory_docs`` (None when unknown)."""
        with self.lock:
            runs = [r.as_dict() for r in run_records.recent(self.conn, limit, kind=None)]
            self._add_memory(runs)
        return runs

    def run(self, run_id: str) -> dict[str, Any]:
        with self.lock:
            found = run_records.find(self.conn, run_id)
            if found is None or found.id != run_id:
                raise LookupError(run_id)
            run = found.as_dict()
            run["diffs"] = self._diffs(run)
            run["proposals"] = self._proposals(run) if run["kind"] == "review" else None
        return run

    # -- review proposals (dream.review.service: the functions the CLI calls) ------------------
    def _proposals(self, run: dict[str, Any]) -> list[dict[str, Any]] | None:
        from dream.review import service

        found = service.list_proposals(self.app, run["id"])
        for proposal in found:
            proposal["diff"] = self._proposal_diff(run, proposal)
        return found

    def _proposal_diff(self, run: dict[str, Any], proposal: dict[str, Any]) -> str:
        change = proposal.get("change") or {}
        if change.get("type") != "note" or not change.get("path"):
            patch = change.get("patch") or {}
            return str(patch.get("diff") or "") if isinstance(patch, dict) else ""
        store = self._proposal_store(run, change["path"])
        if store is None:
            return ""
        commit = proposal.get("commit")
        if commit and looks_like_sha(commit) and store.repo.has_commit(commit):
            return store.repo.git("show", "--no-color", "--no-ext-diff", "--format=", commit,
                                  "--", change["path"], check=False)[:MAX_DIFF_CHARS]
        head = store.repo.head()
        before = (store.repo.read_at(head, change["path"]) or b"") if head else b""
        after = str(change.get("content") or "")
        return "".join(difflib.unified_diff(
            before.decode("utf-8", errors="replace").splitlines(keepends=True),
            after.splitlines(keepends=True), f"a/{change['path']}", f"b/{change['path']}"))

    def _proposal_store(self, run: dict[str, Any], path: str):
        """Where an accepted note goes: the notes home for user/ notes, else the project's
        Primary Store (dream.review.promotion.target_store's rule)."""
        if path.startswith("user/") or not run["project_key"]:
            return self.app.stores.notes_home()
        return self.app.stores.primary_for(run["project_key"])

    def decide(self, run_id: str, action: str, slug: str, why: str | None) -> list[dict]:
        """Accept or reject one proposal with exactly what 'dream review accept|reject'
        calls."""
        from dream.core import review

        if not slug:
            raise BadInput("no proposal chosen", "press a proposal's Accept or Reject button")
        with self.lock:
            if action == "accept":
                return review.accept(self.app, [slug], run_id)
            return review.reject(self.app, [slug], why, run_id)

    def decide_run(self, run_id: str, promote: bool) -> dict[str, Any]:
        """Promote or discard a dream run left for review (``--apply review``) with exactly
        what 'dream runs promote|discard' calls; returns the run as the CLI sees it."""
        from dream.core import dreams

        with self.lock:
            return dreams.decide(self.app, run_id, promote).as_dict()

    def _commits(self, run: dict[str, Any]) -> dict[str, str]:
        """store id -> commit for a run (details.commits, else commit on the primary store)."""
        commits = run["details"].get("commits")
        if isinstance(commits, dict) and commits:
            return {str(k): str(v) for k, v in commits.items() if v and looks_like_sha(str(v))}
        sha = run.get("commit")
        if not sha or not looks_like_sha(sha):
            return {}
        store = self.app.stores.primary_for(run["project_key"]) if run["project_key"] else None
        store = store or self.app.stores.notes_home()
        return {store.id: sha}

    def _store(self, store_id: str):
        try:
            return self.app.stores.by_id(store_id)
        except DreamError:
            return None

    def memory_size(self, store_id: str, sha: str) -> dict[str, int] | None:
        """Documents per top-level folder in a store at a commit (cached: commits never
        change). The first commit of a store is counted from its whole tree; every other
        from the last one counted, plus the files ``git diff-tree`` says were added and
        minus those deleted, so 200 runs over 100,000 notes cost one full listing, not 200."""
        key = (store_id, sha)
        if key not in self._sizes:
            store = self._store(store_id)
            if store is None or not store.repo.has_commit(sha):
                return None
            base = self._counted.get(store_id)
            sizes = self._size_from(store, base, sha) if base else None
            if sizes is None:
                sizes = {}
                for path, _blob in store.repo.list_files(sha):
                    _count(sizes, path, 1)
            self._sizes[key] = sizes
            self._counted[store_id] = sha
        return self._sizes[key]

    def _size_from(self, store, base: str, sha: str) -> dict[str, int] | None:
        out = store.repo.git("diff-tree", "-r", "-z", "--no-renames", "--name-status", base,
                             sha, check=False)
        sizes = dict(self._sizes[(store.id, base)])
        parts = out.split("\x00")
        for status, path in zip(parts[0::2], parts[1::2], strict=False):
            if status.startswith("A"):
                _count(sizes, path, 1)
            elif status.startswith("D"):
                _count(sizes, path, -1)
        return {k: v for k, v in sizes.items() if v}

    def _add_memory(self, runs: list[dict[str, Any]]) -> None:
        last: dict[str, int] = {}
        for run in reversed(runs):                      # oldest first
            known = False
            for store_id, sha in self._commits(run).items():
                size = self.memory_size(store_id, sha)
                if size is not None:
                    last[store_id] = sum(size.values())
                    known = True
            run["memory_docs"] = sum(last.values()) if known else None

    def _diffs(self, run: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for store_id, sha in self._commits(run).items():
            store = self._store(store_id)
            if store is None or not store.repo.has_commit(sha):
                out.append({"store": store_id, "commit": sha, "missing": True, "files": [],
                            "patch": ""})
                continue
            patch = store.repo.git("show", "--no-color", "--no-ext-diff", "--format=%H%n%B",
                                   "--patch", "--stat", sha, check=False)
            files = [line.split("\t", 1) for line in store.repo.git(
                "show", "--no-color", "--format=", "--name-status", sha,
                check=False).splitlines() if "\t" in line]
            truncated = len(patch) > MAX_DIFF_CHARS
            out.append({"store": store.name, "store_id": store.id, "commit": sha,
                        "missing": False, "files": files,
                        "size": self.memory_size(store.id, sha) or {},
                        "patch": patch[:MAX_DIFF_CHARS], "truncated": truncated})
        return out


def _count(sizes: dict[str, int], path: str, delta: int) -> None:
    """Count a Markdown document of the memory (``brief.md`` and ``.dream/`` excluded) in
    its top-level folder."""
    if not path.endswith(".md") or path.startswith(".dream/") \
            or path.rsplit("/", 1)[-1] == "brief.md":
        return
    top = path.split("/", 1)[0] if "/" in path else "(top)"
    sizes[top] = sizes.get(top, 0) + delta


# -- server ------------------------------------------------------------------------------------
HTML = "text/html; charset=utf-8"
MAX_FORM_BYTES = 64 * 1024


class _IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


class ReviewServer:
    """The web page's HTTP server. ``port=0`` picks a free port."""

    def __init__(self, app: App, host: str = "127.0.0.1", port: int = 8765,
                 token: str | None = None) -> None:
        if token == "auto":
            token = secrets.token_urlsafe(24)
        check_bind(host, token)
        self.view = RunsView(app)
        self.steer = Steering(self.view)
        self.host = host
        self.token = token or None
        self.csrf = secrets.token_urlsafe(24)    # forms carry it; other origins cannot read it
        try:
            server_class = _IPv6Server if ":" in host else ThreadingHTTPServer
            self.httpd = server_class((host, port), _handler(self))
        except OSError as exc:
            raise BadInput(f"cannot listen on {host}:{port} ({exc.strerror or exc})",
                           "choose another --port (0 picks a free one)") from exc
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    @property
    def login_url(self) -> str:
        return self.url + ("?" + urlencode({"token": self.token}) if self.token else "")

    def serve_forever(self) -> None:
        self.httpd.serve_forever(poll_interval=0.2)

    def start(self) -> ReviewServer:
        """Serve in a daemon thread (tests, embedding)."""
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(timeout=5)
        self.httpd.server_close()

    def authorised(self, headers: Any, query: dict[str, list[str]]) -> bool:
        if not self.token:
            return True
        offered = []
        auth = headers.get("Authorization") or ""
        if auth.lower().startswith("bearer "):
            offered.append(auth[7:].strip())
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("Cookie") or "")
        except Exception:  # noqa: BLE001 - a malformed cookie header is just no cookie
            cookie = SimpleCookie()
        if COOKIE in cookie:
            offered.append(cookie[COOKIE].value)
        offered.extend(query.get("token", []))
        return any(hmac.compare_digest(o.encode(), self.token.encode()) for o in offered)

    # -- pages -------------------------------------------------------------------------------
    def get(self, path: str, query: dict[str, list[str]]) -> tuple[int, str, str]:
        if path in ("/", "/runs", "/runs/"):
            memory = memory_pages.front_section(self.view.app, self.view.lock)
            return 200, HTML, pages.runs_page(self.view.runs(), memory)
        routed = memory_pages.route(self.view.app, self.view.lock, path, query,
                                    lambda rec, q: self.steer.record_forms(rec, q, self.csrf))
        if routed is not None:
            return routed
        if path == "/api/runs":
            return 200, "application/json", json.dumps({"runs": self.view.runs()}, default=str)
        if path.startswith("/runs/") and path.count("/") == 2:
            run_id = unquote(path[len("/runs/"):])
            try:
                run = self.view.run(run_id)
            except LookupError:
                return 404, HTML, pages.error_page(404, f"no run '{run_id}': list runs at /")
            done = (query.get("done") or [""])[0]
            return 200, HTML, pages.run_page(run, self.csrf, done)
        found = self.steer.get(path, query, self.csrf)
        if found is not None:
            return found
        return 404, HTML, pages.error_page(404, f"no page {path}")

    def post(self, path: str, form: dict[str, list[str]]) -> tuple[int, str, str, str | None]:
        """(status, type, body, redirect) for accept/reject of a review's proposal and
        promote/discard of a dream run left for review; same functions as the CLI."""
        parts = path.strip("/").split("/")
        steering = path in STEER_ACTIONS
        if not steering and (len(parts) != 3 or parts[0] != "runs" or
                             parts[2] not in ("accept", "reject", "promote", "discard")):
            return 404, HTML, pages.error_page(404, f"no action {path}"), None
        if not hmac.compare_digest((form.get("csrf") or [""])[0].encode(), self.csrf.encode()):
            return 403, HTML, pages.error_page(
                403, "this form is stale or came from another site: reload the page"), None
        if steering:
            return self.steer.post(path, form)
        run_id, action = unquote(parts[1]), parts[2]
        if action in ("promote", "discard"):
            return self._decide_run(run_id, action == "promote")
        slug = (form.get("slug") or [""])[0]
        why = (form.get("why") or [""])[0].strip() or None
        back = "/runs/" + quote(run_id, safe="")
        try:
            self.view.decide(run_id, action, slug, why)
        except DreamError as exc:
            return 409, HTML, pages.error_page(409, exc.one_line(), back), None
        done = f"{'accepted' if action == 'accept' else 'rejected'} {slug}"
        return 303, "text/plain", "", back + "?" + urlencode({"done": done}) + "#proposals"

    def _decide_run(self, run_id: str, promote: bool) -> tuple[int, str, str, str | None]:
        back = "/runs/" + quote(run_id, safe="")
        try:
            run = self.view.decide_run(run_id, promote)
        except DreamError as exc:
            return 409, HTML, pages.error_page(409, exc.one_line(), back), None
        if promote:
            heads = ", ".join(h[:12] for h in run["details"].get("promoted_heads", {}).values())
            done = f"run {run['id']} promoted: the store is now at {heads}"
        else:
            done = (f"run {run['id']} discarded; its branch {run['branch']} stays in git for "
                    "the record")
        back = "/runs/" + quote(run["id"], safe="")
        return 303, "text/plain", "", back + "?" + urlencode({"done": done}) + "#decision"


def _handler(server: ReviewServer) -> type[BaseHTTPRequestHandler]:

    class Handler(BaseHTTPRequestHandler):
        server_version = "dream-serve"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:  # no request logs
            return

        def _guard(self, query: dict[str, list[str]]) -> bool:
            """Host and token checks; False when an error page was sent."""
            if not server.token and not self._host_is_loopback():
                self._send(421, HTML, pages.error_page(
                    421, "this page answers only to localhost addresses"))
                return False
            if not server.authorised(self.headers, query):
                self._send(401, HTML, pages.error_page(
                    401, "a token is required: open the address that 'dream serve' printed, "
                         "or send 'Authorization: Bearer TOKEN'"))
                return False
            return True

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            if not self._guard(query):
                return
            if "token" in query:      # swap the token in the URL for a cookie
                rest = {k: v for k, v in query.items() if k != "token"}
                location = parts.path + ("?" + urlencode(rest, doseq=True) if rest else "")
                return self._send(303, "text/plain", "", {
                    "Location": location,
                    "Set-Cookie": f"{COOKIE}={server.token}; HttpOnly; SameSite=Strict; Path=/"})
            self._answer(lambda: (*server.get(parts.path, query), None))

        def do_POST(self) -> None:
            parts = urlsplit(self.path)
            if not self._guard({}):
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if length < 0:      # 'abc' or '-5' printed a traceback and closed the connection
                return self._send(400, HTML, pages.error_page(400, "bad Content-Length"))
            if length > MAX_FORM_BYTES:
                return self._send(413, HTML, pages.error_page(413, "form too large"))
            raw = self.rfile.read(length).decode("utf-8", errors="replace")
            self._answer(lambda: server.post(parts.path, parse_qs(raw)))

        def do_PUT(self) -> None:
            self._send(405, HTML, pages.error_page(405, "not allowed"), {"Allow": "GET, POST"})

        do_DELETE = do_PATCH = do_PUT

        def _answer(self, produce: Callable[[], tuple[int, str, str, str | None]]) -> None:
            try:
                status, ctype, body, location = produce()
            except DreamError as exc:
                status, ctype, body, location = 400, HTML, pages.error_page(
                    400, exc.one_line()), None
            except Exception as exc:
                if os.environ.get("DREAM_DEBUG"):
                    raise
                status, ctype, body, location = 500, HTML, pages.error_page(
                    500, f"internal error ({type(exc).__name__}); rerun 'dream serve' with "
                         "DREAM_DEBUG=1 to see it"), None
            self._send(status, ctype, body, {"Location": location} if location else None)

        def _host_is_loopback(self) -> bool:
            host = self.headers.get("Host") or ""
            name = host.rsplit(":", 1)[0] if not host.startswith("[") else \
                host[1:].split("]", 1)[0]
            return is_loopback(name)

        def _send(self, status: int, ctype: str, body: str,
                  headers: dict[str, str] | None = None) -> None:
            data = body.encode("utf-8")
            try:
                self.send_response(status)
                for key, value in {"Content-Type": ctype, "Content-Length": str(len(data)),
                                   "Content-Security-Policy": CSP,
                                   "X-Content-Type-Options": "nosniff",
                                   "Referrer-Policy": "no-referrer",
                                   "Cache-Control": "no-store", **(headers or {})}.items():
                    self.send_header(key, value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
            except OSError:
                pass

    return Handler
