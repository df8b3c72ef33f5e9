"""``dream serve``: a small local web page to review dream runs.

A stdlib ``ThreadingHTTPServer``; pages are plain HTML with inline CSS and inline SVG charts
drawn by code (no scripts, no network assets, a strict Content-Security-Policy). It binds to
127.0.0.1 by default and refuses a non-loopback address unless a token is given; with a
token every request must carry it (``Authorization: Bearer``, the ``dream_token`` cookie, or
``?token=`` once, which sets the cookie and redirects to a clean URL). Without a token,
requests whose ``Host`` is not a loopback name are refused (DNS-rebinding protection).

Pages: ``/`` (runs with status, cost, tokens and duration, and plots of cost and memory
growth over runs), ``/runs/<id>`` (one run: figures, details, and the diff of its commits),
``/api/runs`` (the same data as JSON). Memory size after a run is the number of Markdown
documents (``brief.md`` and ``.dream/`` excluded) in each store at the run's commit, summed
over the stores seen so far.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
import secrets
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from dream.app import App
from dream.errors import BadInput, DreamError
from dream.review.charts import Point, chart
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

    @property
    def conn(self) -> sqlite3.Connection:
        return self.app.db

    def runs(self, limit: int = RUN_LIMIT) -> list[dict[str, Any]]:
        """Newest first, each with ``memory_docs`` (None when unknown)."""
        with self.lock:
            rows = self.conn.execute(
                "SELECT * FROM runs ORDER BY started_at DESC, rowid DESC LIMIT ?",
                (limit,)).fetchall()
            runs = [self._row(r) for r in rows]
            self._add_memory(runs)
        return runs

    def run(self, run_id: str) -> dict[str, Any]:
        with self.lock:
            row = self.conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise LookupError(run_id)
            run = self._row(row)
            run["diffs"] = self._diffs(run)
        return run

    @staticmethod
    def _row(row: sqlite3.Row) -> dict[str, Any]:
        try:
            details = json.loads(row["details"] or "{}")
        except ValueError:
            details = {}
        return {
            "id": row["id"], "kind": row["kind"], "mode": row["mode"], "status": row["status"],
            "model": row["model"], "project_key": row["project_key"],
            "started_at": row["started_at"], "finished_at": row["finished_at"],
            "items": row["items"], "bundles": row["bundles"], "calls": row["calls"],
            "input_tokens": row["input_tokens"], "output_tokens": row["output_tokens"],
            "cached_tokens": row["cached_tokens"], "cost_usd": row["cost_usd"] or 0.0,
            "duration_s": row["duration_s"] or 0.0, "commit": row["commit_sha"],
            "branch": row["branch"], "error": row["error"],
            "details": details if isinstance(details, dict) else {},
        }

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
        change)."""
        key = (store_id, sha)
        if key not in self._sizes:
            store = self._store(store_id)
            if store is None or not store.repo.has_commit(sha):
                return None
            sizes: dict[str, int] = {}
            for path, _blob in store.repo.list_files(sha):
                if not path.endswith(".md") or path.startswith(".dream/") \
                        or path.rsplit("/", 1)[-1] == "brief.md":
                    continue
                top = path.split("/", 1)[0] if "/" in path else "(top)"
                sizes[top] = sizes.get(top, 0) + 1
            self._sizes[key] = sizes
        return self._sizes[key]

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


