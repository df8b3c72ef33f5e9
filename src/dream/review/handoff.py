"""``dream prepare``: three learned lines and a handoff for the next review dream.

The handoff (open work, decisions, user corrections, memory slugs, next steps) is recorded
as a passive ``dream.prepared`` journal entry. A later preparation for the same project
replaces it: the newest entry is the prepared handoff, and the entry records which one it
replaced. The next review dream of the project reads it as its primary input (not as proof)
and records that it did; a handoff already read by a review is not read again.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from typing import Any

from dream import db, runs
from dream.errors import BadInput
from dream.passes.evidence import Handoff
from dream.secrets import redact
from dream.store.document import control_character

LEARNED_LINES = 3
LEARNED_MAX = 200
HANDOFF_MAX = 12_000
KIND = "dream.prepared"


def _redact(text: str) -> str:
    return redact(text)[0]


def validate(learned: list[str], handoff: str) -> list[str]:
    lines = [line.strip() for line in learned]
    if len(lines) != LEARNED_LINES:
        raise BadInput(f"give exactly {LEARNED_LINES} learned lines, not {len(lines)}",
                       "repeat --learned three times")
    for n, line in enumerate(lines, 1):
        if not line:
            raise BadInput(f"learned line {n} is empty", "write one plain sentence per line")
        if "\n" in line or "\r" in line:
            raise BadInput(f"learned line {n} spans several lines", "keep each to one line")
        if len(line) > LEARNED_MAX:
            raise BadInput(f"learned line {n} has {len(line)} characters, more than "
                           f"{LEARNED_MAX}", "shorten it")
        found = control_character(line)
        if found is not None:
            raise BadInput(f"learned line {n} holds a control character, {found}",
                           "remove it: a learned line is plain text")
    if not handoff.strip():
        raise BadInput("the handoff is empty",
                       "write open work, decisions, user corrections, memory slugs and next steps")
    if len(handoff) > HANDOFF_MAX:
        raise BadInput(f"the handoff has {len(handoff):,} characters, more than "
                       f"{HANDOFF_MAX:,}", "shorten it to the open work and what was learned")
    found = control_character(handoff)
    if found is not None:      # it is printed and sent to a review's model as it is
        raise BadInput(f"the handoff holds a control character, {found}",
                       "remove it: a handoff is plain text, and terminal escape codes "
                       "pasted into it have no meaning there")
    return lines


def prepare(conn: sqlite3.Connection, project_key: str, learned: list[str],
            handoff: str) -> dict[str, Any]:
    """Validate and record; nothing is recorded when the input is bad."""
    lines = validate(learned, handoff)
    lines = [_redact(line) for line in lines]
    text = _redact(handoff)
    at = db.utcnow()
    conn.execute("BEGIN IMMEDIATE")
    try:
        previous = latest_row(conn, project_key)
        data = {"learned": lines, "handoff": text, "chars": len(text),
                "replaces": previous["id"] if previous else None}
        cur = conn.execute(
            "INSERT INTO journal (at, kind, key, project_key, data) VALUES (?, ?, ?, ?, ?)",
            (at, KIND, f"prepared:{project_key}:{uuid.uuid4().hex}", project_key,
             json.dumps(data, ensure_ascii=False)),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return {"id": cur.lastrowid, "at": at, "project_key": project_key, "learned": lines,
            "chars": len(text), "replaces": data["replaces"]}


def latest_row(conn: sqlite3.Connection, project_key: str) -> sqlite3.Row | None:
    return conn.execute(
        "SELECT * FROM journal WHERE kind=? AND project_key=? ORDER BY id DESC LIMIT 1",
        (KIND, project_key),
    ).fetchone()


def fresh(conn: sqlite3.Connection, project_key: str) -> tuple[Handoff | None, str | None]:
    """The prepared handoff a new review should read, or (None, why not)."""
    row = latest_row(conn, project_key)
    if row is None:
        return None, "no prepared handoff for this project (dream prepare records one)"
    for review in runs.reviews_of(conn, project_key):
        used = (review.details.get("handoff") or {}).get("id")
        if used == row["id"]:
            return None, (f"the latest prepared handoff (#{row['id']}, {row['at']}) was "
                          "already read by an earlier review")
    data = json.loads(row["data"])
    return Handoff(journal_id=row["id"], at=row["at"], learned=list(data.get("learned", [])),
                   text=str(data.get("handoff", ""))), None
