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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dream.detect.prose import stems
from dream.errors import ModelError
from dream.kinds.diff import OP_KIND, Diff, diff_schema
from dream.kinds.records import STANDING_KEY, Record, slug_key
from dream.models.base import ModelRequest, Provider, call_validated
from dream.pipeline.leaks import carries_other_scope, words
from dream.pipeline.prompt import RunPrefix, _clip, render_prefix, row_line, rows_payload
from dream.pipeline.resolve import ResolvedOp, named_rows, question_fields, slug_field
from dream.pipeline.state import State

SHORT_NOTE_WORDS = 4
SWEEP_ROWS = 80
_RETIRED = {"note": ("crumpled",), "event": ("declined", "cancelled"), "todo": ("done", "dropped")}
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


def candidates(state: State, changed: list[Record], limit: int = SWEEP_ROWS,
               judged: Callable[[Record, Record | None], bool] | None = None) -> list[Record]:
    """The changed rows worth a sweep (junk, or with a partner) followed by their partners;
    empty when there is nothing to sweep. ``judged(row, partner)`` (a run whose calls are
    billed, see ``judged_by_calls``) says a pair, or with ``None`` the row alone, was
    already judged by the propose call that wrote the row: such a partner is no reason to
    sweep, nor is such a row's shortness."""
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
        if judged is not None:
            found = [r for r in found if not judged(rec, r)]
            junk = junk and not judged(rec, None)
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


def judged_by_calls(ops: list[ResolvedOp], shown: set[tuple[str, str]]
                    ) -> Callable[[Record, Record | None], bool]:
    """Which changed rows a billed run's propose calls already judged: a row every write
    of which came from one call ``c`` was judged beside each partner that call was shown,
    that is a row of the prefix (``shown``) no other call changed, or a row ``c`` itself
    wrote (alone, by the same token, for a note's shortness: ``c`` saw its evidence, the
    sweep would see only the row). A row written by two calls, or by code (a correction,
    an answer, a merge), was judged by nobody beside anything."""
    writers: dict[tuple[str, str], set[int]] = {}
    for op in ops:
        writers.setdefault((op.kind, op.key), set()).add(
            op.call if op.pass_ == "propose" else -1)

    def judged(rec: Record, partner: Record | None) -> bool:
        mine = writers.get((rec.kind, rec.key), {-1})
        if len(mine) != 1 or -1 in mine:
            return False
        if partner is None:
            return True
        k = (partner.kind, partner.key)
        theirs = writers.get(k, set())
        return theirs <= mine and (k in shown or bool(theirs))

    return judged


@dataclass
class SweepPart:
    """One scope's share of a sweep call: the rows it names and its lines of the body."""

    state: State
    rows: dict[str, Record]
    lines: list[str]
    diffs: list[str]
    changed: list[str]
    ops: list[ResolvedOp] = field(default_factory=list)
    index: int = 0                  # the scope's position in the run


def sweep_part(state: State, changed: list[Record], before: dict[tuple[str, str], dict],
               in_prefix: dict[tuple[str, str], str], start: int,
               judged=None) -> SweepPart | None:
    """The rows and lines one scope adds to a sweep call, or None when it has nothing to
    sweep. Rows the prefix shows are named by their handle (``in_prefix``), others get
    handles after ``start``."""
    changed = [r for r in changed if before.get((r.kind, r.key)) != r.values()]
    chosen = candidates(state, changed, judged=judged)
    if not chosen:
        return None
    changed_keys = {(r.kind, r.key) for r in changed}
    rows: dict[str, Record] = {}
    n = start
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
    lines = ["TONIGHT'S DIFFS:", *diffs]
    if unchanged_above or written:
        lines.append("COMPARE WITH:" + (f" {', '.join(unchanged_above)} (above)"
                                        if unchanged_above else ""))
        lines += written
    return SweepPart(state, rows, lines, diffs,
                     [h for h, r in rows.items() if (r.kind, r.key) in changed_keys])


def empty_prefix(state: State) -> RunPrefix:
    """The prefix of a run that proposed nothing: the instructions and no rows."""
    return RunPrefix(render_prefix({}, state.as_of()), {}, state.as_of())


def sweep(provider: Provider, state: State, changed: list[Record],
          before: dict[tuple[str, str], dict[str, str]] | None = None,
          prefix: RunPrefix | None = None, judged=None) -> SweepResult:
    """One scope's sweep. ``before`` holds the changed rows' values before this run: the
    run's diffs; rows whose values did not change (only their evidence grew) are not
    tonight's changes."""
    prefix = prefix or empty_prefix(state)
    in_prefix = {(r.kind, r.key): h for h, r in prefix.rows.items()}
    part = sweep_part(state, changed, before or {}, in_prefix, len(prefix.rows), judged)
    result = sweep_parts(provider, [part] if part else [], prefix)
    if part is not None:
        result.ops = part.ops
    return result


