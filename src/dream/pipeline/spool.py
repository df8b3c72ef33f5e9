"""The run's view of the spool: claim gated items, finish them, un-claim for --redo/--retry.

Claiming is a single UPDATE, so two runs never claim the same item. An item belongs to a
scope by its ``project_key``: a project's items, or personal items (``project_key`` NULL).
The watermark ``run:<scope>`` records the highest sequence number a finished run processed.
"""

from __future__ import annotations

import sqlite3

from dream.db import utcnow
from dream.items import Item

CONTEXT_KINDS = ("assistant",)         # shown to the model as context, never evidence
SKIPPED_KINDS = ("meta",)


def _scope_where(project_key: str | None) -> tuple[str, tuple]:
    if project_key is None:
        return "project_key IS NULL", ()
    return "project_key = ?", (project_key,)


def pending_count(conn: sqlite3.Connection, project_key: str | None) -> int:
    where, args = _scope_where(project_key)
    row = conn.execute(
        f"SELECT count(*) FROM items WHERE {where} AND processed_by IS NULL AND claimed_by IS NULL"
        f" AND kind NOT IN ({','.join('?' * len(SKIPPED_KINDS))})", (*args, *SKIPPED_KINDS)
    ).fetchone()
    return int(row[0])


def release_stale_claims(conn: sqlite3.Connection) -> None:
    """Items claimed by a run that is no longer running (failed, partial) become claimable."""
    conn.execute(
        "UPDATE items SET claimed_by = NULL WHERE processed_by IS NULL AND claimed_by IS NOT NULL"
        " AND claimed_by IN (SELECT id FROM runs WHERE status IN ('failed', 'partial', 'priced'))"
    )


def peek(conn: sqlite3.Connection, project_key: str | None, limit: int,
         after_seq: int = 0, redo: bool = False) -> list[Item]:
    """The items a run would claim (with ``redo``: also those already processed), without
    claiming them (dry runs)."""
    where, args = _scope_where(project_key)
    state = "(processed_by IS NOT NULL OR claimed_by IS NULL)" if redo else \
        "processed_by IS NULL AND claimed_by IS NULL"
    rows = conn.execute(
        f"SELECT * FROM items WHERE {where} AND {state}"
        f" AND kind != 'meta' AND seq > ? ORDER BY seq LIMIT ?", (*args, after_seq, limit)
    ).fetchall()
    return [Item.from_row(r) for r in rows]


def claim(conn: sqlite3.Connection, run_id: str, project_key: str | None,
          limit: int) -> list[Item]:
    where, args = _scope_where(project_key)
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            f"UPDATE items SET claimed_by = ? WHERE seq IN (SELECT seq FROM items WHERE {where}"
            " AND processed_by IS NULL AND claimed_by IS NULL AND kind != 'meta'"
            " ORDER BY seq LIMIT ?)", (run_id, *args, limit)
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    rows = conn.execute(f"SELECT * FROM items WHERE claimed_by = ? AND processed_by IS NULL"
                        f" AND {where} ORDER BY seq", (run_id, *args)).fetchall()
    return [Item.from_row(r) for r in rows]


def items_by_id(conn: sqlite3.Connection, ids: list[str]) -> dict[str, Item]:
    out: dict[str, Item] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        rows = conn.execute(
            f"SELECT * FROM items WHERE id IN ({','.join('?' * len(chunk))})", chunk
        ).fetchall()
        out.update({r["id"]: Item.from_row(r) for r in rows})
    return out


def finish(conn: sqlite3.Connection, run_id: str, scope_name: str) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("UPDATE items SET processed_by = ? WHERE claimed_by = ?"
                     " AND processed_by IS NULL", (run_id, run_id))
        top = conn.execute("SELECT max(seq) FROM items WHERE processed_by = ?",
                           (run_id,)).fetchone()[0]
        if top is not None:
            conn.execute(
                "INSERT INTO watermarks(name, seq, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT(name) DO UPDATE SET seq = max(seq, excluded.seq),"
                " updated_at = excluded.updated_at", (f"run:{scope_name}", top, utcnow()))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def unclaim(conn: sqlite3.Connection, run_id: str) -> int:
    """Give back what a run claimed but did not finish (a failed or partial run)."""
    cur = conn.execute("UPDATE items SET claimed_by = NULL WHERE claimed_by = ?"
                       " AND processed_by IS NULL", (run_id,))
    return cur.rowcount


def redo(conn: sqlite3.Connection, project_key: str | None) -> int:
    """Un-claim every processed item of a scope so the next run reprocesses it."""
    where, args = _scope_where(project_key)
    cur = conn.execute(f"UPDATE items SET processed_by = NULL, claimed_by = NULL WHERE {where}"
                       " AND processed_by IS NOT NULL", args)
    return cur.rowcount


def requeue(conn: sqlite3.Connection, run_id: str) -> int:
    """--retry RUN: the run's readable items (claimed or processed by it) become claimable."""
    cur = conn.execute("UPDATE items SET processed_by = NULL, claimed_by = NULL"
                       " WHERE claimed_by = ? OR processed_by = ?", (run_id, run_id))
    return cur.rowcount


def unclaim_ids(conn: sqlite3.Connection, run_id: str, ids: set[str]) -> None:
    """Give back some of a run's items (those of bundles whose call failed)."""
    chunk = sorted(ids)
    for start in range(0, len(chunk), 500):
        part = chunk[start:start + 500]
        conn.execute(f"UPDATE items SET claimed_by = NULL WHERE claimed_by = ? AND id IN"
                     f" ({','.join('?' * len(part))})", (run_id, *part))
