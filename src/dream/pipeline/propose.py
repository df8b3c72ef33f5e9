"""Propose (model, parallel, packed): bundles plus the current state in, typed keyed diffs out.

Each call packs up to ``pack`` bundles. The prompt puts everything identical across the
run's calls first (instructions, the answer schema, the current state for every entity of
the run) so providers can cache it; the call's own bundles follow. Rows are shown by short
handles (``R1``...) and items by ``E1``... ; code maps them back, so an answer can name no
key and cite no item it was not shown. An op is dropped, and counted, when it cites no
evidence, an unknown handle, an item that is not gated evidence, or assistant prose.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from dream.errors import ModelError
from dream.kinds.diff import OP_KIND, Diff, Op, diff_schema
from dream.kinds.questions import parse as parse_question
from dream.kinds.records import STANDING_KEY, Record, slug_key
from dream.models.base import ModelRequest, Provider, call_validated
from dream.pipeline.bundle import Bundle, shown_chars
from dream.pipeline.spool import Item
from dream.pipeline.state import State

CONTEXT_CHARS = 400        # assistant prose is shown (truncated) as context, never evidence
ITEM_CHARS = 4000
MAX_CALL_CHARS = 120_000   # about 30k tokens of bundles per call

INSTRUCTIONS = """You consolidate a person's messages and an agent's session traffic into typed
memory.
Answer ONLY with JSON matching the schema: {"ops": [...]}. Never write free-form memories.
Each op is one of: event.upsert, todo.open, todo.close, wiki.fill, standing.set, note.add,
note.update, note.crumple, question.ask.
- To change an existing row, set "row" to its handle (R<n>) from CURRENT STATE.
- For a new row, set "name" (a short name; the key is made from it) and leave "row" empty.
- "fields" is a list of {"name", "value"}. Events: title, activity, date (YYYY-MM-DD), time
  (HH:MM), place, participants, status (proposed|confirmed|declined|cancelled). To-dos: title,
  status (open|done), due. Wiki: named slots of the entity's page. Standing: one field per fact.
  Notes: text, type (directive|preference|correction|failure|fact). Questions: text, ask
  (same: "are these two rows one thing?", about = two row handles "R1, R2"; value: "which
  value does this field hold?", about = one row handle, field, options = JSON list).
- Every op cites "evidence": the handles (E<n>) of the items that say it. Items marked
  [context] are the assistant's own prose: they are never evidence and never a correction.
- Cancelling one booking and making another: decline the old row, confirm a new one.
- When unsure whether two things are the same, keep them apart and ask a question."""


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


@dataclass
class Call:
    index: int
    bundles: list[Bundle]
    handles: dict[str, Item] = field(default_factory=dict)
    body: str = ""
    payload_bundles: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ProposeResult:
    ops: list[ResolvedOp] = field(default_factory=list)
    usage: Counter = field(default_factory=Counter)   # calls and tokens (ModelResponse.usage)
    dropped: Counter = field(default_factory=Counter)
    failed_bundles: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def row_handles(rows: list[Record]) -> dict[str, Record]:
    return {f"R{i + 1}": rec for i, rec in enumerate(rows)}


def render_prefix(rows: dict[str, Record], as_of: str) -> str:
    lines = [INSTRUCTIONS, "", "SCHEMA:", json.dumps(diff_schema(), separators=(",", ":")),
             "", f"CURRENT STATE (as of {as_of or 'empty'}):"]
    if not rows:
        lines.append("(no rows yet)")
    for handle, rec in rows.items():
        vals = "; ".join(f"{k}={_clip(v, 160)}" for k, v in rec.values().items())
        lines.append(f"{handle} {rec.kind} {rec.key} v{rec.version}: {vals}")
    return "\n".join(lines) + "\n"


def rows_payload(rows: dict[str, Record]) -> list[dict[str, Any]]:
    return [{"handle": h, "kind": r.kind, "key": r.key, "version": r.version,
             "fields": r.values()} for h, r in rows.items()]


def pack_calls(bundles: list[Bundle], pack: int) -> list[Call]:
    """Up to ``pack`` bundles per call, and no more than MAX_CALL_CHARS of prompt body."""
    pack = max(1, pack)
    groups: list[list[Bundle]] = []
    size = 0
    for b in bundles:
        cost = sum(shown_chars(i) for i in b.items)
        if groups and len(groups[-1]) < pack and size + cost <= MAX_CALL_CHARS:
            groups[-1].append(b)
            size += cost
        else:
            groups.append([b])
            size = cost
    calls = []
    for group in groups:
        call = Call(index=len(calls), bundles=group)
        lines = []
        n = 0
        seen: dict[str, str] = {}     # text shown -> the handle that showed it first
        for b in call.bundles:
            lines.append(f"## Bundle {b.id} (entities: {', '.join(b.entities) or '-'};"
                         f" streams: {', '.join(b.streams)})")
            items_payload = []
            for pos, it in enumerate(b.items):
                n += 1
                handle = f"E{n}"
                call.handles[handle] = it
                context = not it.evidence
                shown = prompt_text(it, answered_by_user(b.items, pos))
                if shown is not None:
                    first = seen.setdefault(shown, handle)
                    if first != handle:
                        shown = f"(same text as {first})"
                    tag = "[context]" if context else f"[{it.kind}]"
                    who = it.author or it.role
                    extra = (f" tool={it.tool_name} error={bool(it.is_error)}"
                             if it.tool_name else "")
                    lines.append(f"{handle} {tag} {it.said_at} {it.role}/{who}{extra}: {shown}")
                items_payload.append({
                    "handle": handle, "role": it.role, "author": it.author, "kind": it.kind,
                    "said_at": it.said_at, "evidence": it.evidence,
                    # code providers read the text as it was said, its lines kept
                    "text": _clip_lines(it.text, CONTEXT_CHARS if context else ITEM_CHARS),
                    "tool_name": it.tool_name, "is_error": it.is_error, "stream": it.stream,
                    "source": it.source,
                    "entities": it.entities,
                })
            call.payload_bundles.append({"id": b.id, "entities": b.entities,
                                         "items": items_payload})
        call.body = "\n".join(lines) + "\n"
        calls.append(call)
    return calls


TOOL_HEAD_CHARS = 400
TOOL_TAIL_CHARS = 300
TOOL_ERROR_LINES = 8
_ERROR_LINE = re.compile(r"error|fail|exception|traceback|fatal|denied|not found|"
                         r"exit (?:code|status)|cannot|panic", re.IGNORECASE)


def prompt_text(item: Item, answered: bool) -> str | None:
    """What a model is shown of an item: only what it needs, so a run sends less.

    - Assistant prose is context, never evidence: it is shown (clipped) only when the
      user's next message in the bundle answers it (a correction needs what it corrects),
      else left out.
    - A tool result is cut to its head, its error lines and its tail (see tool_digest).
    - Anything else is clipped at ITEM_CHARS.
    Code providers read the structured payload, which keeps every item as it was.
    """
    if not item.evidence:
        return _clip(item.text, CONTEXT_CHARS) if answered else None
    if item.tool_name or item.kind == "tool_result":
        return tool_digest(item.text)
    return _clip(item.text, ITEM_CHARS)


def tool_digest(text: str) -> str:
    """A tool result's head (the command and first lines), the lines that name an error
    or an exit status, and its tail (the summary), at most about 1,300 characters."""
    limit = TOOL_HEAD_CHARS + TOOL_TAIL_CHARS + 600
    if len(text) <= limit:
        return text
    head, tail = text[:TOOL_HEAD_CHARS], text[-TOOL_TAIL_CHARS:]
    middle = text[TOOL_HEAD_CHARS:-TOOL_TAIL_CHARS]
    errors = [_clip(line.strip(), 150) for line in middle.splitlines()
              if _ERROR_LINE.search(line)][:TOOL_ERROR_LINES]
    cut = len(middle) - sum(len(e) for e in errors)
    return (head + f" …[{cut} chars cut]… " + " | ".join(errors)
            + (" … " if errors else "") + tail)


def answered_by_user(items: list[Item], pos: int) -> bool:
    """True when the next item of the same stream after ``pos`` is the user's."""
    stream = items[pos].stream
    for later in items[pos + 1:]:
        if later.stream == stream:
            return later.role == "user"
    return False


def propose(provider: Provider, state: State, bundles: list[Bundle], pack: int,
            parallel: int = 4, on_call=None) -> ProposeResult:
    entities = sorted({e for b in bundles for e in b.entities})
    rows = row_handles(state.relevant(entities))
    as_of = state.as_of()
    prefix = render_prefix(rows, as_of)
    rpayload = rows_payload(rows)
    calls = pack_calls(bundles, pack)
    result = ProposeResult()

    def one(call: Call):
        request = ModelRequest(
            purpose="propose", prefix=prefix, body=call.body, schema=diff_schema(),
            payload={"rows": rpayload, "bundles": call.payload_bundles, "as_of": as_of,
                     "scope": state.scope.root},
        )
        try:
            diff, response = call_validated(provider, request, Diff.model_validate)
        except ModelError as exc:
            return call, None, exc
        return call, (diff, response), None

    workers = max(1, min(parallel, len(calls)))
    if workers == 1:
        outcomes = map(one, calls)
    else:
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dream-propose")
        outcomes = pool.map(one, calls)
    try:
        for call, answer, error in outcomes:
            if on_call:
                on_call(call)
            if error is not None:
                result.failed_bundles += [b.id for b in call.bundles]
                result.errors.append(error.message)
                result.usage["calls"] += 2
                continue
            diff, response = answer
            result.usage.update(response.usage())
            for op in diff.ops:
                resolved = resolve_op(op, call, rows, state, result.dropped)
                if resolved is not None:
                    result.ops.append(resolved)
    finally:
        if workers > 1:
            pool.shutdown(wait=True)
    return result


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
        fields["status"] = "done"
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


def _clip_lines(text: str, limit: int) -> str:
    """The text with its lines kept (spaces within a line collapsed), clipped."""
    text = "\n".join(" ".join(ln.split()) for ln in str(text).splitlines() if ln.strip())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
