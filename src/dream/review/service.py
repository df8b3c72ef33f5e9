"""Review dreams: start one, show it, accept or reject its proposals, close it.

This is the API every front end calls (the CLI here, the web page, the MCP server):
:func:`start`, :func:`show`, :func:`list_proposals`, :func:`accept`, :func:`reject`,
:func:`close`. Each raises :class:`~dream.errors.DreamError` subclasses for anything a user
can fix.

A review is a row in ``runs`` with ``kind='review'``. It is **open** (status ``running``)
from the moment it starts until every proposal is decided or it is closed with
:func:`close`; while one is open for a project, a second is refused with an error naming it.
The open check and the insert happen in one ``BEGIN IMMEDIATE`` transaction, so two starts
at the same moment cannot both win. A review that finds nothing closes at once.

The review reads the project's spool items after its watermark (``review:<project key>``)
and advances the watermark to the last item it read when its passes have run.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dream import db, runs
from dream.app import App
from dream.errors import BadInput, LockHeld, NotManaged
from dream.models.base import get_provider, known_configured
from dream.passes import PASS_NAMES, run_all
from dream.passes.base import Candidate, PassResult
from dream.passes.evidence import MAX_ITEMS, Evidence, load_items, watermark, watermark_name
from dream.passes.instructions import agent_file
from dream.passes.notes import load_notes
from dream.review import citations, export, handoff, learned, promotion
from dream.review import proposals as store_proposals
from dream.review.proposals import Proposal, fingerprint
from dream.store.registry import Project


class ReviewOpen(LockHeld):
    """A review dream is already open for the project."""


ProjectRef = Project     # the review's project: key, name, Primary Store, root


def resolve_project(app: App, project: str | None = None) -> Project:
    """The project to review: the current repository's, or ``project`` (a key or a name
    known to a store, or a key that has items in the spool)."""
    app.home.require()
    try:
        current = app.current_project(project)
    except NotManaged:
        if project is None:
            raise
    else:
        if current.store is not None or app.db.execute(
                "SELECT 1 FROM items WHERE project_key=? LIMIT 1", (current.key,)).fetchone():
            return current
        raise NotManaged(f"{current.root or app.cwd} is not initialised and nothing was "
                         "collected for it", "run 'dream init' here, then 'dream collect'")
    if app.db.execute("SELECT 1 FROM items WHERE project_key=? LIMIT 1", (project,)).fetchone():
        name = project.rsplit("-", 1)[0] if "-" in project else project
        return Project(project, name, None, None)
    raise NotManaged(f"no project '{project}' in any store or in the spool",
                     "give a project key or name from 'dream stores list', or collect its "
                     "sessions first with 'dream collect'")


def _new_run_id() -> str:
    return "review-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(2)


def _open_run(conn: sqlite3.Connection, ref: ProjectRef, model: str) -> str:
    conn.execute("BEGIN IMMEDIATE")
    try:
        open_run = runs.open_review(conn, ref.key)
        if open_run:
            raise ReviewOpen(
                f"review {open_run.id} (started {open_run.started_at}) is still open for "
                f"project {ref.name}",
                f"decide its proposals with 'dream review accept/reject', or close it with "
                f"'dream review close {open_run.id}'")
        run_id = _new_run_id()
        runs.insert(conn, run_id, "ondemand", "running", ref.key, model, kind="review")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return run_id


def start(app: App, project: str | None = None, model: str | None = None,
          all_evidence: bool = False) -> dict[str, Any]:
    """Run the six passes over the project's new evidence and record the proposals."""
    ref = resolve_project(app, project)
    conn = app.db
    spec = model or str(app.config.get("model", "default", "rules"))
    settings = dict(app.config.data.get("model", {}))
    if not model:
        known_configured(spec, settings, str(app.config.path))
    provider = None if spec.partition(":")[0] == "rules" else get_provider(spec, settings)
    run_id = _open_run(conn, ref, spec)
    started = time.perf_counter()
    try:
        after = 0 if all_evidence else watermark(conn, ref.key)
        items = load_items(conn, ref.key, after)
        prepared, no_handoff = handoff.fresh(conn, ref.key)
        notes = load_notes(ref.store, ref.name, ref.key) if ref.store else []
        target_file, target_text = agent_file(ref.root)
        ev = Evidence(ref.key, ref.name, items, after, items[-1].seq if items else after,
                      notes=notes, handoff=prepared, agent_file=target_file,
                      agent_file_text=target_text, run_id=run_id,
                      store_commit=ref.store.repo.head() if ref.store else None)
        results = run_all(ev, provider)
        kept, journal = _keep_checked(app, ev, results, ref)
        lines = learned.lines(kept, ev.counts(), prepared is not None)
        now = db.utcnow()
        rows = [_proposal(run_id, ref, c, now) for c in kept]
        failed = [r.name for r in results if r.status != "ok"]
        details = {
            "project_name": ref.name,
            "project_root": str(ref.root) if ref.root else None,
            "store_id": ref.store.id if ref.store else None,
            "from_seq": after, "to_seq": ev.to_seq,
            "evidence": ev.counts(),
            "handoff": ({"id": prepared.journal_id, "at": prepared.at,
                         "chars": len(prepared.text)} if prepared else
                        {"id": None, "missing": no_handoff}),
            "learned": lines,
            "journal": journal,
            "failed_passes": failed,
            "truncated": len(items) >= MAX_ITEMS,
        }
        totals = {k: sum(getattr(r, k) for r in results)
                  for k in ("calls", "input_tokens", "output_tokens", "cached_tokens")}
        status = "running" if rows else ("partial" if failed else "ok")
        conn.execute("BEGIN IMMEDIATE")
        try:
            for row in rows:
                store_proposals.insert(conn, row)
            runs.update(conn, run_id, status=status, items=len(items), **totals,
                        duration_s=round(time.perf_counter() - started, 3), details=details,
                        finished_at=None if rows else now,
                        error="; ".join(f"{r.name}: {r.error}" for r in results
                                        if r.error) or None)
            conn.execute(
                "INSERT INTO watermarks (name, seq, updated_at) VALUES (?, ?, ?) ON CONFLICT"
                "(name) DO UPDATE SET seq=max(seq, excluded.seq), updated_at=excluded.updated_at",
                (watermark_name(ref.key), ev.to_seq, now))
            conn.execute(
                "INSERT OR IGNORE INTO journal (at, kind, key, project_key, data)"
                " VALUES (?, 'dream.reviewed', ?, ?, ?)",
                (now, f"reviewed:{run_id}", ref.key,
                 json.dumps({"run": run_id, "proposals": len(rows), "learned": lines})))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except BaseException as exc:
        runs.update(conn, run_id, status="failed", finished_at=db.utcnow(),
                    error=f"{type(exc).__name__}: {exc}"[:500])
        raise
    return show(app, run_id)


