"""Merge (code): keyed diffs collide on keys and merge per field.

Ops on one (kind, key) merge into one write; per field the value said last wins and
identical values pool their evidence, so two bundles proposing one row make one row and
two bundles touching one wiki page merge per slot. Two *new* events that look alike (same
date and activity, shared participants) but have different keys are kept apart and a
question is added: when in doubt, keep rows apart and ask.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dream.kinds.questions import same_question
from dream.kinds.records import record_path
from dream.pipeline.resolve import ResolvedOp


@dataclass
class FieldWrite:
    value: str
    said_at: str
    evidence: list[str]
    pass_: str


@dataclass
class RowWrite:
    kind: str
    key: str
    acted_version: int | None
    fields: dict[str, FieldWrite] = field(default_factory=dict)
    ops: list[str] = field(default_factory=list)


def merge(ops: list[ResolvedOp]) -> tuple[list[RowWrite], list[ResolvedOp]]:
    """Merge ops into row writes. Returns (writes, questions added by merge)."""
    rows: dict[tuple[str, str], RowWrite] = {}
    # deterministic order: by when said, then by key and evidence
    for op in sorted(ops, key=lambda o: (o.said_at, o.kind, o.key, o.evidence, o.op)):
        row = rows.get((op.kind, op.key))
        if row is None:
            row = rows[(op.kind, op.key)] = RowWrite(op.kind, op.key, op.acted_version)
        elif row.acted_version is None:
            row.acted_version = op.acted_version
        row.ops.append(op.op)
        for name, value in op.fields.items():
            cur = row.fields.get(name)
            if cur is None or op.said_at > cur.said_at or (
                    op.said_at == cur.said_at and value != cur.value and value > cur.value):
                if cur is not None and cur.value == value:
                    ev = sorted(set(cur.evidence) | set(op.evidence))
                else:
                    ev = list(op.evidence)
                row.fields[name] = FieldWrite(value, op.said_at, ev, op.pass_)
            elif cur.value == value:
                cur.evidence = sorted(set(cur.evidence) | set(op.evidence))
    new_keys = {o.key for o in ops if o.kind == "event" and o.is_new}
    questions = _lookalike_events([rows[("event", k)] for k in sorted(new_keys)])
    return [rows[k] for k in sorted(rows)], questions


def _lookalike_events(new_events: list[RowWrite]) -> list[ResolvedOp]:
    """Questions about new events that look alike but have different keys."""
    by_key = {row.key: _Merged(row) for row in new_events}
    keys = sorted(by_key)
    out = []
    for i, a_key in enumerate(keys):
        for b_key in keys[i + 1:]:
            a, b = by_key[a_key], by_key[b_key]
            if not a.fields.get("date") or a.fields.get("date") != b.fields.get("date"):
                continue
            if a.fields.get("activity", "").lower() != b.fields.get("activity", "").lower():
                continue
            pa = {p.strip().lower() for p in a.fields.get("participants", "").split(",") if p}
            pb = {p.strip().lower() for p in b.fields.get("participants", "").split(",") if p}
            if pa and pb and not (pa & pb):
                continue
            if {a.fields.get("status"), b.fields.get("status")} & {"declined", "cancelled"}:
                continue   # a replaced booking next to its replacement is not a lookalike
            text = (f"Are '{a.fields.get('title', a_key)}' and '{b.fields.get('title', b_key)}'"
                    f" on {a.fields['date']} the same event?")
            key, question = same_question(record_path("event", a_key),
                                          record_path("event", b_key), text)
            out.append(ResolvedOp(
                op="question.ask", kind="question", key=key,
                is_new=True, acted_version=None, fields=question.fields(),
                evidence=sorted(set(a.evidence) | set(b.evidence)),
                said_at=max(a.said_at, b.said_at), pass_="merge"))
    return out


class _Merged:
    """A merged row's values, evidence and said_at, shaped like an op for the question."""

    def __init__(self, row: RowWrite) -> None:
        self.fields = {k: fw.value for k, fw in row.fields.items()}
        self.evidence = sorted({e for fw in row.fields.values() for e in fw.evidence})
        self.said_at = max((fw.said_at for fw in row.fields.values()), default="")
