"""Memory as a person reads it: what the web page's memory pages call.

- :func:`scopes`: every scope of every store (``user``, ``projects/<name>``, ``sessions``)
  with how many records each list holds;
- :func:`brief`: a scope's ``brief.md`` at HEAD, exactly as the agent reads it;
- :func:`list_records`: one page of a list (upcoming or past events, open or done to-dos,
  standing facts, people, notes, crumpled notes, open or answered questions);
- :func:`record`: one document at HEAD with each field's value, when it was said, its
  evidence as the quoted spool items, the run that wrote it, and its history from git
  (each version's commit, trailers and the fields it changed);
- :func:`search_memory` and :func:`search_history`: the ranking ``dream search`` and
  ``dream history search`` use (the same functions), one page at a time;
- :func:`session`: one page of a session, what ``dream history show`` prints.

Lists and counts come from the search index (:mod:`dream.index`), brought up to each
store's HEAD first (one ``git rev-parse`` when nothing changed), so a page over 100,000
notes reads a page of index rows, never every file; counts are cached per store HEAD.
Nothing here writes to a store.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from dream import index, runs
from dream.app import App
from dream.errors import BadInput, NoteNotFound
from dream.index.sync import scope_root
from dream.kinds.records import Record
from dream.notes.address import document_path
from dream.spool import history
from dream.store.document import parse, title_of
from dream.store.store import Store

PAGE = 50
SEARCH_PAGE = 20
MAX_SEARCH_PAGES = 5          # a search over several stores merges each store's best hits
HISTORY_VERSIONS = 30         # the newest versions shown on a record's page
ROOT_NAMES = {"user": "personal", "sessions": "session notes", "": "store root"}


@dataclass(frozen=True)
class ListSpec:
    """One list of a scope: the index rows it shows, in the order it shows them. Each
    segment is (condition, order) over the ``documents`` index; segments follow each other
    (dated events first, then undated ones)."""

    name: str
    label: str
    segments: tuple[tuple[str, str], ...]


LISTS: tuple[ListSpec, ...] = (
    ListSpec("upcoming", "Upcoming events", (("kind='event' AND day >= :today", "day, path"),
                                             ("kind='event' AND day IS NULL", "path"))),
    ListSpec("past", "Past events", (("kind='event' AND day < :today", "day DESC, path DESC"),)),
    ListSpec("open", "Open to-dos", (
        ("kind='todo' AND state='open' AND day IS NOT NULL", "day, path"),
        ("kind='todo' AND state='open' AND day IS NULL", "path"))),
    # a to-do dropped with the plan it was taken on for is closed as a done one is
    ListSpec("done", "Done or dropped to-dos", (
        ("kind='todo' AND state IN ('done', 'dropped')", "path"),)),
    ListSpec("standing", "Standing facts", (("kind='standing'", "path"),)),
    ListSpec("people", "People", (("kind='wiki'", "path"),)),
    ListSpec("notes", "Notes", (("kind='note' AND state='live'", "day DESC, path DESC"),)),
    ListSpec("crumpled", "Crumpled notes", (
        ("kind='note' AND state='crumpled'", "day DESC, path DESC"),)),
    ListSpec("questions", "Open questions", (("kind='question' AND state='open'", "path"),)),
    ListSpec("answered", "Answered questions", (
        ("kind='question' AND state='answered'", "path"),)),
)
LIST_BY_NAME = {spec.name: spec for spec in LISTS}


def today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


# -- scopes ------------------------------------------------------------------------------------
@dataclass
class Scope:
    store_id: str
    store_name: str
    root: str                     # 'user', 'projects/<name>', 'sessions' or ''
    counts: dict[str, int] = field(default_factory=dict)     # list name -> rows
    documents: int = 0

    @property
    def label(self) -> str:
        return ROOT_NAMES.get(self.root, self.root)

    def as_dict(self) -> dict[str, Any]:
        return {"store_id": self.store_id, "store_name": self.store_name, "root": self.root,
                "label": self.label, "counts": dict(self.counts), "documents": self.documents}


_COUNTS: dict[tuple[str, str, str], list[Scope]] = {}
_COUNTS_LOCK = threading.Lock()


def _synced(app: App, store: Store) -> str:
    """Bring the index of ``store`` up to its HEAD; the HEAD commit ('' when empty)."""
    return index.sync(app.db, store).commit or ""


def _stores(app: App) -> list[Store]:
    """Every store, each loaded once while its ``store.toml`` is unchanged, so a page keeps
    the store's git reader (one ``git cat-file`` process) from one request to the next."""
    app.home.require()
    paths = [app.home.notes_path, *app.config.store_paths]
    out = []
    for path in paths:
        try:
            stamp = (path / ".dream" / "store.toml").stat().st_mtime_ns
        except OSError:
            stamp = -1
        key = str(path)
        with _COUNTS_LOCK:
            cached = _STORES.get(key)
        if cached is None or cached[0] != stamp:
            cached = (stamp, Store.load(path))
            with _COUNTS_LOCK:
                _STORES[key] = cached
        out.append(cached[1])
    return out


