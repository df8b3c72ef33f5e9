"""The dry run (``dream run --dry-run``): bundles, calls, tokens and cost estimated from
the pending items; nothing is called and nothing is written but a ``priced`` run row."""

from __future__ import annotations

import sqlite3
import time
from collections import Counter

from dream.db import utcnow
from dream.models.base import CODE_PROVIDERS
from dream.pipeline import spool
from dream.pipeline.bundle import make_bundles
from dream.pipeline.joint import joint_prefix
from dream.pipeline.prompt import pack_calls
from dream.pipeline.run import RunOptions, cost_of, insert_run, new_run_id, run_row, update_run
from dream.pipeline.scopework import TYPED_SOURCES, ScopeWork
from dream.pipeline.state import Scope, load_state
from dream.runs import Run

OUTPUT_TOKENS_PER_BUNDLE = 150     # dry-run estimate of answer size per bundle
SWEEP_BODY_TOKENS = 400            # dry-run estimate of a sweep's diffs and rows
CACHE_MIN_TOKENS = 1024            # providers cache a prefix from about this length


def _pending_runs(conn: sqlite3.Connection, scopes: list[Scope], size: int,
                  redo: bool = False):
    """Every pending item of every scope, grouped as successive runs would claim them: a
    run takes at most ``size`` items of its scopes together, in scope order."""
    queues: list[tuple[Scope, list]] = []
    for scope in scopes:
        pending, after = [], 0
        while True:
            chunk = spool.peek(conn, scope.project_key, size, after, redo)
            if not chunk:
                break
            after = chunk[-1].seq
            pending += chunk
        queues.append((scope, pending))
    while any(pending for _scope, pending in queues):
        room, run = size, []
        for scope, pending in queues:
            taken, pending[:] = pending[:room], pending[room:]
            room -= len(taken)
            items = [i for i in taken if i.source not in TYPED_SOURCES]
            if items:
                run.append((scope, items))
        if run:
            yield run


def price_run(conn: sqlite3.Connection, scopes: list[Scope], opts: RunOptions,
              project_key: str | None) -> Run:
    """Estimate bundles, calls, tokens and cost; call nothing; record a 'priced' run. The
    calls are those a provider billed per call is sent: each run's scopes share one prefix
    and one set of propose calls (``pipeline/joint.py``), and at most one sweep."""
    from dream import tokens

    started = time.perf_counter()
    run_id = new_run_id()
    totals: Counter = Counter()
    n_items = 0
    for run in _pending_runs(conn, scopes, opts.max_items, opts.redo):
        works = []
        for scope, items in run:
            n_items += len(items)
            work = ScopeWork(len(works), scope, load_state(scope, scope.store.repo.head()),
                             items, bundles=make_bundles(items))
            totals["bundles"] += len(work.bundles)
            works.append(work)
        if not any(w.bundles for w in works):
            continue
        prefix = joint_prefix(works)
        multi = len([w for w in works if w.bundles]) > 1
        bundles = [b for w in works for b in w.bundles]
        if multi:
            for n, b in enumerate(bundles, 1):
                b.id = f"B{n}"
        headings = {b.id: w.heading for w in works for b in w.bundles} if multi else None
        prefix_tokens = tokens.count(prefix.text)
        cached = prefix_tokens if prefix_tokens >= CACHE_MIN_TOKENS else 0
        calls = pack_calls(bundles, opts.pack_tokens, headings)
        for n, call in enumerate(calls):
            totals["input_tokens"] += prefix_tokens + tokens.count(call.body)
            if n:
                totals["cached_tokens"] += cached
            totals["output_tokens"] += OUTPUT_TOKENS_PER_BUNDLE * len(call.bundles)
        if opts.sweep and calls:     # at most: the sweep is called only when rows could clash
            totals["calls"] += 1
            totals["input_tokens"] += prefix_tokens + SWEEP_BODY_TOKENS
            totals["cached_tokens"] += cached
            totals["output_tokens"] += 200
        totals["calls"] += len(calls)
    cost, note = cost_of(opts.model, opts.pricing, totals["input_tokens"],
                         totals["output_tokens"], totals["cached_tokens"])
    insert_run(conn, run_id, opts.mode, "priced", project_key, opts.model)
    details = {"estimate": True, "output_tokens_per_bundle": OUTPUT_TOKENS_PER_BUNDLE}
    if (opts.model or "rules").partition(":")[0] in CODE_PROVIDERS:
        # the calls and tokens are what a hosted model would be sent: 'rules' itself calls
        # no model (its run counts one call a scope and no tokens), which the line said
        # as "2 calls, ~1882 input tokens ... with rules"
        details["code_provider"] = True
    if note:
        details["cost_note"] = note
    update_run(conn, run_id, finished_at=utcnow(), items=n_items, bundles=totals["bundles"],
               calls=totals["calls"], input_tokens=totals["input_tokens"],
               output_tokens=totals["output_tokens"], cached_tokens=totals["cached_tokens"],
               cost_usd=cost, duration_s=time.perf_counter() - started, details=details)
    return run_row(conn, run_id)
