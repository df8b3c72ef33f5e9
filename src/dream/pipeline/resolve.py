"""Resolve: a model's answer mapped back to rows and evidence, or dropped and counted.

A call shows rows by short handles (``R1``...) and items by ``E1``...
(``dream.pipeline.prompt``); code maps them back, so an answer can name no key and cite no
item it was not shown. An op is dropped, and counted, when it cites no evidence, an unknown
handle, an item that is not gated evidence, or assistant prose.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from dream.items import Item
from dream.kinds.diff import OP_KIND, Op
from dream.kinds.questions import parse as parse_question
from dream.kinds.records import STANDING_KEY, Record, slug_key
from dream.pipeline.prompt import Call
from dream.pipeline.state import State


@dataclass
class ResolvedOp:
    op: str
    kind: str
    key: str
    is_new: bool
    acted_version: int | None
    fields: dict[str, str]
    evidence: list[str]
    said_at: str
    bundle: str = ""
    pass_: str = "propose"
    call: int = -1             # the propose call whose answer it came from (-1: code)



def resolve_op(op: Op, call: Call, rows: dict[str, Record], state: State,
               dropped: Counter, pass_: str = "propose") -> ResolvedOp | None:
    """Map handles back to item ids and row keys; None (counted) when the op is unusable."""
    if not op.evidence:
        dropped["no_evidence"] += 1
        return None
    items: list[Item] = []
    for handle in op.evidence:
        item = call.handles.get(handle.strip())
        if item is None:
            dropped["unknown_evidence"] += 1
            return None
        if item.role == "assistant" or item.kind == "assistant":
            dropped["assistant_prose"] += 1
            return None
        if not item.evidence:
            dropped["not_gated"] += 1
            return None
        items.append(item)
    kind = OP_KIND[op.op]
    fields = {slug_field(f.name): f.value.strip() for f in op.fields if f.name.strip()}
    if op.row:
        rec = rows.get(op.row.strip())
        if rec is None or (rec.kind != kind):
            dropped["unknown_row"] += 1
            return None
        key, is_new, version = rec.key, False, rec.version
    else:
        if kind == "standing":
            key = STANDING_KEY
        else:
            name = op.name or fields.get("title") or fields.get("text") or ""
            if not name.strip():
                dropped["no_name"] += 1
                return None
            key = slug_key(name)
        existing = state.get(kind, key)
        is_new = existing is None
        version = None if existing is None else existing.version
    if op.op == "todo.close":
        # closed as done, or dropped with the plan it was taken on for
        fields["status"] = "dropped" if fields.get("status") == "dropped" else "done"
    if op.op == "note.crumple":
        fields = {"status": "crumpled"}
    if op.op == "note.add" and "status" not in fields:
        fields["status"] = "live"
    if op.op == "todo.open" and "status" not in fields:
        fields["status"] = "open"
    if op.op == "question.ask":
        fields = question_fields(fields, rows)
    if not fields:
        dropped["no_fields"] += 1
        return None
    evidence_ids = sorted({i.id for i in items})
    said_at = max(i.said_at for i in items)
    return ResolvedOp(op=op.op, kind=kind, key=key, is_new=is_new, acted_version=version,
                      fields=fields, evidence=evidence_ids, said_at=said_at,
                      bundle=",".join(b.id for b in call.bundles), pass_=pass_)


def named_rows(op: Op) -> list[str]:
    """The row handles an op names: its target row and, for a question, its ``about``."""
    about = next((f.value for f in op.fields if f.name.strip() == "about"), "") \
        if op.op == "question.ask" else ""
    return [h for h in [(op.row or "").strip(), *(p.strip() for p in about.split(","))]
            if re.fullmatch(r"R\d+", h)]


def question_fields(fields: dict[str, str], rows: dict[str, Record]) -> dict[str, str]:
    """A model's question in the stored shape (``dream.kinds.questions``): row handles in
    ``about`` become record paths, ``ask`` is filled in when ``about`` says it (two records:
    same thing?), and the question is open. A question that names no record keeps its text
    and stays a free question."""
    about = []
    for part in fields.get("about", "").split(","):
        rec = rows.get(part.strip())
        about.append(rec.path if rec is not None else part.strip())
    out = dict(fields, about=", ".join(p for p in about if p), status="open")
    question = parse_question(out)
    return question.fields() if question is not None else out


def slug_field(name: str) -> str:
    return slug_key(name).replace("-", "_")[:64]
