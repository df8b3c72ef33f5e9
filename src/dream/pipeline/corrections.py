"""Corrections typed by the user (``dream correct ADDRESS FIELD VALUE``).

A correction is recorded as a spool item (source ``dream-correct``, kind ``statement``,
role ``user``, evidence) said at the moment it was typed, and applied by code, never by a
model: ``ref`` names the record path and field, ``text`` is the value. Because it is an
ordinary item, the nightly pass and ``--redo`` see it again and reach the same result: the
same record identity, the same evidence, no duplicate. Older messages cannot revise the
corrected field (they were said before it); newer evidence still can.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter

from dream.db import utcnow
from dream.errors import BadInput
from dream.items import Item
from dream.kinds.fields import check
from dream.kinds.records import kind_of_path
from dream.pipeline.resolve import ResolvedOp, slug_field
from dream.pipeline.state import Scope, State
from dream.secrets import redact

CORRECT_SOURCE = "dream-correct"


def target_of(scope: Scope, relpath: str) -> tuple[str, str]:
    prefix = scope.root.rstrip("/") + "/"
    if not relpath.startswith(prefix):
        raise BadInput(f"'{relpath}' is not below {scope.address_prefix}/",
                       "give the address of a record in this project or in @user/")
    found = kind_of_path(relpath[len(prefix):])
    if found is None:
        raise BadInput(f"'{relpath}' is not a record (events/, todos/, wiki/, notes/,"
                       " questions/ or standing.md)",
                       f"list the records with 'dream notes list {scope.address_prefix}'")
    return found


def record_correction(conn: sqlite3.Connection, scope: Scope, relpath: str, field: str,
                      value: str, said_at: str | None = None) -> str:
    said_at = said_at or utcnow()
    kind, _key = target_of(scope, relpath)
    field, value = check(kind, field, value)    # a field the kind has, a value of its type
    value = redact(value)[0]  # typed in directly: redacted like collected text
    name = slug_field(field)
    digest = hashlib.sha256(f"{relpath}\x00{name}\x00{value}\x00{said_at}".encode()).hexdigest()
    item_id = f"correct-{digest[:20]}"
    conn.execute(
        "INSERT OR IGNORE INTO items(id, source, source_path, ref, stream, project_key, author,"
        " role, said_at, text, kind, evidence, entities, collected_at)"
        " VALUES (?, ?, 'dream correct', ?, 'dream-correct', ?, 'user', 'user', ?, ?,"
        " 'statement', 1, ?, ?)",
        (item_id, CORRECT_SOURCE, f"{relpath}#{name}", scope.project_key, said_at, value,
         json.dumps([]), utcnow()))
    return item_id


def correction_ops(items: list[Item], state: State, dropped: Counter) -> list[ResolvedOp]:
    ops = []
    for item in items:
        relpath, _, field = item.ref.rpartition("#")
        try:
            kind, key = target_of(state.scope, relpath)
        except BadInput:
            dropped["correction_elsewhere"] += 1
            continue
        rec = state.get(kind, key)
        ops.append(ResolvedOp(
            op=f"{kind}.correct", kind=kind, key=key, is_new=rec is None,
            acted_version=rec.version if rec else None, fields={field: item.text},
            evidence=[item.id], said_at=item.said_at, bundle="correct", pass_="correct"))
    return ops
