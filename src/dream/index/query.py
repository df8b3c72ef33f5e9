"""Ranked, bounded search over the index."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import asdict, dataclass
from typing import Any

from dream.store.store import Store

MAX_TERMS = 32
# Words so common that matching them ranks nothing; dropping them keeps queries fast.
STOPWORDS = frozenset("""a an and are as at be but by for from has have he her his i if in
into is it its me my no not of on or our she so that the their them then there these they
this to was we were what when which who will with you your""".split())
_WORD_RE = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Hit:
    store_id: str
    store_name: str
    scope: str
    commit: str
    path: str
    title: str
    score: float
    sha256: str
    status: str | None = None
    snippet: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression for free text from a user: each word quoted (so ``"``,
    ``*``, ``:``, ``NEAR``, ``AND`` and parentheses are plain text), stopwords dropped
    unless nothing else is left, terms joined with OR so bm25 ranks documents that match
    more of them first. Empty when the text has no words."""
    words = [w.lower() for w in _WORD_RE.findall(text or "")]
    kept = [w for w in words if w not in STOPWORDS] or words
    unique = list(dict.fromkeys(kept))[:MAX_TERMS]
    return " OR ".join(f'"{w}"' for w in unique)


def search(conn: sqlite3.Connection, store: Store, query: str, limit: int = 8,
           project_key: str | None = None, include_crumpled: bool = False,
           offset: int = 0) -> list[Hit]:
    """The best ``limit`` documents of ``store`` for ``query``, best first.

    Only this store's documents are searched. With ``project_key``, notes that belong to
    another project (``projects/<other>/`` or session notes whose ``project`` is another
    key or missing) are left out; the rest of the store is searched. Crumpled notes are
    left out unless ``include_crumpled``. Call :func:`dream.index.sync` first to search the
    store's HEAD.
    """
    match = fts_query(query)
    if not match or limit <= 0:
        return []
    head = conn.execute("SELECT commit_sha FROM index_stores WHERE store_id=?",
                        (store.id,)).fetchone()
    commit = head[0] if head and head[0] else ""
    sql = ["SELECT d.path, d.title, d.sha256, d.status, -bm25(documents_fts, 4.0, 1.0) AS score,"
           " snippet(documents_fts, 1, '[', ']', ' … ', 12) AS snip"
           " FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid"
           " WHERE documents_fts MATCH ? AND d.store_id = ?"]
    params: list[Any] = [match, store.id]
    if not include_crumpled:
        sql.append(" AND (d.status IS NULL OR d.status != 'crumpled')")
    if project_key is not None:
        name = store.project_name(project_key)
        sql.append(" AND (d.home IS NULL OR d.home = 'user'"
                   " OR (d.home = 'projects' AND d.owner = ?)"
                   " OR (d.home = 'sessions' AND d.project = ?))")
        params += [name if name is not None else project_key, project_key]
    sql.append(" ORDER BY score DESC, d.path LIMIT ? OFFSET ?")
    params += [int(limit), int(offset)]
    rows = conn.execute("".join(sql), params).fetchall()
    return [Hit(store.id, store.name, store.scope, commit, r["path"], r["title"],
                round(float(r["score"]), 6), r["sha256"], r["status"], r["snip"] or "")
            for r in rows]
