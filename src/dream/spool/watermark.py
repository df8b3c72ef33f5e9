"""Per-file watermark in ``source_files``: how far each source file has been collected.

For a line source the watermark is the byte offset just after the last complete line
consumed (a partial last line, a file still being written, waits for its newline), the
number of lines consumed, the file's mtime, and the SHA-256 of the first bytes consumed
(up to 4096). On the next collect:

* same size as consumed and same mtime: nothing new, decided from ``stat`` alone;
* smaller than consumed, or the head bytes changed: the file was replaced or truncated and
  is read again from the start (stable item ids make that free of duplicates);
* otherwise only the bytes after the offset are read.

File sources (mbox, Slack zip, text export) keep size and mtime only and are re-read whole
when either changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dream.db import utcnow
from dream.secrets import redact

HEAD_BYTES = 4096


@dataclass
class FileMark:
    path: str
    source: str
    size: int = 0          # bytes consumed
    mtime: float = 0.0
    lines: int = 0
    head_sha256: str = ""
    state: dict[str, Any] = field(default_factory=dict)
    known: bool = False    # a row exists


def head_hash(path: Path, length: int) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read(min(length, HEAD_BYTES))).hexdigest()


def row_key(path: str) -> str:
    """A file's row is keyed by its redacted path: a secret in a folder name (a Claude Code
    project folder is named after the working directory) is not stored either."""
    return redact(path)[0]


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)[0]
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    return value


def load(conn: sqlite3.Connection, path: str, source: str) -> FileMark:
    row = conn.execute("SELECT * FROM source_files WHERE path=?", (row_key(path),)).fetchone()
    if row is None:
        return FileMark(path, source)
    try:
        state = json.loads(row["state"] or "{}")
    except ValueError:
        state = {}
    return FileMark(path, row["source"], row["size"], row["mtime"], row["lines"],
                    row["head_sha256"], state if isinstance(state, dict) else {}, True)


def learned(conn: sqlite3.Connection, source: str) -> dict[str, Any]:
    """What the files of ``source`` collected so far taught (their state's ``learned``),
    merged in the order they were recorded: a later file's lesson wins."""
    out: dict[str, Any] = {}
    for (raw,) in conn.execute("SELECT state FROM source_files WHERE source = ? AND state "
                               "LIKE '%\"learned\"%' ORDER BY updated_at, path", (source,)):
        try:
            taught = json.loads(raw or "{}").get("learned")
        except (ValueError, AttributeError):
            continue
        if isinstance(taught, dict):
            out.update(taught)
    return out


def load_all(conn: sqlite3.Connection) -> dict[str, tuple[int, float, str]]:
    """path -> (size consumed, mtime, source): what the stat-only fast path needs."""
    return {row[0]: (row[1], row[2], row[3]) for row in
            conn.execute("SELECT path, size, mtime, source FROM source_files")}


def unchanged(mark: tuple[int, float, str] | None, st: os.stat_result) -> bool:
    return mark is not None and mark[0] == st.st_size and mark[1] == st.st_mtime


def replaced(mark: FileMark, path: Path, st: os.stat_result) -> bool:
    """True when the file no longer starts with what was consumed (replaced or truncated)."""
    if not mark.known or mark.size == 0:
        return False
    if st.st_size < mark.size:
        return True
    try:
        return head_hash(path, mark.size) != mark.head_sha256
    except OSError:
        return True


def save(conn: sqlite3.Connection, mark: FileMark, path: Path) -> None:
    """Record the watermark (call inside the transaction that inserted the items)."""
    mark.head_sha256 = head_hash(path, mark.size)  # one small read; keeps length in step
    conn.execute(
        "INSERT INTO source_files(path, source, size, mtime, lines, head_sha256, updated_at,"
        " state) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
        "source=excluded.source, size=excluded.size, mtime=excluded.mtime, "
        "lines=excluded.lines, head_sha256=excluded.head_sha256, "
        "updated_at=excluded.updated_at, state=excluded.state",
        (row_key(mark.path), mark.source, mark.size, mark.mtime, mark.lines,
         mark.head_sha256, utcnow(), json.dumps(_redacted(mark.state), ensure_ascii=False)))
    mark.known = True
