"""The dream run: one watermark-driven program over a project's spool.

``run_dream`` claims the gated items of the current project (and personal items, which
belong to no project), then per scope: bundle -> propose -> merge -> apply -> sweep ->
render, and writes ONE commit per store on the run branch ``dream/run/<id>``. With
``apply='auto'`` the branch is promoted (the store's branch fast-forwards to it); with
``'review'`` it is left for a person. The run row in the database records every figure.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from dream import index, runs
from dream.db import utcnow
from dream.errors import BadInput, DreamError, ModelError
from dream.items import Item
from dream.models import pricing as price_table
from dream.models.base import Provider, get_provider, known_provider
from dream.pipeline import commit as git_commit
from dream.pipeline import spool
from dream.pipeline.answers import ANSWER_SOURCE, answer_ops
from dream.pipeline.apply import apply_writes
from dream.pipeline.bundle import make_bundles
from dream.pipeline.corrections import CORRECT_SOURCE, correction_ops
from dream.pipeline.merge import merge
from dream.pipeline.propose import PACK_TOKENS, pack_calls, propose, run_prefix
from dream.pipeline.render import render_brief
from dream.pipeline.settle import settle
from dream.pipeline.state import Scope, State, load_state
from dream.pipeline.sweep import sweep
from dream.runs import Run
from dream.store.lock import write_locks
from dream.store.store import Store

MODES = ("nightly", "ondemand", "realtime")
STATUSES = ("running", "ok", "partial", "failed", "priced")
RUN_FIELDS = ("id", "mode", "status", "items", "bundles", "calls", "input_tokens",
              "output_tokens", "cached_tokens", "cost_usd", "commit", "branch")
OUTPUT_TOKENS_PER_BUNDLE = 150     # dry-run estimate of answer size per bundle
SWEEP_BODY_TOKENS = 400            # dry-run estimate of a sweep's diffs and rows
CACHE_MIN_TOKENS = 1024            # providers cache a prefix from about this length


TYPED_SOURCES = (CORRECT_SOURCE, ANSWER_SOURCE)   # applied by code, never shown to a model


@dataclass
class RunOptions:
    mode: str = "ondemand"
    model: str = "rules"
    model_settings: dict[str, Any] = field(default_factory=dict)
    pricing: dict[str, Any] = field(default_factory=dict)
    apply: str = "auto"
    rounds: int = 1
    redo: bool = False
    retry: str | None = None
    dry_run: bool = False
    sweep: bool = True
    brief_tokens: int = 2000
    pack_tokens: int = PACK_TOKENS
    parallel: int = 4
    max_items: int = 5000
    only_ids: list[str] | None = None
    progress: Callable[[str, int, int], None] | None = None


def new_run_id() -> str:
    return f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(3)}"


# -- run rows: owned by dream.runs -------------------------------------------------------------
def insert_run(conn: sqlite3.Connection, run_id: str, mode: str, status: str,
               project_key: str | None, model: str) -> None:
    runs.insert(conn, run_id, mode, status, project_key, model)


update_run = runs.update


def run_row(conn: sqlite3.Connection, run_id: str) -> Run:
    return runs.get(conn, run_id, "dream")


# -- locks -----------------------------------------------------------------------------------
def _acquire(scopes: list[Scope], notes_path, run_id: str):
    from dream.notes.dreaming import acquire_lock, release_lock

    held = []
    try:
        for scope in sorted(scopes, key=lambda s: s.name):
            if scope.name in {h.name.split(".dream.lock.", 1)[-1] for h in held}:
                continue
            info = {"run_id": run_id}
            if scope.project_key:
                info["project_key"] = scope.project_key
            held.append(acquire_lock(notes_path, scope.name, owner="run", info=info))
    except BaseException:
        for path in held:
            release_lock(path)
        raise
    return held


def _release(held) -> None:
    from dream.notes.dreaming import release_lock

    for path in held:
        release_lock(path)


# -- the run ---------------------------------------------------------------------------------
def cost_of(spec: str, pricing: dict, input_tokens: int, output_tokens: int,
            cached: int, cache_write: int = 0) -> tuple[float, str | None]:
    try:
        return price_table.estimate(spec, input_tokens, output_tokens, cached, pricing,
                                    cache_write_tokens=cache_write), None
    except DreamError as exc:
        return 0.0, exc.one_line()


def run_dream(conn: sqlite3.Connection, notes_path, scopes: list[Scope],
              opts: RunOptions, project_key: str | None) -> list[Run]:
    """Run up to ``opts.rounds`` dream runs (stopping when the spool drains); return the
    run rows."""
    if opts.mode not in MODES:
        raise BadInput(f"unknown mode '{opts.mode}'", f"use one of {', '.join(MODES)}")
    if opts.apply not in ("auto", "review"):
        raise BadInput(f"unknown --apply '{opts.apply}'", "use auto or review")
    if opts.dry_run:
        known_provider(opts.model)          # a typo in --model is named, not priced at $0
        return [price_run(conn, scopes, opts, project_key)]
    provider = None if opts.only_ids else _provider(opts)    # a bad --model fails here
    spool.release_stale_claims(conn)
    if opts.retry:
        prior = run_row(conn, opts.retry)
        if prior.status not in ("failed", "partial", "running"):
            raise BadInput(f"run {prior.id} is {prior.status}; only a failed, partial or"
                           " interrupted run can be retried", "start a new run with 'dream run'")
        held = _acquire(scopes, notes_path, "retry")   # refuses while that run still works
        _release(held)
        spool.requeue(conn, prior.id)
        if prior.status == "running":
            update_run(conn, prior.id, status="failed", finished_at=utcnow(),
                       error="interrupted; retried by a later run")
    if opts.redo:
        for scope in scopes:
            spool.redo(conn, scope.project_key)
    rows = []
    for _round in range(max(1, opts.rounds)):
        row = one_run(conn, notes_path, scopes, opts, project_key, provider)
        rows.append(row)
        if row.status != "ok" or row.items == 0:
            break
        if not any(spool.pending_count(conn, s.project_key) for s in scopes):
            break
    _record_remaining(conn, rows[-1], scopes)
    return rows


def _record_remaining(conn: sqlite3.Connection, row: Run, scopes: list[Scope]) -> None:
    """Write down on the last run how many items of its scopes still wait for a run (a run
    claims at most ``max_items``; another run or ``--rounds`` takes the rest)."""
    keys = list(dict.fromkeys(s.project_key for s in scopes))
    row.details.remaining = sum(spool.pending_count(conn, key) for key in keys)
    update_run(conn, row.id, details=row.details)


def _provider(opts: RunOptions) -> Provider:
    return get_provider(opts.model, opts.model_settings)


def one_run(conn: sqlite3.Connection, notes_path, scopes: list[Scope], opts: RunOptions,
            project_key: str | None, provider: Provider | None) -> Run:
    run_id = new_run_id()
    started = time.perf_counter()
    progress = opts.progress or (lambda stage, done, total: None)
    held = _acquire(scopes, notes_path, run_id)
    _close_dead_runs(conn, scopes)
    insert_run(conn, run_id, opts.mode, "running", project_key,
               "correct" if opts.only_ids else opts.model)
    totals: Counter = Counter()
    details: dict[str, Any] = {"dropped": Counter(), "apply": Counter(), "scopes": {},
                               "errors": []}
    failed_items: set[str] = set()
    all_items = 0
    commits: dict[str, str] = {}
    status = "ok"
    try:
        per_store: dict[str, dict[str, Any]] = {}
        for scope in scopes:
            # --max-items bounds the whole run, not each scope: later scopes get what is left
            room = opts.max_items - all_items
            if room <= 0 and not opts.only_ids:
                break
            items = spool.claim(conn, run_id, scope.project_key, room) \
                if not opts.only_ids else _claim_ids(conn, run_id, opts.only_ids)
            if not items:
                continue
            all_items += len(items)
            store_entry = per_store.setdefault(scope.store.id, {
                "store": scope.store,
                "base": _baseline(scope.store, run_id,
                                  [s.root for s in scopes if s.store.id == scope.store.id]),
                "files": {}, "evidence": set(), "passes": set(), "scopes": []})
            state = load_state(scope, store_entry["base"])
            outcome = dream_scope(scope, state, items, provider, opts, run_id, progress)
            totals.update(outcome["totals"])
            details["dropped"].update(outcome["dropped"])
            details["apply"].update(outcome["apply"].counts)
            details["errors"] += outcome["errors"]
            details["scopes"][scope.root] = outcome["summary"]
            failed_items |= outcome["failed_items"]
            store_entry["files"].update(outcome["files"])
            store_entry["evidence"] |= outcome["apply"].evidence
            store_entry["passes"] |= outcome["apply"].passes
            store_entry["scopes"].append(scope)
        progress("commit", 0, len(per_store))
        for entry in per_store.values():
            sha = write_run_commit(entry, run_id, opts, project_key)
            if sha:
                commits[entry["store"].id] = sha
        progress("commit", len(per_store), len(per_store))
        if any(e.startswith("sweep: ") for e in details["errors"]):
            status = "partial"      # the sweep's answer was invalid twice: nothing of it applied
        if failed_items:
            status = "partial"
            spool.unclaim_ids(conn, run_id, failed_items)
        spool.finish(conn, run_id, "+".join(sorted(s.name for s in scopes)))
        promoted = opts.apply == "auto"
        # promotion is the store write: under the write lock, and only when the store is
        # still at the commit the run built on (git_commit.promote checks it)
        with write_locks([e["store"].path for e in per_store.values()
                          if commits.get(e["store"].id) and promoted], "dream run"):
            for entry in per_store.values():
                sha = commits.get(entry["store"].id)
                if sha and promoted:
                    if not git_commit.promote(entry["store"].repo, sha, entry["base"]):
                        status = "partial"
                        details["errors"].append(
                            f"store {entry['store'].name} moved during the run; the run "
                            "branch was left for review")
                        promoted = False
                    else:
                        sync_index(conn, entry["store"])
    except ModelError as exc:
        status = "failed"
        details["errors"].append(exc.message)
        spool.unclaim(conn, run_id)
    except BaseException as exc:
        spool.unclaim(conn, run_id)
        update_run(conn, run_id, status="failed", finished_at=utcnow(),
                   duration_s=time.perf_counter() - started,
                   error=getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}")
        raise
    finally:
        _release(held)
    cost, cost_note = cost_of(opts.model, opts.pricing, totals["input_tokens"],
                              totals["output_tokens"], totals["cached_tokens"],
                              totals["cache_write_tokens"])
    details["cache_write_tokens"] = totals["cache_write_tokens"]
    if cost_note:
        details["cost_note"] = cost_note
    first_commit = next(iter(commits.values()), None)
    details["dropped"] = dict(sorted(details["dropped"].items()))
    details["apply"] = dict(sorted(details["apply"].items()))
    details["commits"] = commits
    details["apply_mode"] = opts.apply
    update_run(
        conn, run_id, status=status, finished_at=utcnow(), items=all_items,
        bundles=totals["bundles"], calls=totals["calls"],
        input_tokens=totals["input_tokens"], output_tokens=totals["output_tokens"],
        cached_tokens=totals["cached_tokens"], cost_usd=cost,
        duration_s=time.perf_counter() - started, commit_sha=first_commit,
        branch=git_commit.run_branch(run_id) if first_commit else None,
        error="; ".join(details["errors"]) or None, details=details,
    )
    return run_row(conn, run_id)


def _close_dead_runs(conn: sqlite3.Connection, scopes: list[Scope]) -> None:
    """A run still 'running' whose claims all lie in scopes whose locks we now hold cannot
    be alive (it would hold a lock): it was killed. Mark it failed and free its items."""
    keys = [s.project_key for s in scopes if s.project_key]
    personal = any(s.project_key is None for s in scopes)
    inside = "(" + " OR ".join(
        ([f"project_key IN ({','.join('?' * len(keys))})"] if keys else [])
        + (["project_key IS NULL"] if personal else [])) + ")"
    for run_id in [r.id for r in runs.running(conn, "dream")]:
        outside = conn.execute(
            f"SELECT count(*) FROM items WHERE claimed_by = ? AND processed_by IS NULL"
            f" AND NOT {inside}", (run_id, *keys)).fetchone()[0]
        if outside == 0:
            spool.unclaim(conn, run_id)
            update_run(conn, run_id, status="failed", finished_at=utcnow(),
                       error="interrupted: the process ended without finishing the run")


def _claim_ids(conn: sqlite3.Connection, run_id: str, ids: list[str]) -> list[Item]:
    marks = ",".join("?" * len(ids))
    conn.execute(f"UPDATE items SET claimed_by = ? WHERE id IN ({marks})"
                 " AND processed_by IS NULL", (run_id, *ids))
    rows = conn.execute("SELECT * FROM items WHERE claimed_by = ? AND processed_by IS NULL",
                        (run_id,)).fetchall()
    return [Item.from_row(r) for r in rows]


def _baseline(store: Store, run_id: str, roots: list[str]) -> str | None:
    """Commit the hand edits under the run's scope roots first, so the run builds on them
    (and adopts them as corrections). Plumbing over those folders only: the rest of the
    work tree is never read, and the commit holds exactly the changed files."""
    repo = store.repo
    with write_locks([store.path], "dream run"):
        changed = repo.changed_under(*sorted({r.rstrip("/") for r in roots}))
        if changed:
            repo.commit_files(f"Baseline before dream run {run_id}", changed,
                              trailers={"Dream-Run": run_id, "Dream-Pass": "baseline",
                                        "Dream-Store": store.id})
        return repo.head()


def sync_index(conn: sqlite3.Connection, store: Store) -> None:
    index.sync(conn, store)


def dream_scope(scope: Scope, state: State, items: list[Item], provider: Provider | None,
                opts: RunOptions, run_id: str, progress) -> dict[str, Any]:
    """Bundle, propose, merge, apply, sweep and render one scope (in memory)."""
    totals: Counter = Counter()
    corrections = [i for i in items if i.source == CORRECT_SOURCE]
    answers = [i for i in items if i.source == ANSWER_SOURCE]
    ordinary = [i for i in items if i.source not in TYPED_SOURCES]
    errors: list[str] = []
    dropped: Counter = Counter()
    progress("bundle", 0, 1)
    bundles = make_bundles(ordinary)
    totals["bundles"] += len(bundles)
    progress("bundle", 1, 1)
    ops = correction_ops(corrections, state, dropped) + answer_ops(answers, state, dropped)
    failed_items: set[str] = set()
    prefix = run_prefix(state, bundles) if bundles and provider is not None else None
    if bundles and provider is not None:
        done = [0]

        def on_call(_call, total_calls):
            done[0] += 1
            progress("propose", done[0], total_calls)

        progress("propose", 0, 1)
        proposed = propose(provider, state, bundles, opts.pack_tokens, opts.parallel, on_call,
                           prefix)
        ops += proposed.ops
        dropped.update(proposed.dropped)
        errors += proposed.errors
        totals.update(proposed.usage)
        failed = set(proposed.failed_bundles)
        for b in bundles:
            if b.id in failed:
                failed_items |= {i.id for i in b.items}
    progress("merge", 0, 1)
    writes, questions = merge(ops)
    if questions and provider is not None:
        settled, questions, usage = settle(provider, ops, questions, state.as_of(),
                                           prefix.text if prefix else "")
        totals.update(usage)
        if settled is not ops:
            ops = settled
            writes, _again = merge(ops)
    before = {(w.kind, w.key): state.records[(w.kind, w.key)].values()
              for w in writes if (w.kind, w.key) in state.records}
    applied = apply_writes(state, writes, run_id)
    if questions:
        qwrites, _ = merge(questions)
        apply_writes(state, [w for w in qwrites if state.get(w.kind, w.key) is None],
                     run_id, applied)
    progress("merge", 1, 1)
    swept_how = "nothing changed" if opts.sweep else "off"
    if opts.sweep and provider is not None and applied.changed:
        progress("sweep", 0, 1)
        swept = sweep(provider, state, list(applied.changed.values()), before, prefix)
        totals.update(swept.usage)
        swept_how = "nothing to sweep" if swept.skipped else "called"
        dropped.update(swept.dropped)
        if swept.error:
            errors.append("sweep: " + swept.error)
        if swept.ops:
            swrites, _ = merge(swept.ops)
            apply_writes(state, swrites, run_id, applied)
        progress("sweep", 1, 1)
    progress("render", 0, 1)
    files: dict[str, bytes | None] = {}
    prefix = scope.root.rstrip("/") + "/"
    for kind_key in sorted(state.adopted):       # hand edits, now with their provenance
        rec = state.records[kind_key]
        applied.changed.setdefault(kind_key, rec)
        applied.passes.add("edit")
        applied.evidence.update(e for fv in rec.fields.values() if fv.pass_ == "edit"
                                for e in fv.evidence)
    for (_kind, _key), rec in sorted(applied.changed.items()):
        files[prefix + rec.path] = rec.dumps().encode("utf-8")
    brief = render_brief(state, opts.brief_tokens).encode("utf-8")
    old_brief = scope.store.repo.read_at(state.commit, prefix + "brief.md") \
        if state.commit else None
    if brief != old_brief and state.records:
        files[prefix + "brief.md"] = brief
    progress("render", 1, 1)
    summary = {"items": len(items), "bundles": len(bundles), "ops": len(ops),
               "changed": len(applied.changed), "questions": len(questions),
               "sweep": swept_how}
    return {"totals": totals, "dropped": dropped, "apply": applied, "errors": errors,
            "failed_items": failed_items, "files": files, "summary": summary}


def write_run_commit(entry: dict[str, Any], run_id: str, opts: RunOptions,
                     project_key: str | None) -> str | None:
    store: Store = entry["store"]
    if not entry["files"]:
        return None
    roots = ", ".join(s.root for s in entry["scopes"])
    passes = sorted(entry["passes"]) or ["render"]
    trailers: dict[str, Any] = {
        "Dream-Run": run_id,
        "Dream-Pass": passes,
        "Dream-Evidence": sorted(entry["evidence"]),
        "Dream-Store": store.id,
    }
    keys = sorted({s.project_key for s in entry["scopes"] if s.project_key})
    if keys:
        trailers["Dream-Project"] = keys
    changed = sum(1 for p in entry["files"] if not p.endswith("brief.md"))
    sha = git_commit.build_commit(
        store.repo, entry["base"], entry["files"],
        subject=f"Dream run {run_id}: {changed} records in {roots}",
        trailers=trailers,
        body=f"mode {opts.mode}, model {opts.model if not opts.only_ids else 'correct'}")
    if sha:
        git_commit.set_branch(store.repo, git_commit.run_branch(run_id), sha)
    return sha


# -- dry run -----------------------------------------------------------------------------------
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