# -- pages -------------------------------------------------------------------------------------
STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d232b;background:#f6f7f9}
header{background:#1d2b3a;color:#fff;padding:10px 24px}header a{color:#fff;text-decoration:none}
main{padding:16px 24px;max-width:1200px}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{padding:5px 8px;border-bottom:1px solid #e3e6ea;text-align:right;white-space:nowrap}
th{background:#eef1f4;font-weight:600}td.l,th.l{text-align:left}
.status{padding:1px 7px;border-radius:9px;font-size:12px;color:#fff}
.ok{background:#2e7d32}.partial{background:#b26a00}.failed{background:#c62828}
.running{background:#1565c0}.priced{background:#6a6a6a}
.charts{display:flex;gap:16px;flex-wrap:wrap;margin:12px 0}
svg.chart{background:#fff;border:1px solid #e3e6ea}
svg .grid{stroke:#e3e6ea}svg .tick{font-size:10px;fill:#555}
svg .chart-title{font-size:13px;font-weight:600}svg .empty{fill:#888}
pre.diff{background:#fff;border:1px solid #e3e6ea;padding:8px;overflow:auto;font-size:12px}
pre.diff .add{color:#1b5e20;background:#e8f5e9}pre.diff .del{color:#b71c1c;background:#ffebee}
pre.diff .hunk{color:#6a1b9a}.muted{color:#777}dl{display:grid;grid-template-columns:max-content
auto;gap:2px 16px}dt{font-weight:600}code{font-size:12px}
"""


def _page(title: str, body: str) -> str:
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
            "<header><a href=\"/\"><b>Dream</b> runs</a></header>"
            f"<main>{body}</main></body></html>")


def _money(value: float) -> str:
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"


def _status(status: str) -> str:
    return f'<span class="status {escape(status)}">{escape(status)}</span>'


def _short(run_id: str) -> str:
    return run_id[:15]


def runs_page(runs: list[dict[str, Any]]) -> str:
    chronological = list(reversed(runs))
    costs = [Point(_short(r["id"]), float(r["cost_usd"]), r["id"],
                   f"{r['id']} ({r['status']}): {_money(r['cost_usd'])}")
             for r in chronological]
    memory = [Point(_short(r["id"]), float(r["memory_docs"]), r["id"],
                    f"{r['id']}: {r['memory_docs']} documents")
              for r in chronological if r["memory_docs"] is not None]
    total_cost = sum(r["cost_usd"] for r in runs if r["status"] != "priced")
    total_in = sum(r["input_tokens"] for r in runs if r["status"] != "priced")
    summary = (f'<p id="summary">{len(runs)} runs · spent {_money(total_cost)} · '
               f'{total_in:,} input tokens (dry-run estimates not counted)</p>')
    charts = ('<div class="charts">'
              + chart("chart-cost", "Cost per run (USD)", costs, "$", "bar")
              + chart("chart-memory", "Memory documents after each run", memory, "", "line",
                      "#2e7d32")
              + "</div>")
    head = ("<tr><th class=l>run</th><th class=l>kind</th><th class=l>mode</th>"
            "<th class=l>status</th><th class=l>started</th><th>items</th><th>bundles</th>"
            "<th>calls</th><th>input</th><th>cached</th><th>output</th><th>cost</th>"
            "<th>duration</th><th>memory</th><th class=l>commit</th></tr>")
    rows = []
    for r in runs:
        link = f'/runs/{quote(r["id"], safe="")}'
        rows.append(
            f'<tr class="run" data-run="{escape(r["id"])}" data-status="{escape(r["status"])}">'
            f'<td class=l><a href="{link}">{escape(r["id"])}</a></td>'
            f'<td class=l>{escape(r["kind"])}</td><td class=l>{escape(r["mode"])}</td>'
            f'<td class=l>{_status(r["status"])}</td>'
            f'<td class=l>{escape((r["started_at"] or "")[:19].replace("T", " "))}</td>'
            f'<td>{r["items"]}</td><td>{r["bundles"]}</td><td>{r["calls"]}</td>'
            f'<td>{r["input_tokens"]:,}</td><td>{r["cached_tokens"]:,}</td>'
            f'<td>{r["output_tokens"]:,}</td><td class="cost">{_money(r["cost_usd"])}</td>'
            f'<td>{r["duration_s"]:.1f}s</td>'
            f'<td>{"" if r["memory_docs"] is None else r["memory_docs"]}</td>'
            f'<td class=l><code>{escape((r["commit"] or "")[:10])}</code></td></tr>')
    table = (f'<table id="runs">{head}{"".join(rows)}</table>' if rows else
             '<p class="muted" id="no-runs">No runs yet: run <code>dream run</code> first.</p>')
    return _page("Dream runs", "<h1>Runs</h1>" + summary + charts + table)


def _patch_html(patch: str) -> str:
    lines = []
    for line in patch.splitlines():
        cls = ""
        if line.startswith("+") and not line.startswith("+++"):
            cls = "add"
        elif line.startswith("-") and not line.startswith("---"):
            cls = "del"
        elif line.startswith("@@"):
            cls = "hunk"
        text = escape(line)
        lines.append(f'<span class="{cls}">{text}</span>' if cls else text)
    return "\n".join(lines)


def run_page(run: dict[str, Any]) -> str:
    fields = [("status", _status(run["status"])), ("kind", escape(run["kind"])),
              ("mode", escape(run["mode"])), ("model", escape(run["model"] or "")),
              ("project", escape(run["project_key"] or "")),
              ("started", escape(run["started_at"] or "")),
              ("finished", escape(run["finished_at"] or "")),
              ("duration", f'{run["duration_s"]:.2f}s'),
              ("items / bundles / calls", f'{run["items"]} / {run["bundles"]} / {run["calls"]}'),
              ("tokens in / cached / out", (f'{run["input_tokens"]:,} / '
               f'{run["cached_tokens"]:,} / {run["output_tokens"]:,}')),
              ("cost", _money(run["cost_usd"])),
              ("branch", f'<code>{escape(run["branch"] or "")}</code>'),
              ("commit", f'<code>{escape(run["commit"] or "")}</code>')]
    if run["error"]:
        fields.append(("error", f'<span class="error">{escape(run["error"])}</span>'))
    dl = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in fields)
    parts = [f'<h1>Run <code id="run-id">{escape(run["id"])}</code></h1><dl>{dl}</dl>']
    details = {k: v for k, v in run["details"].items() if k != "commits"}
    if details:
        parts.append("<h2>Details</h2><pre class=diff id=details>"
                     f"{escape(json.dumps(details, indent=2, sort_keys=True))}</pre>")
    parts.append("<h2>Changes</h2>")
    if not run["diffs"]:
        parts.append('<p class="muted" id="no-changes">This run made no commit.</p>')
    for diff in run["diffs"]:
        if diff["missing"]:
            parts.append(f'<p class="muted">commit <code>{escape(diff["commit"])}</code> is not '
                         f'in store {escape(diff["store"])} (pruned or not attached).</p>')
            continue
        files = "".join(f'<li><code>{escape(status)}</code> {escape(path)}</li>'
                        for status, path in diff["files"])
        sizes = ", ".join(f"{escape(k)}: {v}" for k, v in sorted(diff["size"].items()))
        parts.append(
            f'<section class="store-diff" data-store="{escape(diff["store_id"])}">'
            f'<h3>store {escape(diff["store"])} · <code>{escape(diff["commit"][:12])}</code></h3>'
            f'<p class="muted">documents after this run: {sizes or "none"}</p>'
            f'<ul class="files">{files}</ul>'
            f'<pre class="diff">{_patch_html(diff["patch"])}</pre>'
            + ('<p class="muted">diff truncated</p>' if diff["truncated"] else "")
            + "</section>")
    return _page(f"Dream run {run['id']}", "".join(parts))


def error_page(status: int, message: str) -> str:
    return _page(f"{status}", f'<h1>{status}</h1><p id="error">{escape(message)}</p>')


# -- server ------------------------------------------------------------------------------------
class ReviewServer:
    """The web page's HTTP server. ``port=0`` picks a free port."""

    def __init__(self, app: App, host: str = "127.0.0.1", port: int = 8765,
                 token: str | None = None) -> None:
        if token == "auto":
            token = secrets.token_urlsafe(24)
        check_bind(host, token)
        self.view = RunsView(app)
        self.host = host
        self.token = token or None
        try:
            self.httpd = ThreadingHTTPServer((host, port), _handler(self))
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


def _handler(server: ReviewServer) -> type[BaseHTTPRequestHandler]:
    routes: list[tuple[str, Callable[[str], tuple[int, str, str]]]] = []

    def runs_html(_rest: str) -> tuple[int, str, str]:
        return 200, "text/html; charset=utf-8", runs_page(server.view.runs())

    def runs_json(_rest: str) -> tuple[int, str, str]:
        runs = server.view.runs()
        return 200, "application/json", json.dumps({"runs": runs}, default=str)

    def run_html(rest: str) -> tuple[int, str, str]:
        try:
            run = server.view.run(rest)
        except LookupError:
            return 404, "text/html; charset=utf-8", error_page(
                404, f"no run '{rest}': list runs at /")
        return 200, "text/html; charset=utf-8", run_page(run)

    routes += [("/api/runs", runs_json), ("/runs/", run_html)]

    class Handler(BaseHTTPRequestHandler):
        server_version = "dream-serve"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:  # no request logs
            return

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            if not server.token and not self._host_is_loopback():
                return self._send(421, "text/html; charset=utf-8", error_page(
                    421, "this page answers only to localhost addresses"))
            if not server.authorised(self.headers, query):
                return self._send(401, "text/html; charset=utf-8", error_page(
                    401, "a token is required: open the address that 'dream serve' printed, "
                         "or send 'Authorization: Bearer TOKEN'"))
            if "token" in query:      # swap the token in the URL for a cookie
                rest = {k: v for k, v in query.items() if k != "token"}
                location = parts.path + ("?" + urlencode(rest, doseq=True) if rest else "")
                return self._send(303, "text/plain", "", {
                    "Location": location,
                    "Set-Cookie": f"{COOKIE}={server.token}; HttpOnly; SameSite=Strict; Path=/"})
            try:
                status, ctype, body = self._route(parts.path)
            except DreamError as exc:
                status, ctype, body = 400, "text/html; charset=utf-8", error_page(
                    400, exc.one_line())
            except Exception as exc:
                status, ctype, body = 500, "text/html; charset=utf-8", error_page(
                    500, f"internal error ({type(exc).__name__}); rerun 'dream serve' with "
                         "DREAM_DEBUG=1 to see it")
                if os.environ.get("DREAM_DEBUG"):
                    raise
            self._send(status, ctype, body)

        def do_POST(self) -> None:
            self._send(405, "text/html; charset=utf-8", error_page(405, "read-only page"),
                       {"Allow": "GET"})

        do_PUT = do_DELETE = do_PATCH = do_POST

        def _route(self, path: str) -> tuple[int, str, str]:
            if path in ("/", "/runs", "/runs/"):
                return runs_html("")
            for prefix, view in routes:
                if path == prefix or (prefix.endswith("/") and path.startswith(prefix)):
                    return view(unquote(path[len(prefix):]))
            return 404, "text/html; charset=utf-8", error_page(404, f"no page {path}")

        def _host_is_loopback(self) -> bool:
            host = self.headers.get("Host") or ""
            name = host.rsplit(":", 1)[0] if not host.startswith("[") else \
                host[1:].split("]", 1)[0]
            return is_loopback(name)

        def _send(self, status: int, ctype: str, body: str,
                  headers: dict[str, str] | None = None) -> None:
            data = body.encode("utf-8")
            try:
                self.send_response(status, HTTPStatus(status).phrase
                                   if status in HTTPStatus._value2member_map_ else None)
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