_STORES: dict[str, tuple[int, Store]] = {}


def _store(app: App, store_id: str) -> Store:
    for store in _stores(app):
        if store.id == store_id:
            return store
    raise NoteNotFound(f"no store '{store_id}'", "pick a store from the front page")


def store_scopes(app: App, store: Store) -> list[Scope]:
    """The scopes of one store with their list counts (cached per HEAD and day)."""
    head = _synced(app, store)
    key = (store.id, head, today())
    with _COUNTS_LOCK:
        if key in _COUNTS:
            return _COUNTS[key]
    found: dict[str, Scope] = {}
    rows = app.db.execute(
        "SELECT root, kind, state, count(*) AS n, sum(day >= :today) AS ahead,"
        " sum(day IS NULL) AS undated FROM documents WHERE store_id = :store"
        " GROUP BY root, kind, state", {"store": store.id, "today": today()}).fetchall()
    for row in rows:
        root = row["root"] or ""
        scope = found.setdefault(root, Scope(store.id, store.name, root))
        scope.documents += row["n"]
        kind, state, n = row["kind"], row["state"], row["n"]
        add = scope.counts
        if kind == "event":
            ahead = (row["ahead"] or 0) + (row["undated"] or 0)
            add["upcoming"] = add.get("upcoming", 0) + ahead
            add["past"] = add.get("past", 0) + n - ahead
        for spec in LISTS:
            if spec.name in ("upcoming", "past"):
                continue
            cond = spec.segments[0][0]
            if f"kind='{kind}'" in cond and ("state=" not in cond or f"state='{state}'" in cond):
                add[spec.name] = add.get(spec.name, 0) + n
    result = sorted(found.values(), key=lambda s: (s.root != "user", s.root == "sessions",
                                                  s.root))
    with _COUNTS_LOCK:
        if len(_COUNTS) > 256:
            _COUNTS.clear()
        _COUNTS[key] = result
    return result


def scopes(app: App) -> list[Scope]:
    """Every scope of every store, the notes home first."""
    app.home.require()
    out: list[Scope] = []
    for store in _stores(app):
        out += store_scopes(app, store)
    return out


def find_scope(app: App, store_id: str, root: str) -> Scope:
    store = _store(app, store_id)
    for scope in store_scopes(app, store):
        if scope.root == root:
            return scope
    return Scope(store.id, store.name, root)


def check_root(root: str) -> str:
    """A scope root from a URL: ``user``, ``projects/<name>``, ``sessions`` or ``''``."""
    if root in ("", "user", "sessions"):
        return root
    parts = root.split("/")
    if len(parts) == 2 and parts[0] == "projects":
        document_path(root + "/x.md")           # the name is a plain name
        return root
    raise BadInput(f"'{root[:80]}' is not a memory scope",
                   "use user, projects/<name> or sessions")


