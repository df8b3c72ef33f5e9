"""Checking a proposal's citations before it is kept.

A citation is one of:

- ``session:<id>``: a session (stream) that has items in the spool;
- ``item:<id>``: a spool item;
- ``commit:<sha>``: a commit in the store's repository or the project's repository;
- ``path:line``: either the exact reference of a spool item (``ref``), or a file on disk
  (absolute, or relative to the project root) that has at least ``line`` lines.

:func:`check` returns the reason a citation fails, or None when it checks out. Nothing is
taken on trust: a citation that does not check out drops the whole proposal, and the
journal says which citation and why.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from dream.errors import DreamError
from dream.store.git import Repo, looks_like_sha


def check(conn: sqlite3.Connection, citation: str, project_root: Path | None = None,
          repos: list[Repo] | None = None) -> str | None:
    if citation.startswith("session:"):
        sid = citation[len("session:"):]
        row = conn.execute("SELECT 1 FROM items WHERE stream=? LIMIT 1", (sid,)).fetchone()
        return None if row else f"session {sid} is not in the spool"
    if citation.startswith("item:"):
        iid = citation[len("item:"):]
        row = conn.execute("SELECT 1 FROM items WHERE id=? LIMIT 1", (iid,)).fetchone()
        return None if row else f"item {iid} is not in the spool"
    if citation.startswith("commit:"):
        sha = citation[len("commit:"):]
        if not looks_like_sha(sha):
            return f"'{sha}' is not a commit id"
        for repo in repos or []:
            try:
                repo.resolve(sha)
                return None
            except DreamError:
                continue
        return f"commit {sha} is in neither the store nor the project repository"
    row = conn.execute("SELECT 1 FROM items WHERE ref=? LIMIT 1", (citation,)).fetchone()
    if row:
        return None
    path_text, sep, line_text = citation.rpartition(":")
    if not sep or not line_text.isdigit() or not path_text:
        return f"'{citation}' is not a session, commit or path:line citation"
    line = int(line_text)
    path = Path(path_text)
    if not path.is_absolute():
        if project_root is None:
            return f"{path_text} is relative and the project root is unknown"
        path = project_root / path
    if not path.is_file():
        return f"file {path_text} does not exist"
    if line < 1:
        return f"{citation}: line numbers start at 1"
    count = 0
    with open(path, "rb") as fh:
        for count, _ in enumerate(fh, 1):
            if count >= line:
                return None
    return f"{path_text} has {count} lines, not {line}"


def failures(conn: sqlite3.Connection, citations: list[str], item_ids: list[str],
             project_root: Path | None = None, repos: list[Repo] | None = None) -> list[str]:
    """Every reason the citations (and the spool items behind them) do not check out."""
    reasons = [f"{c}: {why}" for c in citations
               if (why := check(conn, c, project_root, repos)) is not None]
    if item_ids:
        found = set()
        for start in range(0, len(item_ids), 500):
            chunk = item_ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            found |= {r[0] for r in conn.execute(
                f"SELECT id FROM items WHERE id IN ({marks})", chunk)}
        reasons += [f"item {i} is not in the spool" for i in item_ids if i not in found]
    return reasons
