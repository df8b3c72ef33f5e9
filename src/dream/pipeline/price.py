"""The dry run (``dream run --dry-run``): bundles, calls, tokens and cost estimated from
the pending items; nothing is called and nothing is written but a ``priced`` run row."""

from __future__ import annotations

import sqlite3
import time
from collections import Counter

from dream.db import utcnow
from dream.pipeline import spool
from dream.pipeline.bundle import make_bundles
from dream.pipeline.propose import pack_calls, run_prefix
from dream.pipeline.run import RunOptions, cost_of, insert_run, new_run_id, run_row, update_run
from dream.pipeline.scopework import TYPED_SOURCES
from dream.pipeline.state import Scope, load_state
from dream.runs import Run

OUTPUT_TOKENS_PER_BUNDLE = 150     # dry-run estimate of answer size per bundle
SWEEP_BODY_TOKENS = 400            # dry-run estimate of a sweep's diffs and rows
CACHE_MIN_TOKENS = 1024            # providers cache a prefix from about this length


def _pending_chunks(conn: sqlite3.Connection, scopes: list[Scope], size: int,
                    redo: bool = False):
    """Every pending item of every scope, in the chunks successive runs would claim."""
    for scope in scopes:
        after = 0
        while True:
            chunk = spool.peek(conn, scope.project_key, size, after, redo)
            if not chunk:
                break
            after = chunk[-1].seq
            items = [i for i in chunk if i.source not in TYPED_SOURCES]
            if items:
                yield scope, items


def price_run(conn: sqlite3.Connection, scopes: list[Scope], opts: RunOptions,
              project_key: str | None) -> Run:
    """Estimate bundles, calls, tokens and cost; call nothing; record a 'priced' run."""
    from dream import tokens

    started = time.perf_counter()
    run_id = new_run_id()
    totals: Counter = Counter()
    n_items = 0
    for scope, items in _pending_chunks(conn, scopes, opts.max_items, opts.redo):
        n_items += len(items)
        state = load_state(scope, scope.store.repo.head())
        bundles = make_bundles(items)
        prefix_tokens = tokens.count(run_prefix(state, bundles).text)
        cached = prefix_tokens if prefix_tokens >= CACHE_MIN_TOKENS else 0
        calls = pack_calls(bundles, opts.pack_tokens)
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
        totals["bundles"] += len(bundles)
    cost, note = cost_of(opts.model, opts.pricing, totals["input_tokens"],
                         totals["output_tokens"], totals["cached_tokens"])
    insert_run(conn, run_id, opts.mode, "priced", project_key, opts.model)
    details = {"estimate": True, "output_tokens_per_bundle": OUTPUT_TOKENS_PER_BUNDLE}
    if note:
        details["cost_note"] = note
    update_run(conn, run_id, finished_at=utcnow(), items=n_items, bundles=totals["bundles"],
               calls=totals["calls"], input_tokens=totals["input_tokens"],
               output_tokens=totals["output_tokens"], cached_tokens=totals["cached_tokens"],
               cost_usd=cost, duration_s=time.perf_counter() - started, details=details)
    return run_row(conn, run_id)