# -- lists -------------------------------------------------------------------------------------
@dataclass
class Row:
    path: str
    title: str
    kind: str
    state: str | None
    day: str | None

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "title": self.title, "kind": self.kind,
                "state": self.state, "day": self.day}


@dataclass
class RecordList:
    scope: Scope
    spec: ListSpec
    page: int
    pages: int
    total: int
    rows: list[Row]

    def as_dict(self) -> dict[str, Any]:
        return {"scope": self.scope.as_dict(), "list": self.spec.name, "page": self.page,
                "pages": self.pages, "total": self.total,
                "rows": [r.as_dict() for r in self.rows]}


def list_records(app: App, store_id: str, root: str, name: str, page: int = 1,
                 page_size: int = PAGE, day: str | None = None) -> RecordList:
    """One page of list ``name`` of a scope, read from the index in the list's order
    (``day``, YYYY-MM-DD, stands for today: where upcoming and past events divide)."""
    spec = LIST_BY_NAME.get(name)
    if spec is None:
        raise BadInput(f"no list '{name[:40]}'",
                       "choose one of " + ", ".join(s.name for s in LISTS))
    if page < 1:
        raise BadInput("pages start at 1", "use page=1 for the first page")
    root = check_root(root)
    scope = find_scope(app, store_id, root)
    params = {"store": store_id, "root": root, "today": day or today()}
    want, skip = page_size, (page - 1) * page_size
    rows: list[Row] = []
    total = 0
    for cond, order in spec.segments:
        where = f"store_id = :store AND root = :root AND {cond}"
        n = app.db.execute(f"SELECT count(*) FROM documents WHERE {where}", params).fetchone()[0]
        total += n
        if want <= 0 or skip >= n:
            skip = max(0, skip - n)
            continue
        found = app.db.execute(
            f"SELECT path, title, kind, state, day FROM documents WHERE {where}"
            f" ORDER BY {order} LIMIT :limit OFFSET :offset",
            {**params, "limit": want, "offset": skip}).fetchall()
        rows += [Row(r["path"], r["title"], r["kind"], r["state"], r["day"]) for r in found]
        want -= len(found)
        skip = 0
    pages = max(1, (total + page_size - 1) // page_size)
    return RecordList(scope, spec, page, pages, total, rows)


# -- the brief ---------------------------------------------------------------------------------
def brief(app: App, store_id: str, root: str) -> str | None:
    """The scope's ``brief.md`` at HEAD (what the agent reads), or None when there is none."""
    store = _store(app, store_id)
    root = check_root(root)
    head = store.repo.head()
    if not head or root in ("", "sessions"):
        return None
    data = store.repo.read_at(head, f"{root}/brief.md")
    return data.decode("utf-8", "replace") if data is not None else None


# -- one record --------------------------------------------------------------------------------
@dataclass
class Evidence:
    """One evidence id of a field: the spool item it names (redacted text, source, author,
    time, session and its place there), or what else it is (a hand edit's commit)."""

    id: str
    item: dict[str, Any] | None = None
    commit: str | None = None                    # 'commit:<sha>': a person edited the file

    @property
    def session_page(self) -> int:
        return (int(self.item["n"]) - 1) // history.SHOW_PAGE + 1 if self.item else 1

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "item": self.item, "commit": self.commit,
                "session_page": self.session_page if self.item else None}


@dataclass
class FieldView:
    name: str
    value: str
    said_at: str
    run: str
    pass_: str
    version: int
    evidence: list[Evidence]
    commit: str = ""          # the newest commit that changed it ('' beyond the history shown)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "said_at": self.said_at,
                "run": self.run, "pass": self.pass_, "version": self.version,
                "commit": self.commit, "evidence": [e.as_dict() for e in self.evidence]}


