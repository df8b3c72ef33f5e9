"""One run, one set of calls across its scopes (providers billed per call).

A run over several scopes (a project and the personal streams, or ``--project`` given
twice) sends a billed model ONE prefix and one set of propose calls for all of them: the
instructions, then the rows each scope's bundles touch under the scope's heading
(``SCOPE projects/<name>:``, ``SCOPE user:``), then calls packed up to ``pack_tokens``
with each bundle under its scope's heading. Row handles (``R<n>``) are unique in the run,
item handles (``E<n>``) in a call.

**Evidence decides where a memory goes.** An op is routed to the scope of the items it
cites; an op citing items of two scopes, or naming a row (its target, or a question's
``about``) of another scope than its items, is dropped and counted (``cross_scope``). So
nothing cited by one project's op and no row of another scope is ever written into the
project's store. The sweep does the same in one call (``sweep.sweep_parts``).

**Nor what another scope said.** Citations alone cannot stop a model from writing one
project's content into an op that cites the other's items. So an op is also dropped
(``cross_scope``) when its values carry a *specific* token — a name (a capitalised word
not opening a sentence) or an identifier (a token with a digit, or ``/ . _ @ :`` inside:
a path, a host, a version, a command) — that the call showed in another scope's items or
rows and nowhere in its own scope's. Ordinary words pass: they say nothing that belongs
to one project.

With one scope the prompts are exactly a single scope's (no headings).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from dream.kinds.diff import Op
from dream.models.base import Provider
from dream.pipeline.leaks import carries_other_scope, words
from dream.pipeline.prompt import (
    INSTRUCTIONS,
    Call,
    RunPrefix,
    pack_calls,
    row_handles,
    rows_payload,
    run_prefix,
    state_lines,
)
from dream.pipeline.propose import ProposeResult, run_calls
from dream.pipeline.resolve import named_rows, resolve_op
from dream.pipeline.scopework import ScopeWork, sweep_prefix, take_sweep
from dream.pipeline.sweep import SweepResult, judged_by_calls, sweep_part, sweep_parts


def joint_prefix(works: list[ScopeWork]) -> RunPrefix:
    """The prefix every call of the run opens with: instructions, then each scope's
    touched rows under its heading (one scope: exactly ``run_prefix``)."""
    live = [w for w in works if w.bundles]
    if len(live) == 1:
        w = live[0]
        prefix = run_prefix(w.state, w.bundles)
        prefix.scope_of = {h: w.index for h in prefix.rows}
        return prefix
    rows: dict[str, Any] = {}
    scope_of: dict[str, int] = {}
    lines = [INSTRUCTIONS, ""]
    for w in live:
        own = row_handles(w.state.touched(w.bundles), start=len(rows) + 1)
        lines += state_lines(own, w.state.as_of(), f"{w.heading} ")
        rows.update(own)
        scope_of.update(dict.fromkeys(own, w.index))
    as_of = max((w.state.as_of() for w in live), default="")
    return RunPrefix("\n".join(lines) + "\n", rows, as_of, scope_of)


def propose_joint(provider: Provider, works: list[ScopeWork], prefix: RunPrefix,
                  pack_tokens: int, parallel: int = 4, on_call=None) -> ProposeResult:
    """Propose for every scope in one set of calls; each routed op joins its scope's
    ``ops``; the result carries the run's usage, drops and errors."""
    live = [w for w in works if w.bundles]
    multi = len(live) > 1
    owner: dict[str, ScopeWork] = {}
    bundles = []
    for w in live:
        for b in w.bundles:
            if multi:           # bundle ids are per scope: number them across the run
                b.id = f"B{len(bundles) + 1}"
            owner[b.id] = w
            bundles.append(b)
    headings = {b.id: owner[b.id].heading for b in bundles} if multi else None
    item_scope = {it.id: owner[b.id].index for b in bundles for it in b.items}
    calls = pack_calls(bundles, pack_tokens, headings)
    rpayload = prefix.payload()

    def payload_of(call: Call) -> dict[str, Any]:
        out: dict[str, Any] = {"rows": rpayload, "bundles": call.payload_bundles,
                               "as_of": prefix.as_of, "scope": live[0].scope.root}
        if multi:     # per scope, for code that answers like a model would (benchmarks)
            out["parts"] = [{
                "scope": w.scope.root, "rows": rows_payload(prefix.in_scope(w.index)),
                "bundles": [p for b, p in zip(call.bundles, call.payload_bundles, strict=True)
                            if owner[b.id] is w],
                "as_of": w.state.as_of()} for w in live
                if any(owner[b.id] is w for b in call.bundles)]
        return out

    result = ProposeResult()
    for call, diff, response, error in run_calls(provider, calls, prefix.text, payload_of,
                                                 parallel, on_call):
        if error is not None:
            for b in call.bundles:
                owner[b.id].fail_bundles({b.id})
            result.errors.append(error.message)
            result.usage["calls"] += 2
            continue
        result.usage.update(response.usage())
        material = call_material(call, prefix, item_scope) if multi else {}
        for op in diff.ops:
            work = route(op, call, prefix, item_scope, works, result.dropped)
            if work is None:
                continue
            if multi and carries_other_scope(op, work.index, material):
                result.dropped["cross_scope"] += 1
                continue
            resolved = resolve_op(op, call, prefix.in_scope(work.index), work.state,
                                  result.dropped)
            if resolved is not None:
                resolved.call = call.index
                work.ops.append(resolved)
    return result


