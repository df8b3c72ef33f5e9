"""Revert a commit, or every commit of a run, with ``git revert``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dream import index, runs
from dream.app import App
from dream.db import utcnow
from dream.errors import LockHeld, StoreError, UnknownCommit
from dream.notes.dreaming import held_locks, lock_held_error, lock_state, read_lock
from dream.review.proposals import mark_reverted
from dream.store.git import looks_like_sha
from dream.store.lock import write_locks
from dream.store.store import Store


@dataclass
class Reverted:
    target: str
    reverts: list[dict[str, str]] = field(default_factory=list)
    proposals_reverted: Any = None
    runs_reverted: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"target": self.target, "reverts": self.reverts,
                "proposals_reverted": self.proposals_reverted,
                "runs_reverted": self.runs_reverted}


def _targets(stores: list[Store], commit_or_run: str) -> list[tuple[Store, list[str]]]:
    targets: list[tuple[Store, list[str]]] = []
    for store in stores:
        found = [sha for sha, tr in store.repo.commits_with_trailer("Dream-Run", commit_or_run)
                 if "baseline" not in tr.get("Dream-Pass", [])]
        if found:
            targets.append((store, found))
    if not targets and looks_like_sha(commit_or_run):
        for store in stores:
            if store.repo.head() is not None:
                try:
                    targets.append((store, [store.repo.resolve(commit_or_run)]))
                    break
                except UnknownCommit:
                    continue
    return targets


def _nothing_of_the_run(app: App, run_id: str) -> None:
    """Say why a dream run known by that id has nothing on the main line to revert: it
    waits for review, or it was discarded."""
    run = None if looks_like_sha(run_id) else runs.find(app.db, run_id, "dream")
    if run is None or not run.commit:
        return
    if run.waiting_for_review:
        raise UnknownCommit(f"run {run.id} was left for review and is not on the store's "
                            "main line, so there is nothing to revert",
                            f"drop it with 'dream runs discard {run.id}'")
    if run.details.decision == "discarded":
        raise UnknownCommit(f"run {run.id} was discarded: nothing of it is on the store's "
                            "main line", "nothing to revert")


def revert(app: App, commit_or_run: str) -> Reverted:
    """Revert under the write locks of the stores involved; the commits to revert are
    looked up again once the locks are held."""
    app.home.require()
    locks = held_locks(app.home.notes_path)
    if locks:
        if lock_state(read_lock(locks[0]) or {}) == "stale":
            raise lock_held_error(locks[0])
        raise LockHeld(f"a dream is open (lock {locks[0]})",
                       "end it with 'dream end' before reverting")
    stores = app.stores.all()
    with write_locks([s.path for s in stores], "dream revert"):
        targets = _targets(stores, commit_or_run)
        if not targets:
            _nothing_of_the_run(app, commit_or_run)
            raise UnknownCommit(f"'{commit_or_run}' is neither a run with commits nor a commit "
                                "in any store", "give a run id from 'dream runs' or the "
                                "sha of a commit in a store 'dream stores list' shows")
        for store, _shas in targets:
            dirty = store.repo.changed_files()
            if dirty:  # git revert would stage them, and a failed revert would reset them away
                raise StoreError(
                    f"store '{store.name}' has {len(dirty)} uncommitted change(s), e.g. "
                    f"{dirty[0]}", "commit them first ('dream begin' then 'dream end' commits "
                    "a project's pending edits) or remove them, then revert")
        done = Reverted(commit_or_run)
        for store, shas in targets:
            for sha in shas:  # newest first
                new = store.repo.revert(sha, trailers={"Dream-Pass": "revert",
                                                       "Dream-Store": store.id})
                if new is None:
                    # reverted before: name the commit that did it, never whatever HEAD
                    # happens to be now (a note written since is no revert)
                    earlier = store.repo.commits_with_trailer("Reverts",
                                                              store.repo.resolve(sha))
                    if not earlier:
                        continue            # its changes are gone some other way
                    new = earlier[0][0]
                done.reverts.append({"store_id": store.id, "reverted": sha, "commit": new})
            index.sync(app.db, store)
        # a reverted review promotion is no longer 'accepted', a reverted run no longer
        # 'promoted': the proposal and the run say so, naming the commit that reverted them
        reverted = {d["reverted"]: d["commit"] for d in done.reverts}
        now = utcnow()
        done.proposals_reverted = mark_reverted(app.db, reverted, now)
        done.runs_reverted = runs.mark_reverted(app.db, reverted, now)
    return done