@dataclass
class Change:
    name: str
    old: str | None           # None: the field is new in this version
    new: str | None           # None: the field was removed
    run: str = ""
    pass_: str = ""
    said_at: str = ""
    evidence_ids: tuple[str, ...] = ()
    evidence: list[Evidence] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "old": self.old, "new": self.new, "run": self.run,
                "pass": self.pass_, "said_at": self.said_at,
                "evidence": [e.as_dict() for e in self.evidence]}


@dataclass
class Version:
    commit: str
    date: str
    author: str
    subject: str
    trailers: dict[str, list[str]]
    changes: list[Change]
    deleted: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"commit": self.commit, "date": self.date, "author": self.author,
                "subject": self.subject, "trailers": self.trailers, "deleted": self.deleted,
                "changes": [c.as_dict() for c in self.changes]}


@dataclass
class RecordView:
    store_id: str
    store_name: str
    root: str
    path: str
    head: str
    kind: str                         # a record kind, or 'note' for a free note
    key: str
    title: str
    version: int
    fields: list[FieldView]
    meta: dict[str, Any]              # a free note's front matter
    body: str                         # a free note's text, a record's rendered body
    runs: dict[str, bool]             # run id -> known to this home's runs table
    history: list[Version]
    more_history: bool

    def as_dict(self) -> dict[str, Any]:
        return {"store_id": self.store_id, "store_name": self.store_name, "root": self.root,
                "path": self.path, "head": self.head, "kind": self.kind, "key": self.key,
                "title": self.title, "version": self.version,
                "fields": [f.as_dict() for f in self.fields], "meta": self.meta,
                "body": self.body, "runs": self.runs,
                "history": [v.as_dict() for v in self.history],
                "more_history": self.more_history}


def record(app: App, store_id: str, path: str) -> RecordView:
    """Document ``path`` of a store at HEAD with its provenance, evidence and history.
    :class:`~dream.errors.BadAddress` for a hostile path, :class:`NoteNotFound` when it is
    not there."""
    rel = document_path(path)
    if not rel.endswith(".md"):
        raise NoteNotFound(f"'{rel[:80]}' is not a memory document", "open one from a list")
    store = _store(app, store_id)
    head = store.repo.head()
    data = store.repo.read_at(head, rel) if head else None
    if data is None:
        raise NoteNotFound(f"no document '{rel[:80]}' in store '{store.name}' at HEAD",
                           "it may have been forgotten; search for it")
    text = data.decode("utf-8", "replace")
    rec = Record.loads(text)
    versions, more = _history(store, rel, head or "")
    ids = [e for fv in (rec.fields.values() if rec else []) for e in fv.evidence]
    ids += [e for v in versions for c in v.changes for e in c.evidence_ids]
    items = history.items_by_id(app.db, [i for i in ids if not i.startswith("commit:")])

    def evidence(eids: list[str]) -> list[Evidence]:
        return [Evidence(e, items.get(e), e.split(":", 1)[1] if e.startswith("commit:") else None)
                for e in eids]

    for version in versions:
        for change in version.changes:
            change.evidence = evidence(list(change.evidence_ids))
    run_ids = {fv.run for fv in rec.fields.values()} if rec else set()
    run_ids |= {t for v in versions for t in v.trailers.get("Dream-Run", [])}
    known = {r: _known_run(app, r) for r in sorted(run_ids) if r}
    if rec is not None:
        wrote = {}
        for version in reversed(versions):           # oldest first: the newest write wins
            wrote.update({c.name: version.commit for c in version.changes})
        fields = [FieldView(name, fv.value, fv.said_at, fv.run, fv.pass_, fv.version,
                            evidence(fv.evidence), wrote.get(name, ""))
                  for name in rec.ordered_fields() for fv in [rec.fields[name]]]
        return RecordView(store.id, store.name, scope_root(rel), rel, head or "", rec.kind,
                          rec.key, rec.title, rec.version, fields, {}, rec.body(), known,
                          versions, more)
    try:
        doc = parse(text, rel)
        meta, body = doc.meta, doc.body
    except BadInput:
        meta, body = {}, text
    title = title_of(meta, body, rel)
    return RecordView(store.id, store.name, scope_root(rel), rel, head or "", "note",
                      rel.rsplit("/", 1)[-1][:-3], title, 0, [], meta, body, known, versions,
                      more)


