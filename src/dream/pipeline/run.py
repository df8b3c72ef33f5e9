"""The dream run: one watermark-driven program over a project's spool.

``run_dream`` claims the gated items of the current project (and personal items, which
belong to no project), prepares every scope (state, bundles), proposes (one set of calls
across the scopes for a provider billed per call, ``pipeline/joint.py``; per scope for
code providers), then per scope merges, applies, sweeps and renders
(``pipeline/scopework.py``), and writes ONE commit per store on the run branch
``dream/run/<id>``. With ``apply='auto'`` the branch is promoted (the store's branch
fast-forwards to it); with ``'review'`` it is left for a person. The run row in the
database records every figure.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dream import index, runs
from dream.db import utcnow
from dream.errors import BadInput, DreamError, LockHeld, ModelError
from dream.items import Item
from dream.models import pricing as price_table
from dream.models.base import Provider, charges_per_call, get_provider, known_provider
from dream.pipeline import commit as git_commit
from dream.pipeline import spool
from dream.pipeline.joint import joint_prefix, propose_joint, sweep_joint
from dream.pipeline.prompt import PACK_TOKENS, run_prefix
from dream.pipeline.propose import propose
from dream.pipeline.scopework import (
    ScopeWork,
    prepare,
    render_files,
    settle_apply,
    summary,
    take_sweep,
)
from dream.pipeline.state import Scope, load_state
from dream.pipeline.sweep import empty_prefix, sweep
from dream.runs import Run
from dream.store.lock import write_locks
from dream.store.store import Store

MODES = ("nightly", "ondemand", "realtime")
STATUSES = ("running", "ok", "partial", "failed", "priced")
RUN_FIELDS = ("id", "mode", "status", "items", "bundles", "calls", "input_tokens",
              "output_tokens", "cached_tokens", "cost_usd", "commit", "branch")


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
    from dream.notes.dreaming import acquire_lock, lock_path, release_lock
    from dream.store.lock import clear_command, lock_state, read_lock

    held = []
    stale: list[tuple[Path, LockHeld]] = []   # a killed run leaves one lock per scope
    try:
        for scope in sorted(scopes, key=lambda s: s.name):
            if scope.name in {h.name.split(".dream.lock.", 1)[-1] for h in held}:
                continue
            info = {"run_id": run_id}
            if scope.project_key:
                info["project_key"] = scope.project_key
            try:
                held.append(acquire_lock(notes_path, scope.name, owner="run", info=info))
            except LockHeld as exc:
                path = lock_path(notes_path, scope.name)
                if lock_state(read_lock(path) or {}) != "stale":
                    raise
                stale.append((path, exc))
        if len(stale) == 1:
            raise stale[0][1]
        if stale:
            # named together, so clearing them takes one command, not one run per lock
            paths = [p for p, _ in stale]
            raise LockHeld(f"stale dream locks {', '.join(map(str, paths))} are left by runs "
                           "that are no longer running",
                           "clear them with: " + clear_command(*paths))
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
        from dream.pipeline.price import price_run

        # a typo in --model, or no model named, is said, not priced at $0
        known_provider(opts.model, opts.model_settings)
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
    left_for_review = False
    try:
        per_store: dict[str, dict[str, Any]] = {}
        works: list[ScopeWork] = []
        entries: list[dict[str, Any]] = []       # each work's store entry
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
            store_entry["scopes"].append(scope)
            work = prepare(len(works), scope, load_state(scope, store_entry["base"]), items)
            works.append(work)
            entries.append(store_entry)
        usage = dream_scopes(works, provider, opts, run_id, progress)
        totals.update(usage.totals)
        details["dropped"].update(usage.dropped)
        details["errors"] += usage.errors
        progress("render", 0, len(works))
        for work, store_entry in zip(works, entries, strict=True):
            files = render_files(work, opts.brief_tokens)
            totals.update(work.totals)
            details["dropped"].update(work.dropped)
            details["apply"].update(work.applied.counts)
            details["errors"] += work.errors
            details["scopes"][work.scope.root] = summary(work)
            failed_items |= work.failed_items
            store_entry["files"].update(files)
            store_entry["evidence"] |= work.applied.evidence
            store_entry["passes"] |= work.applied.passes
        progress("render", len(works), len(works))
        progress("commit", 0, len(per_store))
        for entry in per_store.values():
            sha = write_run_commit(entry, run_id, opts, project_key)
            if sha:
                commits[entry["store"].id] = sha
        progress("commit", len(per_store), len(per_store))
        if any(e.startswith("sweep: ") for e in details["errors"]):
            status = "partial"      # the sweep's answer was invalid twice: nothing of it applied
        if failed_items:
            # every claimed item failed and nothing was written: the run did nothing, and a
            # scheduled job must see that (exit 1), not a partial success
            status = "failed" if len(failed_items) >= all_items and not commits \
                else "partial"
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
                    taken, why = _promote(entry["store"], sha, entry["base"], run_id,
                                          opts.brief_tokens)
                    if taken:
                        sync_index(conn, entry["store"])
                        if why:
                            details["errors"].append(f"store {entry['store'].name} {why}")
                        continue
                    status = "partial"
                    details["errors"].append(
                        f"store {entry['store'].name} {why}; the run branch was left for "
                        f"review ('dream runs promote {run_id}' merges it, "
                        f"'dream runs discard {run_id}' drops it)")
                    promoted = False
                    left_for_review = True
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
    # a run its store moved under, with changes that clash, waits for a person's decision
    # as a run made with --apply review does (it was 'promoted' in the runs view, and
    # 'dream runs promote' refused it as not waiting for review)
    details["apply_mode"] = "review" if left_for_review else opts.apply
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


def _promote(store: Store, sha: str, base: str | None, run_id: str,
             brief_tokens: int) -> tuple[bool, str | None]:
    """Put the run's commit on the store's branch: fast-forward, else merge on top of what
    the store took meanwhile (a note written meanwhile, another project's run), as 'dream
    runs promote' does. (True, None) once done; (True, what to say) when merged but a brief
    could not be rendered again; (False, what kept it off, said after the store's name)
    with the store untouched: the run then waits for review. Any store error counts (the
    run changes records changed there since, a file in the way, a git lock, a half-done
    history scrub), not only a clash of records: one left to propagate marked the whole
    run failed, its commit stranded on the run branch."""
    from dream.errors import DreamError, VersionConflict
    from dream.pipeline.decide import _merge

    try:
        if git_commit.promote(store.repo, sha, base):
            return True, None
    except DreamError as exc:
        return False, "did not take the run: " + exc.one_line().rstrip(".")
    try:
        return True, _merge(store, sha, run_id, brief_tokens)
    except VersionConflict:
        why = "records the run changes were changed there since"
    except DreamError as exc:
        why = "the run could not be merged into it: " + exc.one_line().rstrip(".")
    return False, f"moved during the run and {why}"


def sync_index(conn: sqlite3.Connection, store: Store) -> None:
    index.sync(conn, store)


@dataclass
class RunUsage:
    """What a run's shared calls cost and dropped (per-scope figures stay on the works)."""

    totals: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)


def dream_scopes(works: list[ScopeWork], provider: Provider | None, opts: RunOptions,
                 run_id: str, progress) -> RunUsage:
    """Propose, merge, apply and sweep every prepared scope of a run.

    A provider billed per call gets one set of calls for all scopes: one prefix, propose
    calls packed across the scopes, one merge call per scope only for near look-alikes,
    at most one sweep call, which re-reads only what a propose call could not see
    (``pipeline/joint.py``). Code providers (``rules``, ``scripted``) are called per
    scope, each scope with its own prefix and every changed row swept, as always."""
    usage = RunUsage()
    calls_done = [0]

    def on_call(_call, total_calls):
        calls_done[0] += 1
        progress("propose", calls_done[0], total_calls)

    if provider is None or not charges_per_call(provider):
        for work in works:
            prefix = run_prefix(work.state, work.bundles) \
                if work.bundles and provider is not None else None
            if prefix is not None:
                progress("propose", 0, 1)
                proposed = propose(provider, work.state, work.bundles, opts.pack_tokens,
                                   opts.parallel, on_call, prefix)
                work.ops += proposed.ops
                work.dropped.update(proposed.dropped)
                work.errors += proposed.errors
                work.totals.update(proposed.usage)
                work.fail_bundles(set(proposed.failed_bundles))
            settle_apply(work, provider, prefix.text if prefix else "", run_id)
            work.swept = "nothing changed" if opts.sweep else "off"
            if opts.sweep and provider is not None and work.applied.changed:
                progress("sweep", 0, 1)
                swept = sweep(provider, work.state, list(work.applied.changed.values()),
                              work.before, prefix)
                work.totals.update(swept.usage)
                work.dropped.update(swept.dropped)
                if swept.error:
                    work.errors.append("sweep: " + swept.error)
                take_sweep(work, swept, swept.ops, run_id)
                progress("sweep", 1, 1)
        return usage
    prefix = joint_prefix(works) if any(w.bundles for w in works) else None
    if prefix is not None:
        progress("propose", 0, 1)
        proposed = propose_joint(provider, works, prefix, opts.pack_tokens, opts.parallel,
                                 on_call)
        usage.totals.update(proposed.usage)
        usage.dropped.update(proposed.dropped)
        usage.errors += proposed.errors
    progress("merge", 0, 1)
    for work in works:
        settle_apply(work, provider, prefix.text if prefix else "", run_id)
        work.swept = "nothing changed" if opts.sweep else "off"
    progress("merge", 1, 1)
    if opts.sweep and any(w.applied.changed for w in works):
        progress("sweep", 0, 1)
        swept = sweep_joint(provider, works, prefix or empty_prefix(works[0].state), run_id)
        usage.totals.update(swept.usage)
        usage.dropped.update(swept.dropped)
        if swept.error:
            usage.errors.append("sweep: " + swept.error)
        progress("sweep", 1, 1)
    return usage


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