def sweep_parts(provider: Provider, parts: list[SweepPart], prefix: RunPrefix,
                headings: list[str] | None = None) -> SweepResult:
    """ONE sweep call for the parts of a run's scopes (each under its heading when there
    are several); each part's ops land in ``part.ops``. An op citing rows of two parts,
    or naming a row of another part than its citations, is dropped (``cross_scope``)."""
    result = SweepResult()
    if not parts:
        result.skipped = True
        return result
    body = ["TASK SWEEP"]
    for n, part in enumerate(parts):
        if headings:
            body.append(headings[n])
        body += part.lines
    rows = {h: r for part in parts for h, r in part.rows.items()}
    owner = {h: n for n, part in enumerate(parts) for h in part.rows}
    payload: dict[str, Any] = {
        "rows": rows_payload(rows), "diffs": [d for p in parts for d in p.diffs],
        "changed": [h for p in parts for h in p.changed],
        "as_of": parts[0].state.as_of(), "scope": parts[0].state.scope.root}
    if len(parts) > 1:
        payload["parts"] = [{"rows": rows_payload(p.rows), "diffs": p.diffs,
                             "changed": p.changed, "as_of": p.state.as_of(),
                             "scope": p.state.scope.root} for p in parts]
    request = ModelRequest(purpose="sweep", prefix=prefix.text, body="\n".join(body) + "\n",
                           schema=diff_schema(), payload=payload, max_output_tokens=1024)
    try:
        diff, response = call_validated(provider, request, Diff.model_validate)
    except ModelError as exc:
        result.error = exc.message
        result.usage["calls"] = 2
        return result
    result.usage = response.usage()
    def scope(handle: str) -> int | None:     # a part's row, or a row of the prefix
        return parts[owner[handle]].index if handle in owner else prefix.scope_of.get(handle)

    material: dict[int, set[str]] = {}       # what each scope showed, for leaks
    if len(parts) > 1:
        shown = [(p.index, r) for p in parts for r in p.rows.values()] + [
            (prefix.scope_of.get(h, 0), r) for h, r in prefix.rows.items()]
        for index, rec in shown:
            material.setdefault(index, set()).update(
                words(" ".join([rec.key, *rec.values().values()])))
    for op in diff.ops:
        cited = [owner.get(h.strip()) for h in op.evidence]
        if not op.evidence or None in cited:
            result.dropped["sweep_bad_citation"] += 1
            continue
        named = {scope(h) for h in named_rows(op)} - {None}
        if len({parts[c].index for c in cited} | named) > 1:
            result.dropped["cross_scope"] += 1
            continue
        part = parts[cited[0]]
        if material and carries_other_scope(op, part.index, material):
            result.dropped["cross_scope"] += 1
            continue
        resolved = _resolve(op, part.rows, part.state, result.dropped)
        if resolved is not None:
            part.ops.append(resolved)
    result.ops = [o for p in parts for o in p.ops]
    return result


def _resolve(op, rows: dict[str, Record], state: State, dropped: Counter) -> ResolvedOp | None:
    cited = [rows[h.strip()] for h in op.evidence]
    kind = OP_KIND[op.op]
    fields = {slug_field(f.name): f.value.strip() for f in op.fields if f.name.strip()}
    if op.op == "note.crumple":
        fields = {"status": "crumpled"}
    if op.op == "question.ask":
        fields = question_fields(fields, rows)
    if op.row:
        target = rows.get(op.row.strip())
        if target is None or target.kind != kind:
            dropped["sweep_bad_row"] += 1
            return None
        key, version, is_new = target.key, target.version, False
    elif kind == "standing":
        key, version, is_new = STANDING_KEY, None, state.standing() is None
    else:
        name = op.name or fields.get("title") or fields.get("text") or ""
        if not name:
            dropped["sweep_no_name"] += 1
            return None
        key, version, is_new = slug_key(name), None, state.get(kind, slug_key(name)) is None
    if not fields:
        dropped["sweep_no_fields"] += 1
        return None
    evidence = sorted({e for c in cited for e in c.evidence()})
    said_at = max(c.latest_said() for c in cited)
    return ResolvedOp(op=op.op, kind=kind, key=key, is_new=is_new, acted_version=version,
                      fields=fields, evidence=evidence, said_at=said_at, bundle="sweep",
                      pass_="sweep")