def _known_run(app: App, run_id: str) -> bool:
    found = runs.find(app.db, run_id)
    return found is not None and found.id == run_id


def _history(store: Store, rel: str, head: str) -> tuple[list[Version], bool]:
    """The newest versions of ``rel`` from git, each with the fields it changed.

    One ``git log --raw`` names each version's blob (and the blob before it), so the
    versions are read by blob id in one batch, never by walking a 100,000-entry tree per
    commit; git's commit-graph with changed-path filters is brought up to HEAD first so the
    log skips commits that did not touch the file."""
    repo = store.repo
    repo.ensure_commit_graph(head)
    out = repo.git("log", "-n", str(HISTORY_VERSIONS + 1), "--raw", "--no-abbrev",
                   "--no-renames", "--format=%x1e%H%x1f%aI%x1f%an%x1f%s%x1f"
                   "%(trailers:only,unfold)%x1f", "--", rel, check=False)
    entries = [e for e in out.split("\x1e") if e.strip()]
    more = len(entries) > HISTORY_VERSIONS
    versions: list[Version] = []
    blobs: list[tuple[str | None, str | None]] = []        # (before, after) per version
    for entry in entries[:HISTORY_VERSIONS]:
        sha, date, author, subject, raw, diff = (entry.split("\x1f") + [""] * 6)[:6]
        trailers: dict[str, list[str]] = {}
        for line in raw.splitlines():
            name, sep, value = line.partition(":")
            if sep and name.strip():
                trailers.setdefault(name.strip(), []).append(value.strip())
        versions.append(Version(sha.strip(), date, author, subject, trailers, []))
        blobs.append(_raw_blobs(diff))
    for version, (before, after) in zip(versions, blobs, strict=True):
        if before is None and after is None:      # a merge: no diff of its own, read at it
            before, after = _blob_at(repo, version.commit + "^", rel), \
                _blob_at(repo, version.commit, rel)
        version.deleted = after is None
        version.changes = _changes(_fields_of(repo, before), _fields_of(repo, after))
    return versions, more


def _blob_at(repo, rev: str, rel: str) -> str | None:
    out = repo.git("rev-parse", "-q", "--verify", f"{rev}:{rel}", check=False).strip()
    return out or None


_ZERO = "0" * 40


def _raw_blobs(diff: str) -> tuple[str | None, str | None]:
    """(blob before, blob after) from a ``--raw`` line (``:100644 100644 OLD NEW M\tpath``);
    (None, None) when there is none (a merge commit)."""
    for line in diff.splitlines():
        if line.startswith(":"):
            fields = line[1:].split("\t", 1)[0].split()
            if len(fields) >= 4:
                old, new = fields[2], fields[3]
                return (None if old == _ZERO else old), (None if new == _ZERO else new)
    return None, None


FieldsOf = dict[str, tuple[str, str, str, str, tuple[str, ...]]]


def _changes(before: FieldsOf, after: FieldsOf) -> list[Change]:
    out = []
    for name in list(after) + [n for n in before if n not in after]:
        a, b = before.get(name), after.get(name)
        if a is not None and b is not None and a[0] == b[0] and a[1:] == b[1:]:
            continue
        src = b or a
        assert src is not None
        out.append(Change(name, a[0] if a else None, b[0] if b else None,
                          src[1], src[2], src[3], src[4]))
    return out


