"""The spool item: one thing said, as collected into the ``items`` table of ``dream.db``.

The one type every reader of the spool uses: the dream run claims items (``pipeline``),
the review dream loads them (``passes.evidence``), the detectors read them (``detect``)
and the ``rules`` provider rebuilds them from a model call's payload, where ``id`` is the
item's handle in that call (``E3``) instead of its spool id. ``said_at`` falls back to when
the item was collected, so items sort by time whatever their source recorded.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Item:
    seq: int                         # the spool's sequence number (its order of arrival)
    id: str                          # the item id (or, inside a model call, its handle)
    role: str                        # user | assistant | tool | other | system
    kind: str                        # the gate's kind: statement, message, tool_result, ...
    evidence: bool                   # False for the assistant's prose and tool calls
    text: str
    stream: str = ""                 # session, thread or channel
    said_at: str | None = None       # ISO 8601 UTC
    source: str = ""                 # claude_code, pi, codex, jsonl, mbox, slack, ...
    ref: str = ""                    # 'path:line' or the source's message id
    project_key: str | None = None   # None: a personal stream
    author: str | None = None
    tool_name: str | None = None
    is_error: bool | None = None
    entities: tuple[str, ...] = ()   # people and places found in it

    @property
    def is_statement(self) -> bool:
        """A genuine user statement (the gate's ``kind='statement'``)."""
        return self.evidence and self.kind == "statement" and self.role == "user"

    @property
    def is_tool_result(self) -> bool:
        return self.evidence and self.kind == "tool_result"

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Item:
        """An item from a row of ``items`` (any subset of its columns that holds the
        required ones; ``said_at`` falls back to ``collected_at``)."""
        keys = row.keys()

        def get(name: str) -> object:
            return row[name] if name in keys else None

        entities: tuple[str, ...] = ()
        raw = get("entities")
        if raw:
            try:
                entities = tuple(e for e in json.loads(raw) if isinstance(e, str))
            except (ValueError, TypeError):
                entities = ()
        is_error = get("is_error")
        return cls(
            seq=row["seq"], id=row["id"], role=row["role"], kind=row["kind"],
            evidence=bool(row["evidence"]), text=row["text"] or "",
            stream=get("stream") or "", said_at=get("said_at") or get("collected_at") or "",
            source=get("source") or "", ref=get("ref") or "",
            project_key=get("project_key"), author=get("author"),
            tool_name=get("tool_name"), is_error=None if is_error is None else bool(is_error),
            entities=entities)
