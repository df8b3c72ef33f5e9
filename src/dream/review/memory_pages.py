"""The memory pages of ``dream serve``: read-only HTML over :mod:`dream.core.memory`.

Routes (all GET; the server's token, host and CSP rules apply as to every page):

- ``/memory``: every scope of every store with the size of each list;
- ``/memory/<store>?scope=ROOT[&list=NAME&page=N]``: a scope's brief as the agent reads
  it and one list of its records (upcoming or past events, open or done to-dos, standing
  facts, people, notes, crumpled notes, questions), a page at a time;
- ``/memory/<store>/<path>``: one record: each field's value, when it was said, the run
  and pass that wrote it and its evidence quoted from the spool (redacted text, source,
  author, time, a link to the place in its session), and its history from git;
- ``/sessions/<stream>?page=N``: a session, paged like ``dream history show``;
- ``/search?q=WORDS[&in=history][&store=ID][&page=N]``: memory search ranked like
  ``dream search``, or history search like ``dream history search``.

Every value is escaped; a hostile path is a 400 page, a missing one a 404 page. The
server's lock is held while the core reads (the SQLite connection and git readers are
shared by its threads).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from html import escape
from typing import Any
from urllib.parse import quote, unquote, urlencode

from dream.app import App
from dream.core import memory
from dream.errors import BadAddress, BadInput, DreamError, NoteNotFound
from dream.review.pages import SEARCH_CHARS, _page, error_page

HTML = "text/html; charset=utf-8"
RecordExtra = Callable[[memory.RecordView, dict[str, list[str]]], str]
MAX_QUOTE = 2000
SEARCH_IN = ("memory", "history")
STYLE = """
.scopes td a{display:inline-block;min-width:1.5em}.kinds{display:flex;gap:6px;flex-wrap:wrap;
margin:8px 0}.kinds a{background:#fff;border:1px solid #d0d5db;border-radius:12px;padding:2px 10px;
color:#1d232b;text-decoration:none}.kinds a.on{background:#1d2b3a;color:#fff}
pre.brief{white-space:pre-wrap;background:#fff;border:1px solid #e3e6ea;padding:8px 12px}
ul.records{background:#fff;border:1px solid #e3e6ea;padding:6px 12px 6px 28px}
ul.records li{margin:3px 0}.state{font-size:12px;padding:0 6px;border-radius:8px;
background:#e3e6ea;margin-left:6px}.pager{margin:8px 0;display:flex;gap:12px}
table.fields td{white-space:normal;vertical-align:top;text-align:left}
blockquote.said{margin:4px 0;padding:4px 10px;border-left:3px solid #90a4ae;background:#fafafa;
white-space:pre-wrap}.said footer{font-size:12px;color:#555;margin-top:2px}
.version{background:#fff;border:1px solid #e3e6ea;padding:6px 12px;margin:8px 0}
.item{background:#fff;border:1px solid #e3e6ea;padding:6px 12px;margin:6px 0}
.item:target{background:#fff3cd;border-color:#b26a00}.item pre{white-space:pre-wrap;margin:4px 0}
.hit{background:#fff;border:1px solid #e3e6ea;padding:6px 12px;margin:6px 0}
form.search{display:flex;gap:6px;margin:8px 0}
"""


# -- routing -----------------------------------------------------------------------------------
def route(app: App, lock: threading.Lock, path: str, query: dict[str, list[str]],
          record_extra: RecordExtra | None = None) -> tuple[int, str, str] | None:
    """(status, content type, body) for a memory page, or None when ``path`` is not one.
    ``record_extra`` adds HTML to a record's page (the steering forms)."""
    if path not in ("/memory", "/search") and not path.startswith(("/memory/", "/sessions/")):
        return None
    try:
        with lock:
            return 200, HTML, _dispatch(app, path, query, record_extra)
    except NoteNotFound as exc:
        return 404, HTML, error_page(404, exc.one_line(), "/memory")
    except (BadAddress, BadInput) as exc:
        return 400, HTML, error_page(400, exc.one_line(), "/memory")


def _one(query: dict[str, list[str]], name: str, default: str = "") -> str:
    return (query.get(name) or [default])[0]


def _page_number(query: dict[str, list[str]]) -> int:
    raw = _one(query, "page", "1")
    if not raw.isdigit() or not 0 < int(raw) < 10 ** 7:
        raise BadInput(f"page '{raw[:20]}' is not a page number", "use page=1, page=2, ...")
    return int(raw)


def _dispatch(app: App, path: str, query: dict[str, list[str]],
              record_extra: RecordExtra | None = None) -> str:
    if path == "/memory":
        return scopes_page(memory.scopes(app))
    if path == "/search":
        return search_page(app, query)
    if path.startswith("/sessions/"):
        stream = _unquote(path[len("/sessions/"):])
        try:
            found = memory.session(app, stream, _page_number(query))
        except BadInput as exc:
            if "no collected session" in exc.message:
                raise NoteNotFound(exc.message, exc.hint) from exc
            raise
        return session_page(found)
    rest = path[len("/memory/"):]
    store_id, _, doc = rest.partition("/")
    store_id = _unquote(store_id)
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,80}", store_id):
        raise BadAddress(f"'{store_id[:80]}' is not a store id", "pick a store from /memory")
    if doc:
        rec = memory.record(app, store_id, _unquote(doc))
        return record_page(rec, record_extra(rec, query) if record_extra else "")
    root = memory.check_root(_one(query, "scope", "user"))
    name = _one(query, "list")
    if name:
        listed = memory.list_records(app, store_id, root, name, _page_number(query))
        return scope_page(listed.scope, None, listed)
    return scope_page(memory.find_scope(app, store_id, root),
                      memory.brief(app, store_id, root), None)


def _unquote(text: str) -> str:
    return unquote(text, errors="replace")


# -- links -------------------------------------------------------------------------------------
def scope_link(store_id: str, root: str, name: str = "", page: int = 1) -> str:
    params: dict[str, Any] = {"scope": root}
    if name:
        params["list"] = name
    if page > 1:
        params["page"] = page
    return f"/memory/{quote(store_id, safe='')}?{urlencode(params)}"


def record_link(store_id: str, path: str, anchor: str = "") -> str:
    return f"/memory/{quote(store_id, safe='')}/{quote(path)}" + (f"#{anchor}" if anchor else "")


def session_link(stream: str, page: int = 1, n: int | None = None) -> str:
    link = f"/sessions/{quote(stream, safe='')}"
    if page > 1:
        link += f"?page={page}"
    return link + (f"#item-{n}" if n else "")


def _a(href: str, text: str, attrs: str = "") -> str:
    return f'<a href="{escape(href)}"{attrs}>{escape(text)}</a>'


# -- front page and scopes ---------------------------------------------------------------------
def front_section(app: App, lock: threading.Lock) -> str:
    """The front page's memory section: every scope and its lists, each count a link."""
    try:
        with lock:
            found = memory.scopes(app)
    except DreamError as exc:           # a broken store must not take the runs page down
        return f'<p class="muted" id="memory-error">{escape(exc.one_line())}</p>'
    return ('<h1>Memory</h1>' + _search_form("", "memory", "") + _scopes_table(found))


def _scopes_table(found: list[memory.Scope]) -> str:
    if not found:
        return ('<p class="muted" id="no-memory">No memory yet: run <code>dream run</code> '
                'after <code>dream collect</code>.</p>')
    head = "<tr><th class=l>store</th><th class=l>scope</th>" + "".join(
        f"<th>{escape(spec.label)}</th>" for spec in memory.LISTS) + "</tr>"
    rows = []
    for scope in found:
        cells = []
        for spec in memory.LISTS:
            n = scope.counts.get(spec.name, 0)
            cells.append(f'<td>{_a(scope_link(scope.store_id, scope.root, spec.name), str(n))}'
                         '</td>' if n else '<td class="muted">0</td>')
        rows.append(
            f'<tr class="scope" data-store="{escape(scope.store_id)}" '
            f'data-root="{escape(scope.root)}"><td class=l>{escape(scope.store_name)}</td>'
            f'<td class=l>{_a(scope_link(scope.store_id, scope.root), scope.label)}</td>'
            + "".join(cells) + "</tr>")
    return f'<table class="scopes" id="scopes">{head}{"".join(rows)}</table>'


def scopes_page(found: list[memory.Scope]) -> str:
    return _page("Dream memory", "<h1>Memory</h1>" + _search_form("", "memory", "")
                 + _scopes_table(found), STYLE)


def _brief_html(store_id: str, root: str, text: str) -> str:
    """The brief's text, each ``[path]`` or ``[standing.md#field]`` a link to its record."""
    out = []
    last = 0
    for m in re.finditer(r"\[([a-z]+/[A-Za-z0-9._-]+\.md|standing\.md)(#[a-z0-9_]+)?\]", text):
        out.append(escape(text[last:m.start()]))
        anchor = f"field-{m[2][1:]}" if m[2] else ""
        out.append("[" + _a(record_link(store_id, f"{root}/{m[1]}", anchor), m[0][1:-1],
                            ' class="ref"') + "]")
        last = m.end()
    out.append(escape(text[last:]))
    return f'<pre class="brief" id="brief">{"".join(out)}</pre>'


def scope_page(scope: memory.Scope, brief: str | None, listed: memory.RecordList | None
               ) -> str:
    title = f"{scope.label} ({scope.store_name})"
    parts = [f'<h1>Memory: {escape(scope.label)}</h1>',
             f'<p class="muted">store {escape(scope.store_name)} · {scope.documents} '
             'documents</p>', _search_form("", "memory", scope.store_id)]
    tabs = []
    for spec in memory.LISTS:
        on = ' class="on"' if listed and listed.spec.name == spec.name else ""
        n = scope.counts.get(spec.name, 0)
        tabs.append(f'<a href="{escape(scope_link(scope.store_id, scope.root, spec.name))}"'
                    f' data-list="{spec.name}"{on}>{escape(spec.label)} ({n})</a>')
    brief_on = ' class="on"' if listed is None else ""
    parts.append(f'<nav class="kinds"><a href="{escape(scope_link(scope.store_id, scope.root))}"'
                 f' data-list="brief"{brief_on}>Brief</a>{"".join(tabs)}</nav>')
    if listed is not None:
        parts.append(list_html(listed))
    elif brief is not None:
        parts.append("<h2>Brief, as the agent reads it</h2>"
                     + _brief_html(scope.store_id, scope.root, brief))
    else:
        parts.append('<p class="muted" id="no-brief">No brief here yet: a dream run writes '
                     'one per scope.</p>')
    return _page(f"Dream memory: {title}", "".join(parts), STYLE)


def list_html(listed: memory.RecordList) -> str:
    scope = listed.scope
    head = (f'<h2 id="list" data-list="{listed.spec.name}">{escape(listed.spec.label)} '
            f'({listed.total})</h2>')
    if not listed.rows:
        return head + '<p class="muted" id="empty-list">Nothing here.</p>'
    items = []
    for row in listed.rows:
        day = f'<span class="muted">{escape(row.day[:16])}</span> ' if row.day and \
            row.kind in ("event", "todo") else ""
        state = f'<span class="state">{escape(row.state)}</span>' if row.state else ""
        items.append(f'<li class="record" data-path="{escape(row.path)}">{day}'
                     f'{_a(record_link(scope.store_id, row.path), row.title)}{state}</li>')
    return (head + f'<ul class="records">{"".join(items)}</ul>'
            + _pager(listed.page, listed.pages,
                     lambda p: scope_link(scope.store_id, scope.root, listed.spec.name, p)))


def _pager(page: int, pages: int, link: Any) -> str:
    if pages <= 1:
        return ""
    prev = _a(link(page - 1), "← previous", ' rel="prev" id="prev"') if page > 1 else ""
    nxt = _a(link(page + 1), "next →", ' rel="next" id="next"') if page < pages else ""
    return f'<p class="pager">{prev}<span>page {page} of {pages}</span>{nxt}</p>'


# -- one record --------------------------------------------------------------------------------
def _quote_item(ev: memory.Evidence) -> str:
    if ev.commit:
        return (f'<blockquote class="said edit" data-evidence="{escape(ev.id)}">edited by hand '
                f'in commit <code>{escape(ev.commit[:12])}</code></blockquote>')
    item = ev.item
    if item is None:
        return (f'<blockquote class="said missing" data-evidence="{escape(ev.id)}">'
                f'<code>{escape(ev.id)}</code> is not in this home\'s spool (collected '
                'elsewhere, or scrubbed)</blockquote>')
    text = item["text"] if len(item["text"]) <= MAX_QUOTE else item["text"][:MAX_QUOTE] + " …"
    who = item["author"] or item["role"]
    when = (item["said_at"] or "")[:19].replace("T", " ")
    link = session_link(item["stream"], ev.session_page, item["n"])
    return (f'<blockquote class="said" data-evidence="{escape(ev.id)}">{escape(text)}'
            f'<footer>{escape(who)} · {escape(when)} · {escape(item["source"])} · '
            f'{_a(link, "session " + item["stream"] + " #" + str(item["n"]), " class=session")}'
            '</footer></blockquote>')


def _run_html(run: str, runs: dict[str, bool]) -> str:
    if not run:
        return ""
    if runs.get(run):
        return _a(f"/runs/{quote(run, safe='')}", run, ' class="run"')
    return f"<code>{escape(run)}</code>"


def record_page(rec: memory.RecordView, extra: str = "") -> str:
    """One record; ``extra`` (HTML) goes between its fields and its history."""
    crumbs = (f'{_a(scope_link(rec.store_id, rec.root), memory.ROOT_NAMES.get(rec.root, rec.root))}'
              f' · store {escape(rec.store_name)} · <code>{escape(rec.path)}</code>')
    parts = [f'<p class="muted">{crumbs}</p>',
             f'<h1 id="title">{escape(rec.title)}</h1>',
             f'<p class="muted">{escape(rec.kind)} · key <code>{escape(rec.key)}</code>'
             + (f" · version {rec.version}" if rec.version else "")
             + f' · at <code>{escape(rec.head[:12])}</code></p>']
    if rec.fields:
        rows = []
        for f in rec.fields:
            quotes = "".join(_quote_item(e) for e in f.evidence) or \
                '<span class="muted">no evidence recorded</span>'
            rows.append(
                f'<tr class="field" id="field-{escape(f.name)}" data-field="{escape(f.name)}">'
                f'<td><b>{escape(f.name)}</b></td><td class="value">{escape(f.value)}</td>'
                f'<td>{escape(f.said_at[:19].replace("T", " "))}</td>'
                f'<td>{_run_html(f.run, rec.runs)}<br><span class="muted">{escape(f.pass_)}'
                f' · v{f.version}</span>'
                + (f'<br><code class="commit">{escape(f.commit[:12])}</code>' if f.commit
                   else "") + f'</td><td>{quotes}</td></tr>')
        parts.append('<h2>Fields</h2><table class="fields" id="fields"><tr><th class=l>field'
                     '</th><th class=l>value</th><th class=l>said at</th><th class=l>written '
                     'by (run, pass, commit)</th><th class=l>evidence: the messages behind it</th></tr>'
                     + "".join(rows) + "</table>")
    else:
        meta = "".join(f"<dt>{escape(str(k))}</dt><dd>{escape(str(v))}</dd>"
                       for k, v in rec.meta.items())
        parts.append((f'<dl id="meta">{meta}</dl>' if meta else "")
                     + f'<pre class="text" id="body">{escape(rec.body)}</pre>')
    parts.append(extra)
    parts.append(history_html(rec))
    return _page(f"Dream memory: {rec.title}", "".join(parts), STYLE)


def history_html(rec: memory.RecordView) -> str:
    out = [f'<h2 id="history">History ({len(rec.history)}'
           + ("+" if rec.more_history else "") + " versions)</h2>"]
    for v in rec.history:
        trailers = []
        for name in ("Dream-Run", "Dream-Pass", "Dream-Project"):
            for value in v.trailers.get(name, []):
                shown = _run_html(value, rec.runs) if name == "Dream-Run" else escape(value)
                trailers.append(f"{escape(name)}: {shown}")
        n_ev = len(v.trailers.get("Dream-Evidence", []))
        if n_ev:
            trailers.append(f"Dream-Evidence: {n_ev} items")
        changes = []
        for c in v.changes:
            if c.old is None:
                what = f"set to <b>{escape(_clip(c.new or ''))}</b>"
            elif c.new is None:
                what = f"removed (was {escape(_clip(c.old))})"
            elif c.old == c.new:
                what = f"<b>{escape(_clip(c.new))}</b> (new evidence)"
            else:
                what = f"{escape(_clip(c.old))} → <b>{escape(_clip(c.new))}</b>"
            by = " by " + " · ".join(x for x in (_run_html(c.run, rec.runs), escape(c.pass_))
                                     if x) if c.run or c.pass_ else ""
            ev = ", ".join(
                _a(session_link(e.item["stream"], e.session_page, e.item["n"]),
                   f'{e.item["stream"]} #{e.item["n"]}', ' class="session"')
                if e.item else f"<code>{escape(e.id[:20])}</code>" for e in c.evidence)
            changes.append(f'<li data-field="{escape(c.name)}"><b>{escape(c.name)}</b>: '
                           f'{what}{by}' + (f" · evidence: {ev}" if ev else "") + "</li>")
        if v.deleted:
            changes.append("<li>the document was removed</li>")
        out.append(
            f'<section class="version" data-commit="{escape(v.commit)}">'
            f'<p><code>{escape(v.commit[:12])}</code> · {escape(v.date[:19].replace("T", " "))}'
            f' · {escape(v.author)} · {escape(v.subject)}</p>'
            + (f'<p class="muted">{" · ".join(trailers)}</p>' if trailers else "")
            + (f'<ul class="changes">{"".join(changes)}</ul>' if changes else "")
            + "</section>")
    if rec.more_history:
        out.append(f'<p class="muted">older versions: <code>git log -- {escape(rec.path)}'
                   '</code> in the store</p>')
    return "".join(out)


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


# -- sessions ----------------------------------------------------------------------------------
def session_page(found: dict[str, Any]) -> str:
    stream = found["stream"]
    parts = [f'<h1>Session <code id="stream">{escape(stream)}</code></h1>',
             f'<p class="muted">{found["total"]} items · page {found["page"]} of '
             f'{max(1, found["pages"])} · redacted text, in the order it was said</p>']
    for item in found["items"]:
        who = item["author"] or item["role"]
        when = (item["said_at"] or "")[:19].replace("T", " ")
        tool = f" {item['tool_name']}" if item["tool_name"] else ""
        text = item["text"] if len(item["text"]) <= MAX_QUOTE * 2 else \
            item["text"][:MAX_QUOTE * 2] + " …"
        parts.append(
            f'<div class="item" id="item-{item["n"]}" data-id="{escape(item["id"])}">'
            f'<b>#{item["n"]}</b> {escape(when)} <b>{escape(who)}</b> '
            f'<span class="muted">[{escape(item["kind"])}{escape(tool)}]'
            f'{"" if item["evidence"] else " not evidence"}</span>'
            f'<pre>{escape(text)}</pre></div>')
    parts.append(_pager(found["page"], found["pages"], lambda p: session_link(stream, p)))
    return _page(f"Dream session {stream}", "".join(parts), STYLE)


# -- search ------------------------------------------------------------------------------------
def _search_form(q: str, where: str, store_id: str) -> str:
    options = "".join(f'<option value="{w}"{" selected" if w == where else ""}>{w}</option>'
                      for w in SEARCH_IN)
    store = f'<input type="hidden" name="store" value="{escape(store_id)}">' if store_id else ""
    return (f'<form class="search" method="get" action="/search">'
            f'<input type="search" name="q" value="{escape(q)}" placeholder="search" '
            f'maxlength="{SEARCH_CHARS}" aria-label="search">'
            f'<select name="in" aria-label="search in">{options}</select>{store}'
            '<button type="submit">Search</button></form>')


def search_page(app: App, query: dict[str, list[str]]) -> str:
    q = _one(query, "q").strip()
    if len(q) > SEARCH_CHARS:
        # refused, not cut: a cut query searches for words nobody typed; the message
        # names the length, never the text (which would be echoed back whole)
        raise BadInput(f"the search query is {len(q):,} characters; the page searches "
                       f"{SEARCH_CHARS} at most", "search for a few of its words")
    where = _one(query, "in", "memory")
    if where not in SEARCH_IN:
        raise BadInput(f"cannot search in '{where[:20]}'", "search in memory or history")
    store_id = _one(query, "store")
    page = _page_number(query)
    parts = ["<h1>Search</h1>", _search_form(q, where, store_id)]
    if not q:
        return _page("Dream search", "".join(parts), STYLE)
    if where == "history":
        found = memory.search_history(app, q, page)
        parts.append(f'<p class="muted" id="total">{found["total"]} matches in history</p>')
        for hit in found["hits"]:
            link = session_link(hit["stream"], hit["session_page"], hit["n"])
            parts.append(
                f'<div class="hit history" data-id="{escape(hit["id"])}">'
                f'{_a(link, "session " + hit["stream"], " class=session")} '
                f'<span class="muted">{escape((hit["said_at"] or "")[:16].replace("T", " "))} '
                f'{escape(hit["author"] or hit["role"])} [{escape(hit["kind"])}]</span>'
                f'<pre class="text">{escape(" ".join(hit["snippet"].split()))}</pre></div>')
        more = page < found["pages"]
    else:
        found_mem = memory.search_memory(app, q, store_id or None, page)
        if not found_mem.hits:
            parts.append('<p class="muted" id="total">no documents found</p>')
        for hit in found_mem.hits:
            parts.append(
                f'<div class="hit memory" data-path="{escape(hit["path"])}">'
                f'{_a(record_link(hit["store_id"], hit["path"]), hit["title"])} '
                f'<span class="muted">{escape(hit["store_name"])} · <code>{escape(hit["path"])}'
                f'</code> · #{hit["rank"]}</span></div>')
        more = found_mem.has_more
    params = {"q": q, "in": where, **({"store": store_id} if store_id else {})}
    pages = page + 1 if more else page
    parts.append(_pager(page, pages, lambda p: "/search?" + urlencode({**params, "page": p})))
    return _page(f"Dream search: {q}", "".join(parts), STYLE)
