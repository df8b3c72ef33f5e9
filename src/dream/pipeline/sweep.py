"""Sweep (one cheap call, only when there is something to sweep): tonight's changes and the
rows they could duplicate or contradict, never raw traffic.

The model looks for duplicates, contradictions and junk and answers with the same keyed
diff. It can only cite rows (``R<n>``) as evidence; code turns a cited row into that row's
own evidence ids, so a sweep op carries the evidence of the memory it heals.

What is asked (``candidates``): a row whose values changed tonight is a candidate when it
could be junk (a live note of fewer than ``SHORT_NOTE_WORDS`` content words) or has a
partner: another live row of its kind that shares a content word with it (an event also: the
same date). The sweep reads those rows only; with no candidate there is no call. The
request opens with the run's prefix (instructions and the rows the bundles touched), so it
shares the prompt cache of the run's propose calls: rows already there are named by their
handle, a changed one with its diff, and only rows the prefix lacks are written out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from dream.detect.prose import stems
from dream.errors import ModelError
from dream.kinds.diff import OP_KIND, Diff, diff_schema
from dream.kinds.records import STANDING_KEY, Record, slug_key
from dream.models.base import ModelRequest, Provider, call_validated
from dream.pipeline.propose import (
    ResolvedOp,
    RunPrefix,
    _clip,
    question_fields,
    render_prefix,
    row_line,
    rows_payload,
    slug_field,
)
from dream.pipeline.state import State

SHORT_NOTE_WORDS = 4
SWEEP_ROWS = 80
_RETIRED = {"note": ("crumpled",), "event": ("declined", "cancelled"), "todo": ("done",)}
_WORD_SLOTS = {"note": ("text",), "event": ("title", "activity", "place"), "todo": ("title",)}


@dataclass
class SweepResult:
    ops: list[ResolvedOp] = field(default_factory=list)
    usage: Counter = field(default_factory=Counter)   # calls and tokens (ModelResponse.usage)
    dropped: Counter = field(default_factory=Counter)
    error: str | None = None
    skipped: bool = False         # nothing to sweep: no call was made


def _live(rec: Record) -> bool:
    status = rec.get("status")
    return rec.kind in _RETIRED and status not in _RETIRED[rec.kind]


def _words(rec: Record) -> set[str]:
    return stems(" ".join(rec.get(s) for s in _WORD_SLOTS.get(rec.kind, ())))


def candidates(state: State, changed: list[Record], limit: int = SWEEP_ROWS) -> list[Record]:
    """The changed rows worth a sweep (junk, or with a partner) followed by their partners;
    empty when there is nothing to sweep."""
    keys = {(r.kind, r.key) for r in changed}
    live = [r for r in state.records.values() if _live(r) and (r.kind, r.key) not in keys]
    words = {(r.kind, r.key): _words(r) for r in live}
    chosen: list[Record] = []
    partners: dict[tuple[str, str], Record] = {}
    for r in changed:
        words[(r.kind, r.key)] = _words(r)

    def pair(a: Record, b: Record) -> bool:
        return a.kind == b.kind and bool(
            words[(a.kind, a.key)] & words[(b.kind, b.key)]
            or (a.kind == "event" and a.get("date") and a.get("date") == b.get("date")))

    for rec in changed:
        if not _live(rec):
            continue
        found = [r for r in live if pair(rec, r)]
        found += [r for r in changed if r is not rec and _live(r) and pair(rec, r)]
        junk = rec.kind == "note" and len(words[(rec.kind, rec.key)]) < SHORT_NOTE_WORDS
        if found or junk:
            chosen.append(rec)
            for r in found:
                partners.setdefault((r.kind, r.key), r)
    rest = [r for k, r in partners.items() if k not in {(c.kind, c.key) for c in chosen}]
    rows = (chosen + rest)[:limit]
    if rows:     # questions already asked about these rows, so none is asked twice
        paths = {r.path for r in rows}
        rows += [q for q in state.of_kind("question")
                 if paths & {p.strip() for p in q.get("about").split(",")}][:limit]
    return rows


def sweep(provider: Provider, state: State, changed: list[Record],
          before: dict[tuple[str, str], dict[str, str]] | None = None,
          prefix: RunPrefix | None = None) -> SweepResult:
    """``before`` holds the changed rows' values before this run: the run's diffs; rows
    whose values did not change (only their evidence grew) are not tonight's changes."""
    result = SweepResult()
    before = before or {}
    changed = [r for r in changed if before.get((r.kind, r.key)) != r.values()]
    chosen = candidates(state, changed)
    if not chosen:
        result.skipped = True
        return result
    prefix = prefix or RunPrefix(render_prefix({}, state.as_of()), {}, state.as_of())
    in_prefix = {(r.kind, r.key): h for h, r in prefix.rows.items()}
    changed_keys = {(r.kind, r.key) for r in changed}
    rows: dict[str, Record] = {}
    n = len(prefix.rows)
    diffs, unchanged_above, written = [], [], []
    for rec in chosen:
        k = (rec.kind, rec.key)
        handle = in_prefix.get(k)
        if handle is None:
            n += 1
            handle = f"R{n}"
        rows[handle] = rec
        if k in changed_keys:
            old = before.get(k, {})
            if not old:
                diffs.append(f"{handle} new row: " + row_line(handle, rec).split(" ", 1)[1])
                continue
            moved = [f"{f}: {_clip(old[f], 60)!r} -> {_clip(v, 60)!r}" if f in old else
                     f"{f}: new {_clip(v, 60)!r}" for f, v in rec.values().items()
                     if old.get(f) != v]
            line = f"{handle} {rec.kind} {rec.key} v{rec.version}: " + "; ".join(moved)
            diffs.append(line if k in in_prefix else line + " | now: " + "; ".join(
                f"{f}={_clip(v, 160)}" for f, v in rec.values().items()))
        elif k in in_prefix:
            unchanged_above.append(handle)
        else:
            written.append(row_line(handle, rec))
    body = ["TASK SWEEP", "TONIGHT'S DIFFS:", *diffs]
    if unchanged_above or written:
        body.append("COMPARE WITH:" + (f" {', '.join(unchanged_above)} (above)"
                                       if unchanged_above else ""))
        body += written
    request = ModelRequest(
        purpose="sweep", prefix=prefix.text, body="\n".join(body) + "\n",
        schema=diff_schema(),
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