def _keep_checked(app: App, ev: Evidence, results: list[PassResult],
                  ref: ProjectRef) -> tuple[list[Candidate], dict[str, Any]]:
    """Check every candidate's citations; drop the ones that fail or were decided before."""
    conn = app.db
    repos = [s.repo for s in app.stores.all() if s.repo.head() is not None]
    if ref.root is not None and (ref.root / ".git").exists():
        from dream.store.git import Repo

        repos.append(Repo(ref.root))
    decided = store_proposals.decided_fingerprints(conn)
    kept: list[Candidate] = []
    journal: dict[str, Any] = {}
    for result in results:
        entry = dict(result.journal)
        entry["status"] = result.status
        if result.error:
            entry["error"] = result.error
        dropped = []
        for cand in result.candidates:
            fp = fingerprint(cand.pass_name, cand.slug, cand.item_ids())
            if fp in decided:
                dropped.append({"slug": cand.slug,
                                "reason": f"{decided[fp]} before for the same evidence"})
                continue
            bad = citations.failures(conn, cand.evidence(), cand.item_ids(), ref.root, repos)
            if bad:
                dropped.append({"slug": cand.slug,
                                "reason": "citation does not check out: " + "; ".join(bad)})
                continue
            kept.append(cand)
        entry["proposals"] = [c.slug for c in result.candidates
                              if c.slug not in {d["slug"] for d in dropped}]
        entry["dropped"] = dropped
        journal[result.name] = entry
    return kept, journal