def _fields_of(repo, blob: str | None) -> FieldsOf:
    """name -> (value, run, pass, said_at, evidence) of the record in ``blob``; a free
    note's front matter keys and its text as ``text``. Parsed once per blob id (a blob
    never changes)."""
    if blob is None:
        return {}
    with _COUNTS_LOCK:
        found = _PARSED.get(blob)
    if found is None:
        data = repo.read_blob(blob)
        found = _parse_fields(data) if data is not None else {}
        with _COUNTS_LOCK:
            if len(_PARSED) > 20_000:
                _PARSED.clear()
            _PARSED[blob] = found
    return found


_PARSED: dict[str, FieldsOf] = {}


def _parse_fields(data: bytes) -> FieldsOf:
    text = data.decode("utf-8", "replace")
    rec = Record.loads(text)
    if rec is not None:
        return {n: (fv.value, fv.run, fv.pass_, fv.said_at, tuple(fv.evidence))
                for n, fv in rec.fields.items()}
    try:
        doc = parse(text)
    except BadInput:
        return {"text": (text, "", "", "", ())}
    out = {str(k): (str(v), "", "", "", ()) for k, v in doc.meta.items()}
    out["text"] = (doc.body, "", "", "", ())
    return out


# -- search ------------------------------------------------------------------------------------
@dataclass
class MemoryHits:
    query: str
    page: int
    has_more: bool
    hits: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {"query": self.query, "page": self.page, "has_more": self.has_more,
                "hits": self.hits}


def search_memory(app: App, query: str, store_id: str | None = None, page: int = 1,
                  page_size: int = SEARCH_PAGE) -> MemoryHits:
    """Memory search with ``dream search``'s ranking (:func:`dream.api._search`, the same
    call), over one store or every store (their best hits merged by score), without the
    CLI's current-project filter: the page shows all memory. Scores of different stores
    compare: one FTS5 index holds every store, so bm25's statistics count them all."""
    from dream.api import _search

    if page < 1:
        raise BadInput("pages start at 1", "use page=1 for the first page")
    app.home.require()
    stores = [_store(app, store_id)] if store_id else _stores(app)
    hits = []
    if len(stores) == 1:
        found = _search(app, stores[0], None, query, page_size + 1, (page - 1) * page_size)
        hits = [h.as_dict() for h in found]
        more = len(hits) > page_size
        return MemoryHits(query, page, more, _ranked(hits[:page_size], page, page_size))
    if page > MAX_SEARCH_PAGES:
        raise BadInput(f"a search over every store shows {MAX_SEARCH_PAGES} pages",
                       "search one store (pick it on its memory page) to see more")
    wanted = page * page_size + 1
    for store in stores:
        hits += [h.as_dict() for h in _search(app, store, None, query, wanted)]
    hits.sort(key=lambda h: (-h["score"], h["store_name"], h["path"]))
    start = (page - 1) * page_size
    return MemoryHits(query, page, len(hits) > page * page_size,
                      _ranked(hits[start:start + page_size], page, page_size))


def _ranked(hits: list[dict[str, Any]], page: int, page_size: int) -> list[dict[str, Any]]:
    """Each hit with its place in the whole result (1 = best): what a reader compares,
    since bm25 scores are near 0 in a store of a few documents."""
    first = (page - 1) * page_size + 1
    return [{**hit, "rank": first + n} for n, hit in enumerate(hits)]


def search_history(app: App, query: str, page: int = 1) -> dict[str, Any]:
    """What ``dream history search`` shows (the same function)."""
    app.home.require()
    found = history.search(app.db, query, page=page)
    places = history.items_by_id(app.db, [hit["id"] for hit in found["hits"]])
    for hit in found["hits"]:
        n = places[hit["id"]]["n"] if hit["id"] in places else 1
        hit["n"], hit["session_page"] = n, (n - 1) // history.SHOW_PAGE + 1
    return found


def session(app: App, stream: str, page: int = 1) -> dict[str, Any]:
    """One page of a session, what ``dream history show`` shows (the same function)."""
    app.home.require()
    return history.show(app.db, stream, page=page)


__all__ = ["LISTS", "brief", "list_records", "record", "scopes", "search_history",
           "search_memory", "session"]