def route(op: Op, call: Call, prefix: RunPrefix, item_scope: dict[str, int],
          works: list[ScopeWork], dropped: Counter) -> ScopeWork | None:
    """The scope an op belongs to: that of the items it cites. None (counted as
    ``cross_scope``) when it cites items of two scopes or names another scope's row."""
    cited = {item_scope.get(call.handles[h.strip()].id) for h in op.evidence
             if h.strip() in call.handles}
    named = {prefix.scope_of[h] for h in named_rows(op) if h in prefix.scope_of}
    scopes = (cited | named) - {None}
    if len(scopes) > 1:
        dropped["cross_scope"] += 1
        return None
    # no usable evidence: resolve_op drops it and says why, in whichever scope
    index = next(iter(scopes), works[0].index)
    return next(w for w in works if w.index == index)


def call_material(call: Call, prefix: RunPrefix, item_scope: dict[str, int]
                  ) -> dict[int, set[str]]:
    """Every token each scope's items and rows showed in this call, by scope."""
    out: dict[int, set[str]] = {}
    for item in call.handles.values():
        out.setdefault(item_scope[item.id], set()).update(
            words(f"{item.author or ''} {item.text}"))
    for handle, rec in prefix.rows.items():
        out.setdefault(prefix.scope_of.get(handle, 0), set()).update(
            words(" ".join([rec.key, *rec.values().values()])))
    return out


def sweep_joint(provider: Provider, works: list[ScopeWork], prefix: RunPrefix,
                run_id: str) -> SweepResult:
    """At most ONE sweep call for the run: each scope's changed rows that a propose call
    could not judge beside their partners (``sweep.judged_by_calls``), under its heading
    when several scopes have some."""
    parts, owners = [], []
    n = len(prefix.rows)
    for w in works:
        if not w.applied.changed:
            continue
        in_prefix = sweep_prefix(prefix, w)
        part = sweep_part(w.state, list(w.applied.changed.values()), w.before, in_prefix,
                          n, judged_by_calls(w.ops, set(in_prefix)))
        if part is None:
            w.swept = "nothing to sweep"
            continue
        n = max([n, *(int(h[1:]) for h in part.rows)])
        part.index = w.index
        parts.append(part)
        owners.append(w)
    headings = [w.heading for w in owners] if len(owners) > 1 else None
    result = sweep_parts(provider, parts, prefix, headings)
    for w, part in zip(owners, parts, strict=True):
        take_sweep(w, result, part.ops, run_id)
    return result
