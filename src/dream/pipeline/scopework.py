"""One scope's share of a dream run, in stages the run drives (``pipeline/run.py``).

A run first prepares every scope (``prepare``: bundles, and the ops of typed corrections
and answers), then proposes (per scope for code providers, in one set of calls across
the scopes for billed ones, ``pipeline/joint.py``), then per scope merges and applies
(``settle_apply``), sweeps and renders (``render_files``). Everything here works on the
scope's in-memory state; the run writes one commit per store from the files.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dream.items import Item
from dream.models.base import Provider
from dream.pipeline.answers import ANSWER_SOURCE, answer_ops
from dream.pipeline.apply import ApplyResult, apply_writes
from dream.pipeline.bundle import Bundle, make_bundles
from dream.pipeline.corrections import CORRECT_SOURCE, correction_ops
from dream.pipeline.merge import merge
from dream.pipeline.prompt import RunPrefix
from dream.pipeline.render import render_brief
from dream.pipeline.resolve import ResolvedOp
from dream.pipeline.settle import settle
from dream.pipeline.state import Scope, State
from dream.pipeline.sweep import SweepResult

TYPED_SOURCES = (CORRECT_SOURCE, ANSWER_SOURCE)   # applied by code, never shown to a model


@dataclass
class ScopeWork:
    """A scope of the run with its items, bundles and what became of them."""

    index: int                      # the scope's position in the run
    scope: Scope
    state: State
    items: list[Item]
    bundles: list[Bundle] = field(default_factory=list)
    ops: list[ResolvedOp] = field(default_factory=list)
    totals: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    failed_items: set[str] = field(default_factory=set)
    questions: list[ResolvedOp] = field(default_factory=list)
    before: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    applied: ApplyResult = field(default_factory=ApplyResult)
    swept: str = "nothing changed"

    @property
    def heading(self) -> str:
        """The line a prompt puts above this scope's rows and items in a shared call."""
        return f"SCOPE {self.scope.root}:"

    def fail_bundles(self, ids: set[str]) -> None:
        for b in self.bundles:
            if b.id in ids:
                self.failed_items |= {i.id for i in b.items}


def prepare(index: int, scope: Scope, state: State, items: list[Item]) -> ScopeWork:
    """Bundle the scope's ordinary items; typed corrections and answers become ops now."""
    work = ScopeWork(index, scope, state, items)
    corrections = [i for i in items if i.source == CORRECT_SOURCE]
    answers = [i for i in items if i.source == ANSWER_SOURCE]
    work.bundles = make_bundles([i for i in items if i.source not in TYPED_SOURCES])
    work.totals["bundles"] += len(work.bundles)
    work.ops = correction_ops(corrections, state, work.dropped) + \
        answer_ops(answers, state, work.dropped)
    return work


def settle_apply(work: ScopeWork, provider: Provider | None, prefix: str, run_id: str) -> None:
    """Merge the scope's ops (one merge call only for near look-alikes) and apply them."""
    state = work.state
    writes, questions = merge(work.ops)
    if questions and provider is not None:
        settled, questions, usage = settle(provider, work.ops, questions, state.as_of(),
                                           prefix)
        work.totals.update(usage)
        if settled is not work.ops:
            work.ops = settled
            writes, _again = merge(work.ops)
    work.before = {(w.kind, w.key): state.records[(w.kind, w.key)].values()
                   for w in writes if (w.kind, w.key) in state.records}
    work.applied = apply_writes(state, writes, run_id)
    if questions:
        qwrites, _ = merge(questions)
        apply_writes(state, [w for w in qwrites if state.get(w.kind, w.key) is None],
                     run_id, work.applied)
    work.questions = questions


def take_sweep(work: ScopeWork, swept: SweepResult, ops: list[ResolvedOp], run_id: str
               ) -> None:
    """Apply a sweep's ops for this scope and note how its sweep went."""
    work.swept = "nothing to sweep" if swept.skipped else "called"
    if ops:
        swrites, _ = merge(ops)
        apply_writes(work.state, swrites, run_id, work.applied)


def sweep_prefix(prefix: RunPrefix | None, work: ScopeWork) -> dict[tuple[str, str], str]:
    """The rows of this scope the run's prefix shows, by (kind, key)."""
    if prefix is None:
        return {}
    return {(r.kind, r.key): h for h, r in prefix.in_scope(work.index).items()}


def render_files(work: ScopeWork, brief_tokens: int) -> dict[str, bytes | None]:
    """The files this scope's run writes: changed records, hand edits with their
    provenance, and the brief when it changed."""
    state, applied = work.state, work.applied
    files: dict[str, bytes | None] = {}
    root = work.scope.root.rstrip("/") + "/"
    for kind_key in sorted(state.adopted):       # hand edits, now with their provenance
        rec = state.records[kind_key]
        applied.changed.setdefault(kind_key, rec)
        applied.passes.add("edit")
        applied.evidence.update(e for fv in rec.fields.values() if fv.pass_ == "edit"
                                for e in fv.evidence)
    for (_kind, _key), rec in sorted(applied.changed.items()):
        files[root + rec.path] = rec.dumps().encode("utf-8")
    brief = render_brief(state, brief_tokens).encode("utf-8")
    old_brief = work.scope.store.repo.read_at(state.commit, root + "brief.md") \
        if state.commit else None
    if brief != old_brief and state.records:
        files[root + "brief.md"] = brief
    return files


def summary(work: ScopeWork) -> dict[str, Any]:
    return {"items": len(work.items), "bundles": len(work.bundles), "ops": len(work.ops),
            "changed": len(work.applied.changed), "questions": len(work.questions),
            "sweep": work.swept}