def _proposal(run_id: str, ref: ProjectRef, c: Candidate, now: str) -> Proposal:
    return Proposal.model_validate({
        "run_id": run_id, "slug": c.slug, "pass": c.pass_name, "kind": c.kind,
        "title": c.title, "size": c.size, "risk": c.risk, "project_key": ref.key,
        "evidence": c.evidence(), "items": c.item_ids(), "replaces": c.replaces,
        "change": c.change, "fingerprint": fingerprint(c.pass_name, c.slug, c.item_ids()),
        "created_at": now,
    })


# -- reading ------------------------------------------------------------------------------
def _review_run(conn: sqlite3.Connection, run_id: str | None, project_key: str | None
                ) -> runs.Run:
    if run_id:
        return runs.get(conn, run_id, "review")
    run = runs.latest_review(conn, project_key)
    if run is None:
        raise BadInput("no review dream yet" + (" for this project" if project_key else ""),
                       "start one with 'dream review start'")
    return run


def list_proposals(app: App, run_id: str) -> list[dict[str, Any]]:
    return [p.public() for p in store_proposals.for_run(app.db, run_id)]


def show(app: App, run_id: str | None = None, project: str | None = None) -> dict[str, Any]:
    """A review run with its learned lines, journal and proposals (latest by default)."""
    app.home.require()
    key = None
    if run_id is None:
        try:
            key = resolve_project(app, project).key
        except NotManaged:
            if project is not None:
                raise
    run = _review_run(app.db, run_id, key)
    details = run.details
    return {
        "run": {k: getattr(run, k) for k in (
            "id", "status", "project_key", "model", "started_at", "finished_at", "items",
            "calls", "input_tokens", "output_tokens", "cached_tokens", "duration_s", "error")}
        | {"open": run.status == "running", "project_name": details.project_name,
           "from_seq": details.get("from_seq"),
           "to_seq": details.get("to_seq"), "evidence": details.get("evidence", {}),
           "handoff": details.get("handoff")},
        "learned": details.get("learned", []),
        "journal": details.get("journal", {}),
        "proposals": list_proposals(app, run.id),
    }


# -- deciding -----------------------------------------------------------------------------
def _resolve(app: App, slugs: list[str], run_id: str | None) -> list[Proposal]:
    if not slugs:
        raise BadInput("no proposal slug given", "list them with 'dream review show'")
    found = []
    here = None if run_id else app.project().key
    for slug in dict.fromkeys(slugs):
        # without a run: this repository's newest proposal with the slug, else any project's
        p = (store_proposals.find(app.db, slug, run_id, here) if here else None) \
            or store_proposals.find(app.db, slug, run_id)
        if p is None:
            raise BadInput(f"unknown proposal '{slug}'" + (f" in review {run_id}" if run_id
                                                            else ""),
                           "list proposals and their slugs with 'dream review show'")
        found.append(p)
    return found


def _undo_hint(p: store_proposals.Proposal) -> str:
    """How to undo a decided proposal: an accepted memory proposal by reverting the commit
    that promoted it, an exported one by deleting the file it was exported to."""
    if p.status == "accepted" and p.commit_sha:
        return f"to undo it, revert its commit with 'dream revert {p.commit_sha[:12]}'"
    if p.status == "exported" and p.export_path:
        return f"it was written to {p.export_path}; delete that file to drop it"
    return "undo an accepted proposal with 'dream revert COMMIT' (its commit in 'dream " \
        "review show --json')"


