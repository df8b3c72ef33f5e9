"""Sweep (one cheap call): the resulting state plus this run's diffs, never raw traffic.

The model looks for duplicates, contradictions and junk and answers with the same keyed
diff. It can only cite rows (``R<n>``) as evidence; code turns a cited row into that row's
own evidence ids, so a sweep op carries the evidence of the memory it heals.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from dream.errors import ModelError
from dream.kinds.diff import OP_KIND, Diff, diff_schema
from dream.kinds.records import STANDING_KEY, Record, slug_key
from dream.models.base import ModelRequest, Provider, call_validated
from dream.pipeline.propose import (
    ResolvedOp,
    _clip,
    question_fields,
    rows_payload,
    slug_field,
)
from dream.pipeline.state import State

INSTRUCTIONS = """Sweep the memory below after tonight's changes.
Answer ONLY with JSON {"ops": [...]}.
Look for duplicates (crumple the extra note, decline the duplicate event), contradictions
(ask a question: ask "same" about two rows, or ask "value" about one row's field with
options) and obvious junk (crumple it). Cite the rows you act on as "evidence"
(R<n> handles). Change nothing else; an empty list is a fine answer."""


@dataclass
class SweepResult:
    ops: list[ResolvedOp] = field(default_factory=list)
    usage: Counter = field(default_factory=Counter)   # calls and tokens (ModelResponse.usage)
    dropped: Counter = field(default_factory=Counter)
    error: str | None = None


def sweep(provider: Provider, state: State, changed: list[Record],
          before: dict[tuple[str, str], dict[str, str]] | None = None,
          limit: int = 80) -> SweepResult:
    """``before`` holds the changed rows' values before this run: the run's diffs."""
    result = SweepResult()
    before = before or {}
    changed_keys = {(r.kind, r.key) for r in changed}
    entities = sorted({w for r in changed for w in r.get("participants", "").split(", ")
                       if w} | {r.get("name") for r in changed if r.kind == "wiki"} - {""})
    rows_list = list(changed) + [r for r in state.relevant(entities, limit)
                                 if (r.kind, r.key) not in changed_keys]
    rows = {f"R{i + 1}": r for i, r in enumerate(rows_list[:limit])}
    lines = [f"{h} {r.kind} {r.key} v{r.version}"
             f"{' (changed tonight)' if (r.kind, r.key) in changed_keys else ''}: "
             + "; ".join(f"{k}={_clip(v, 160)}" for k, v in r.values().items())
             for h, r in rows.items()]
    diffs = []
    for h, r in rows.items():
        if (r.kind, r.key) not in changed_keys:
            continue
        old = before.get((r.kind, r.key), {})
        moved = [f"{k}: {_clip(old[k], 60)!r} -> {_clip(v, 60)!r}" if k in old else
                 f"{k}: new {_clip(v, 60)!r}" for k, v in r.values().items()
                 if old.get(k) != v]
        diffs.append(f"{h} " + ("new row; " if not old else "") + "; ".join(moved))
    request = ModelRequest(
        purpose="sweep", prefix=INSTRUCTIONS + "\n\nSCHEMA:\n" + str(diff_schema()) + "\n",
        body="STATE:\n" + "\n".join(lines) + "\n\nTONIGHT'S DIFFS:\n" + "\n".join(diffs)
        + "\n", schema=diff_schema(),
        payload={"rows": rows_payload(rows), "diffs": diffs,
                 "changed": [h for h, r in rows.items() if (r.kind, r.key) in changed_keys],
                 "as_of": state.as_of(), "scope": state.scope.root},
        max_output_tokens=1024,
    )
    try:
        diff, response = call_validated(provider, request, Diff.model_validate)
    except ModelError as exc:
        result.error = exc.message
        result.usage["calls"] = 2
        return result
    result.usage = response.usage()
    for op in diff.ops:
        cited = [rows.get(h.strip()) for h in op.evidence]
        if not op.evidence or any(c is None for c in cited):
            result.dropped["sweep_bad_citation"] += 1
            continue
        kind = OP_KIND[op.op]
        fields = {slug_field(f.name): f.value.strip() for f in op.fields if f.name.strip()}
        if op.op == "note.crumple":
            fields = {"status": "crumpled"}
        if op.op == "question.ask":
            fields = question_fields(fields, rows)
        if op.row:
            target = rows.get(op.row.strip())
            if target is None or target.kind != kind:
                result.dropped["sweep_bad_row"] += 1
                continue
            key, version, is_new = target.key, target.version, False
        elif kind == "standing":
            key, version, is_new = STANDING_KEY, None, state.standing() is None
        else:
            name = op.name or fields.get("title") or fields.get("text") or ""
            if not name:
                result.dropped["sweep_no_name"] += 1
                continue
            key, version, is_new = slug_key(name), None, state.get(kind, slug_key(name)) is None
        if not fields:
            result.dropped["sweep_no_fields"] += 1
            continue
        evidence = sorted({e for c in cited for e in c.evidence()})
        said_at = max(c.latest_said() for c in cited)
        result.ops.append(ResolvedOp(op=op.op, kind=kind, key=key, is_new=is_new,
                                     acted_version=version, fields=fields, evidence=evidence,
                                     said_at=said_at, bundle="sweep", pass_="sweep"))
    return result
