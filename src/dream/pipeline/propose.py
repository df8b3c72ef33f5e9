"""Propose (model, parallel, packed): bundles plus the state they touch in, typed keyed diffs out.

The prompt (the run prefix every call of a run opens with, calls packed up to
``pack_tokens``, what a call shows of an item) is ``dream.pipeline.prompt``; mapping an
answer's handles back to rows and evidence, dropping and counting an unusable op, is
``dream.pipeline.resolve``. This module sends the calls and gathers their ops.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from dream.errors import ModelError
from dream.kinds.diff import Diff, diff_schema
from dream.models.base import ModelRequest, Provider, call_validated
from dream.pipeline.bundle import Bundle
from dream.pipeline.prompt import PACK_TOKENS, Call, RunPrefix, pack_calls, run_prefix
from dream.pipeline.resolve import ResolvedOp, resolve_op
from dream.pipeline.state import State


@dataclass
class ProposeResult:
    ops: list[ResolvedOp] = field(default_factory=list)
    usage: Counter = field(default_factory=Counter)   # calls and tokens (ModelResponse.usage)
    dropped: Counter = field(default_factory=Counter)
    failed_bundles: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


WHOLE_RUN = 10 ** 12     # a token budget no run reaches


def reads_whole_run(provider: Provider) -> bool:
    """A provider that is code, not a model (``rules``), reads every bundle of a run in one
    call: no prompt to bound, and a rule, command or failure seen in two bundles (two
    sessions, or two chunks of one long session) is then one finding with its counts."""
    return bool(getattr(provider, "reads_whole_run", False))


def run_calls(provider: Provider, calls: list[Call], prefix: str, payload_of, parallel: int,
              on_call=None):
    """Send each propose call (``parallel`` at a time); yield ``(call, diff, response,
    error)`` in call order, ``error`` a ModelError after the second invalid answer."""
    def one(call: Call):
        request = ModelRequest(purpose="propose", prefix=prefix, body=call.body,
                               schema=diff_schema(), payload=payload_of(call))
        try:
            diff, response = call_validated(provider, request, Diff.model_validate)
        except ModelError as exc:
            return call, None, None, exc
        return call, diff, response, None

    workers = max(1, min(parallel, len(calls)))
    if workers == 1:
        for call in calls:
            out = one(call)
            if on_call:
                on_call(call, len(calls))
            yield out
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dream-propose") as pool:
        for out in pool.map(one, calls):
            if on_call:
                on_call(out[0], len(calls))
            yield out


def propose(provider: Provider, state: State, bundles: list[Bundle],
            pack_tokens: int = PACK_TOKENS, parallel: int = 4, on_call=None,
            prefix: RunPrefix | None = None) -> ProposeResult:
    prefix = prefix or run_prefix(state, bundles)
    rows, rpayload = prefix.rows, prefix.payload()
    calls = pack_calls(bundles, WHOLE_RUN if reads_whole_run(provider) else pack_tokens)
    result = ProposeResult()

    def payload_of(call: Call) -> dict[str, Any]:
        return {"rows": rpayload, "bundles": call.payload_bundles, "as_of": prefix.as_of,
                "scope": state.scope.root}

    for call, diff, response, error in run_calls(provider, calls, prefix.text, payload_of,
                                                 parallel, on_call):
        if error is not None:
            result.failed_bundles += [b.id for b in call.bundles]
            result.errors.append(error.message)
            result.usage["calls"] += 2
            continue
        result.usage.update(response.usage())
        for op in diff.ops:
            resolved = resolve_op(op, call, rows, state, result.dropped)
            if resolved is not None:
                resolved.call = call.index
                result.ops.append(resolved)
    return result