def accept(app: App, slugs: list[str], run_id: str | None = None) -> list[dict[str, Any]]:
    """Promote accepted memory proposals; export code and instruction proposals."""
    chosen = _resolve(app, slugs, run_id)
    for p in chosen:
        if p.status == "rejected":
            raise BadInput(f"'{p.slug}' was rejected in review {p.run_id}"
                           + (f" ({p.why})" if p.why else ""),
                           "a rejected proposal stays rejected; a new review proposes it again "
                           "only when the evidence changes")
        if p.status in ("accepted", "exported"):
            raise BadInput(f"'{p.slug}' was already {p.status} in review {p.run_id}",
                           _undo_hint(p))
    for p in chosen:                       # refuse before changing anything
        if p.kind == "memory":
            promotion.check(app, p)
    out = []
    for p in chosen:
        at = db.utcnow()
        if p.kind == "memory":
            sha = promotion.promote(app, p)
            store_proposals.set_status(app.db, p, "accepted", commit_sha=sha, at=at)
            out.append({"slug": p.slug, "status": "accepted", "commit": sha,
                        "address": p.change.get("address"), "run": p.run_id})
        else:
            root = _project_root(app, p.run_id)
            path = export.export(app, p, root)
            store_proposals.set_status(app.db, p, "exported", export_path=str(path), at=at)
            out.append({"slug": p.slug, "status": "exported", "export": str(path),
                        "run": p.run_id})
        _maybe_close(app.db, p.run_id)
    return out


def reject(app: App, slugs: list[str], why: str | None = None,
           run_id: str | None = None) -> list[dict[str, Any]]:
    """Record rejections; a rejected proposal is never proposed again for the same evidence."""
    chosen = _resolve(app, slugs, run_id)
    for p in chosen:
        if p.status != "proposed":
            raise BadInput(f"'{p.slug}' was already {p.status} in review {p.run_id}",
                           "only proposed proposals can be rejected; " + _undo_hint(p))
    out = []
    for p in chosen:
        store_proposals.set_status(app.db, p, "rejected", why=why, at=db.utcnow())
        out.append({"slug": p.slug, "status": "rejected", "why": why, "run": p.run_id})
        _maybe_close(app.db, p.run_id)
    return out


def close(app: App, run_id: str | None = None, project: str | None = None) -> dict[str, Any]:
    """Close an open review; undecided proposals stay 'proposed' and can still be decided.
    A review that is closed already (its last proposal decided, or closed before) is left
    as it is and reported so (``already_closed``): closing it again loses nothing."""
    app.home.require()
    key = resolve_project(app, project).key if run_id is None else None
    run = _review_run(app.db, run_id, key)
    was_open = run.status == "running"
    if was_open:
        _finish(app.db, run.id)
    return show(app, run.id) | {"already_closed": not was_open}


def _project_root(app: App, run_id: str) -> Path | None:
    run = runs.find(app.db, run_id)
    root = run.details.project_root if run else None
    return Path(root) if root else None


def _maybe_close(conn: sqlite3.Connection, run_id: str) -> None:
    left = conn.execute("SELECT count(*) FROM review_proposals WHERE run_id=? AND "
                        "status='proposed'", (run_id,)).fetchone()[0]
    if not left:
        _finish(conn, run_id)


def _finish(conn: sqlite3.Connection, run_id: str) -> None:
    run = runs.find(conn, run_id)
    if run is None or run.status != "running":
        return
    runs.update(conn, run_id, status="partial" if run.details.failed_passes else "ok",
                finished_at=db.utcnow())


__all__ = ["PASS_NAMES", "ReviewOpen", "accept", "close", "list_proposals", "reject",
           "resolve_project", "show", "start"]
