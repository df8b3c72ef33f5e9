"""Merge's one model step: genuinely ambiguous near-horizon conflicts.

Merge keeps look-alike new events apart and adds a question. When such a pair is near
(its date within ``NEAR_DAYS`` of the state's now), one small call asks the model whether
the two are the same event. "Same" re-targets the second key's ops onto the first (the
rows merge per field as usual) and drops the question; anything else — "not the same",
no answer, an invalid answer — keeps them apart with the question. The rules provider
never claims two events are the same.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from pydantic import BaseModel, ConfigDict, Field

from dream.errors import ModelError
from dream.kinds.diff import strict_schema
from dream.kinds.text import parse_when
from dream.models.base import ModelRequest, Provider, call_validated
from dream.pipeline.resolve import ResolvedOp

NEAR_DAYS = 7
INSTRUCTIONS = """Two new events look alike. For each numbered pair answer whether they are the
same real-world event. Answer ONLY with JSON {"decisions": [{"pair": n, "same": true|false}]}.
When unsure, answer false: they stay apart and the user is asked."""


class Decision(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pair: int
    same: bool


class SettleAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decisions: list[Decision] = Field(default_factory=list)


def _pair(question: ResolvedOp) -> tuple[str, str] | None:
    about = [p.strip() for p in question.fields.get("about", "").split(",")]
    keys = [p.removeprefix("events/").removesuffix(".md") for p in about if p]
    return (keys[0], keys[1]) if len(keys) == 2 else None


def settle(provider: Provider, ops: list[ResolvedOp], questions: list[ResolvedOp],
           as_of: str, prefix: str = "") -> tuple[list[ResolvedOp], list[ResolvedOp],
                                                  Counter[str]]:
    """Returns (ops, questions, usage) after asking about near look-alike pairs. The call
    opens with the run's ``prefix`` (shared with its propose calls), its task after it."""
    usage: Counter[str] = Counter()
    now = parse_when(as_of)
    near: list[tuple[ResolvedOp, tuple[str, str]]] = []
    for q in questions:
        pair = _pair(q)
        if pair is None or q.pass_ != "merge":
            continue
        date = next((o.fields.get("date") for o in ops if o.key == pair[0]
                     and o.fields.get("date")), None)
        when = parse_when(date or "")
        if now is None or when is None or abs(when - now) <= timedelta(days=NEAR_DAYS):
            near.append((q, pair))
    if not near:
        return ops, questions, usage
    described = []
    for n, (_q, (a, b)) in enumerate(near, 1):
        fa = _fields(ops, a)
        fb = _fields(ops, b)
        described.append({"pair": n, "a": {"key": a, **fa}, "b": {"key": b, **fb}})
    lines = [f"{d['pair']}. A {d['a']} | B {d['b']}" for d in described]
    request = ModelRequest(purpose="merge", prefix=prefix,
                           body="TASK MERGE\n" + INSTRUCTIONS + "\n" + "\n".join(lines) + "\n",
                           schema=strict_schema(SettleAnswer.model_json_schema()),
                           payload={"pairs": described}, max_output_tokens=256)
    try:
        answer, response = call_validated(provider, request, SettleAnswer.model_validate)
    except ModelError:
        usage["calls"] = 2
        return ops, questions, usage
    usage = response.usage()
    same = {d.pair for d in answer.decisions if d.same}
    remap: dict[str, str] = {}
    dropped = set()
    for n, (q, (a, b)) in enumerate(near, 1):
        if n in same and b not in remap and a not in remap:
            remap[b] = a
            dropped.add(q.key)
    if not remap:
        return ops, questions, usage
    new_ops = []
    for op in ops:
        if op.kind == "event" and op.key in remap:
            op = ResolvedOp(**{**op.__dict__, "key": remap[op.key], "pass_": "merge"})
        new_ops.append(op)
    return new_ops, [q for q in questions if q.key not in dropped], usage


def _fields(ops: list[ResolvedOp], key: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for op in sorted((o for o in ops if o.kind == "event" and o.key == key),
                     key=lambda o: o.said_at):
        out.update(op.fields)
    return out
