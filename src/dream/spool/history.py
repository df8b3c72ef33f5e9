"""History: search and page through collected sessions (the notes spec's history tools).

Only the spool is read, and the spool holds redacted text only, so neither search nor show
can reveal a secret. ``search`` runs an FTS5 query over item text (each word of the query is
quoted, so punctuation in a query is never FTS syntax, and words are OR-ed and ranked by
bm25, so a natural question finds the turns that share most of its words) and labels every hit with its session/stream; ``show`` pages one stream in the order things were
said.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

from dream.db import utcnow
from dream.errors import BadInput
from dream.index.query import STOPWORDS, require_words
from dream.terminal import echo_query

SEARCH_PAGE = 20
SHOW_PAGE = 50
_WORD_RE = re.compile(r"[\w][\w\-.@']*", re.UNICODE)


def fts_query(query: str) -> str:
    """A safe FTS5 MATCH expression for a question typed by a person or an agent.

    Every word is quoted (punctuation is never FTS syntax), very common words are dropped
    unless nothing else is left, and the rest are OR-ed: a natural question ("what did we
    decide about the deploy key?") finds the turns sharing most of its words, which bm25
    ranks first. Requiring every word would find nothing for most questions. A trailing
    ``*`` keeps prefix matching; an explicit ``OR`` is accepted and changes nothing.
    """
    require_words(query)            # the one check every search shares
    tokens = query.split()
    if any(token != "OR" for token in tokens):
        tokens = [token for token in tokens if token != "OR"]
    terms: list[tuple[str, bool]] = []
    for token in tokens:
        prefix = token.endswith("*")
        for word in _WORD_RE.findall(token):
            terms.append((word.replace('"', "").lower(), prefix))
    kept = [term for term in terms if term[0] not in STOPWORDS] or terms
    return " OR ".join(f'"{word}"' + ("*" if prefix else "")
                       for word, prefix in dict.fromkeys(kept))


def index_new_items(conn: sqlite3.Connection) -> int:
    """Bring the full-text index of the spool up to its newest item, in one bulk insert.

    Items are indexed behind the ``items_fts`` watermark rather than by a per-row trigger
    (five times the cost while collecting). Collect calls this inside each file's
    transaction; search calls it first, so items spooled by any other path (``dream
    correct``, a test) are searchable too. Returns how many items were indexed.
    """
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT seq FROM watermarks WHERE name = 'items_fts'").fetchone()
        done = row[0] if row else 0
        top = conn.execute("SELECT coalesce(max(seq), 0) FROM items").fetchone()[0]
        if top > done:
            conn.execute("INSERT INTO items_fts(rowid, text) SELECT seq, text FROM items"
                         " WHERE seq > ? AND seq <= ?", (done, top))
            conn.execute("INSERT OR REPLACE INTO watermarks(name, seq, updated_at)"
                         " VALUES ('items_fts', ?, ?)", (top, utcnow()))
        if own:
            conn.execute("COMMIT")
    except BaseException:
        if own:
            conn.execute("ROLLBACK")
        raise
    return max(0, top - done)


def _item(row: sqlite3.Row, text_key: str = "text") -> dict[str, Any]:
    return {
        "id": row["id"], "stream": row["stream"], "source": row["source"],
        "ref": row["ref"], "said_at": row["said_at"], "role": row["role"],
        "kind": row["kind"], "evidence": bool(row["evidence"]), "author": row["author"],
        "tool_name": row["tool_name"], "project_key": row["project_key"],
        "entities": json.loads(row["entities"] or "[]"), text_key: row[text_key],
    }


# a page past this can hold nothing (a million pages of 100), and SQLite's OFFSET is a
# 64-bit integer: '--page 99999999999999999999' was an internal error (OverflowError)
MAX_PAGE = 1_000_000


def check_page(page: int) -> None:
    if page < 1:
        raise BadInput("--page starts at 1", "use --page 1 for the first page")
    if page > MAX_PAGE:
        raise BadInput(f"--page {page} is past the last page there can be ({MAX_PAGE:,})",
                       "the JSON output's 'pages' gives the last page")


def search(conn: sqlite3.Connection, query: str, page: int = 1, page_size: int = SEARCH_PAGE,
           project_key: str | None = None, evidence_only: bool = False) -> dict[str, Any]:
    check_page(page)
    match = fts_query(query)
    index_new_items(conn)
    where = ["items_fts MATCH ?"]
    params: list[Any] = [match]
    if project_key:
        where.append("items.project_key = ?")
        params.append(project_key)
    if evidence_only:
        where.append("items.evidence = 1")
    clause = " AND ".join(where)
    try:
        total = conn.execute(
            f"SELECT count(*) FROM items_fts JOIN items ON items.seq = items_fts.rowid "
            f"WHERE {clause}", params).fetchone()[0]
        rows = conn.execute(
            f"SELECT items.*, snippet(items_fts, 0, '[', ']', ' … ', 24) AS snippet "
            f"FROM items_fts JOIN items ON items.seq = items_fts.rowid WHERE {clause} "
            f"ORDER BY bm25(items_fts), items.seq LIMIT ? OFFSET ?",
            [*params, page_size, (page - 1) * page_size]).fetchall()
    except sqlite3.OperationalError as exc:
        raise BadInput(f"cannot search for {echo_query(query)} ({exc})", "try plain words") from exc
    hits = [_item(row, "snippet") for row in rows]
    streams: dict[str, dict[str, Any]] = {}
    for hit in hits:
        entry = streams.setdefault(hit["stream"], {"stream": hit["stream"],
                                                   "source": hit["source"], "hits": 0})
        entry["hits"] += 1
    pages = (total + page_size - 1) // page_size
    return {"query": query, "page": page, "pages": pages, "total": total,
            "streams": list(streams.values()), "hits": hits}


def resolve_stream(conn: sqlite3.Connection, session: str) -> str:
    """The stream named ``session``: exactly, else the one stream it is a unique prefix of.
    An empty or blank id names none (as a prefix it matched whichever session there was)."""
    if not session.strip():
        raise BadInput("no session id given",
                       "find one with 'dream history search WORDS' and pass it (a unique "
                       "start of it is enough)")
    if conn.execute("SELECT 1 FROM items WHERE stream = ? LIMIT 1", (session,)).fetchone():
        return session
    rows = conn.execute(
        "SELECT DISTINCT stream FROM items WHERE stream >= ? AND stream < ? LIMIT 6",
        (session, session + "\U0010ffff")).fetchall()
    if len(rows) == 1:
        return rows[0][0]
    if not rows:
        raise BadInput(f"no collected session {session!r}",
                       "find one with 'dream history search WORDS' (or run 'dream collect')")
    names = ", ".join(r[0] for r in rows[:5])
    raise BadInput(f"{session!r} names several sessions ({names})", "give more of the id")


def show(conn: sqlite3.Connection, session: str, page: int = 1,
         page_size: int = SHOW_PAGE) -> dict[str, Any]:
    check_page(page)
    stream = resolve_stream(conn, session)
    total = conn.execute("SELECT count(*) FROM items WHERE stream = ?", (stream,)).fetchone()[0]
    rows = conn.execute(
        "SELECT * FROM items WHERE stream = ? ORDER BY said_at IS NULL, said_at, seq "
        "LIMIT ? OFFSET ?", (stream, page_size, (page - 1) * page_size)).fetchall()
    pages = (total + page_size - 1) // page_size
    first = (page - 1) * page_size
    items = [{"n": first + i + 1, **_item(row)} for i, row in enumerate(rows)]
    return {"stream": stream, "page": page, "pages": pages, "total": total, "items": items}


def items_by_id(conn: sqlite3.Connection, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The spool items named by ``ids`` (evidence ids of a record's fields), each with
    ``n``, its place in its session in the order :func:`show` pages it. Ids not in the
    spool are left out."""
    found: dict[str, dict[str, Any]] = {}
    wanted = list(dict.fromkeys(ids))
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"SELECT * FROM items WHERE id IN ({marks})", chunk):
            found[row["id"]] = {"n": _place(conn, row), "seq": row["seq"], **_item(row)}
    return found


def _place(conn: sqlite3.Connection, row: sqlite3.Row) -> int:
    """1-based place of an item in its stream, ordered like :func:`show` (said_at, undated
    last, then seq); counted on the (stream, said_at) index."""
    stream, said, seq = row["stream"], row["said_at"], row["seq"]
    if said is None:
        before = conn.execute(
            "SELECT (SELECT count(*) FROM items WHERE stream = ? AND said_at IS NOT NULL) + "
            "(SELECT count(*) FROM items WHERE stream = ? AND said_at IS NULL AND seq < ?)",
            (stream, stream, seq)).fetchone()[0]
    else:
        before = conn.execute(
            "SELECT (SELECT count(*) FROM items WHERE stream = ? AND said_at < ?) + "
            "(SELECT count(*) FROM items WHERE stream = ? AND said_at = ? AND seq < ?)",
            (stream, said, stream, said, seq)).fetchone()[0]
    return before + 1
