"""Bringing the index up to a store's HEAD."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from dream.db import utcnow
from dream.errors import GitFailed, StoreError
from dream.kinds.records import KINDS
from dream.store.document import MAX_NOTE_BYTES, note_status, quick_meta, record_fields, title_of
from dream.store.store import Store

# how much of a document is indexed: what a note write takes; a bigger file committed into
# a store by hand is found by its start
INDEXED_BYTES = MAX_NOTE_BYTES
# a record's status when its file names none: what the pipeline assumes
DEFAULT_STATE = {"event": "proposed", "todo": "open", "note": "live", "question": "open"}


@dataclass
class SyncStats:
    store_id: str
    commit: str | None
    previous: str | None
    indexed: int = 0      # documents read and (re)written
    skipped: int = 0      # unchanged by checksum
    removed: int = 0
    total: int | None = None  # documents of this store afterwards (None when up to date)
    seconds: float = 0.0
    up_to_date: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def indexable(path: str) -> bool:
    """Markdown documents outside hidden folders (``.dream/``, ``.git``)."""
    if not path.endswith(".md"):
        return False
    return not any(part.startswith(".") for part in path.split("/"))


def _placement(path: str, meta: dict[str, str]) -> tuple[str | None, str | None, str | None]:
    """(home, owner, project key) of a document in the notes layout."""
    parts = path.split("/")
    home = parts[0] if parts[0] in ("projects", "sessions", "user") and len(parts) > 1 else None
    owner = parts[1] if home in ("projects", "sessions") and len(parts) > 2 else None
    project = meta.get("project") or None
    return home, owner, project


def scope_root(path: str) -> str:
    """The scope a document belongs to: ``user``, ``projects/<name>``, ``sessions`` (every
    session's notes), or ``''`` for a path outside the notes layout."""
    parts = path.split("/")
    if parts[0] == "user" and len(parts) > 1:
        return "user"
    if parts[0] == "projects" and len(parts) > 2:
        return f"projects/{parts[1]}"
    if parts[0] == "sessions" and len(parts) > 2:
        return "sessions"
    return ""


def _status(meta: dict[str, str], text: str) -> str | None:
    """The ``status`` column search filters crumpled documents by: a crumpled note record
    ('dream notes crumple' on a note a run wrote) keeps it in a field, not on top."""
    return "crumpled" if note_status(text, meta) == "crumpled" else meta.get("status") or None


def memory_columns(path: str, meta: dict[str, str], text: str
                   ) -> tuple[str, str, str | None, str | None]:
    """(root, kind, state, day) of a document, what the memory pages list by: a record's
    kind from its front matter, ``brief`` for a brief, ``note`` for any other document;
    the state is a record's status (its kind's default when unset) or a note's
    live/crumpled; the day is an event's date, a to-do's due date, else the latest
    ``said_at`` (or a note's ``updated``/``created``)."""
    root = scope_root(path)
    name = path.rsplit("/", 1)[-1]
    kind = meta.get("kind") if meta.get("kind") in KINDS and meta.get("key") else None
    if kind is None:
        if name == "brief.md":
            return root, "brief", None, None
        return root, "note", meta.get("status") or "live", \
            meta.get("updated") or meta.get("created") or None
    values = record_fields(text)
    state = values.get("status") or DEFAULT_STATE.get(kind)
    if kind == "event":
        day = values.get("date") or None
    elif kind == "todo":
        day = values.get("due") or None
    else:
        day = values.get("said_at") or None
    return root, kind, state, day


def _stored(conn: sqlite3.Connection, store_id: str) -> tuple[str | None, bool]:
    row = conn.execute("SELECT commit_sha FROM index_stores WHERE store_id=?",
                       (store_id,)).fetchone()
    return (row[0] if row else None), row is not None


def sync(conn: sqlite3.Connection, store: Store, full: bool = False) -> SyncStats:
    """Bring the index for ``store`` up to its HEAD.

    Cheap when nothing changed (one ``git rev-parse``). After a commit only the files that
    differ between the indexed commit and HEAD are read. ``full`` re-walks every file at
    HEAD and still skips files whose checksum is unchanged.
    """
    started = time.perf_counter()
    repo = store.repo
    head = repo.head()
    for _attempt in range(5):
        previous, known = _stored(conn, store.id)
        stats = SyncStats(store.id, head, previous)
        if known and head == previous and not full:
            stats.up_to_date = True
            stats.seconds = time.perf_counter() - started
            return stats
        to_read, to_remove, stats.skipped = _plan(conn, store, head, previous, full)
        contents = list(repo.read_blob_heads([b for _, b in to_read], INDEXED_BYTES)) \
            if to_read else []
        conn.execute("BEGIN IMMEDIATE")
        try:
            if _stored(conn, store.id) != (previous, known):
                conn.execute("ROLLBACK")  # another process synced meanwhile: plan again
                continue
            for path in to_remove:
                conn.execute("DELETE FROM documents WHERE store_id=? AND path=?",
                             (store.id, path))
            _write(conn, store, head or "", to_read, contents)
            conn.execute(
                "INSERT INTO index_stores (store_id, store_name, scope, path, commit_sha,"
                " synced_at) VALUES (?,?,?,?,?,?) ON CONFLICT(store_id) DO UPDATE SET"
                " store_name=excluded.store_name, scope=excluded.scope, path=excluded.path,"
                " commit_sha=excluded.commit_sha, synced_at=excluded.synced_at",
                (store.id, store.name, store.scope, str(store.path), head, utcnow()))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        stats.indexed, stats.removed = len(to_read), len(to_remove)
        stats.total = _count(conn, store.id)
        stats.seconds = time.perf_counter() - started
        return stats
    raise StoreError(f"the index of store '{store.name}' kept changing while it was synced",
                     "run 'dream reindex' again")


def _plan(conn: sqlite3.Connection, store: Store, head: str | None, previous: str | None,
          full: bool) -> tuple[list[tuple[str, str]], list[str], int]:
    """(files to read, paths to remove, files skipped as unchanged by checksum)."""
    repo = store.repo
    diff = None
    if head is not None and previous and not full:
        try:
            diff = repo.diff_files(previous, head)
        except GitFailed:           # the indexed commit is gone (history rewritten)
            diff = None
    if diff is not None:
        # after a commit: only the paths that changed are looked up, never every row
        existing = _blobs_of(conn, store.id, [p for p, _ in diff])
        changes: list[tuple[str, str | None]] = [(p, b) for p, b in diff
                                                 if indexable(p) or p in existing]
        return _sort(changes, existing)
    existing = {row[0]: row[1] for row in conn.execute(
        "SELECT path, blob FROM documents WHERE store_id=?", (store.id,))}
    if head is None:
        changes = [(p, None) for p in existing]
    else:
        files = {p: b for p, b in repo.list_files(head) if indexable(p)}
        changes = list(files.items())
        changes += [(p, None) for p in existing if p not in files]
    return _sort(changes, existing)


def _blobs_of(conn: sqlite3.Connection, store_id: str, paths: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for start in range(0, len(paths), 500):
        chunk = paths[start:start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(conn.execute(f"SELECT path, blob FROM documents WHERE store_id=? AND"
                                  f" path IN ({marks})", (store_id, *chunk)).fetchall())
    return found


def _sort(changes: list[tuple[str, str | None]], existing: dict[str, str]
          ) -> tuple[list[tuple[str, str]], list[str], int]:
    to_read: list[tuple[str, str]] = []
    to_remove: list[str] = []
    skipped = 0
    for path, blob in changes:
        if blob is None or not indexable(path):
            if path in existing:
                to_remove.append(path)
        elif existing.get(path) == blob:
            skipped += 1
        else:
            to_read.append((path, blob))
    return to_read, to_remove, skipped


def _write(conn: sqlite3.Connection, store: Store, commit: str,
           items: list[tuple[str, str]], contents: Iterable[tuple[bytes, str]]) -> None:
    for (path, blob), (data, digest) in zip(items, contents, strict=True):
        # a document past INDEXED_BYTES is indexed by its start, its sha256 still the
        # whole content's (what a snapshot checks a read against)
        text = data.decode("utf-8", "replace")
        meta, body = quick_meta(text)
        home, owner, project = _placement(path, meta)
        row = (store.id, path, blob, digest, commit, home, owner, project,
               _status(meta, text), title_of(meta, body, path), body,
               *memory_columns(path, meta, text))
        conn.execute(
            "INSERT INTO documents (store_id, path, blob, sha256, commit_sha, home, owner,"
            " project, status, title, body, root, kind, state, day)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
            " ON CONFLICT(store_id, path) DO UPDATE SET blob=excluded.blob,"
            " sha256=excluded.sha256, commit_sha=excluded.commit_sha, home=excluded.home,"
            " owner=excluded.owner, project=excluded.project, status=excluded.status,"
            " title=excluded.title, body=excluded.body, root=excluded.root,"
            " kind=excluded.kind, state=excluded.state, day=excluded.day", row)


def _count(conn: sqlite3.Connection, store_id: str) -> int:
    return conn.execute("SELECT count(*) FROM documents WHERE store_id=?",
                        (store_id,)).fetchone()[0]


def reindex(conn: sqlite3.Connection, stores: Iterable[Store], force: bool = False
            ) -> list[SyncStats]:
    """Rebuild the index from git. Without ``force`` every file at HEAD is checked and the
    unchanged ones (same blob checksum) are skipped; with ``force`` the rows are dropped
    and every document is read again. Rows of stores no longer known are dropped."""
    stores = list(stores)
    known = {s.id for s in stores}
    for (store_id,) in conn.execute("SELECT store_id FROM index_stores").fetchall():
        if store_id not in known:
            forget_store(conn, store_id)
    results = []
    for store in stores:
        if force:
            forget_store(conn, store.id)
        results.append(sync(conn, store, full=True))
    return results


def forget_store(conn: sqlite3.Connection, store_id: str) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("DELETE FROM documents WHERE store_id=?", (store_id,))
        conn.execute("DELETE FROM index_stores WHERE store_id=?", (store_id,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def indexed_rows(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """Every index row in a stable order (used to prove bad input changed nothing)."""
    docs = conn.execute("SELECT store_id, path, blob, sha256, commit_sha, title FROM documents"
                        " ORDER BY store_id, path").fetchall()
    heads = conn.execute("SELECT store_id, commit_sha FROM index_stores ORDER BY store_id"
                         ).fetchall()
    return [tuple(r) for r in heads] + [tuple(r) for r in docs]
