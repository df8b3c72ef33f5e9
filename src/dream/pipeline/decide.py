"""A person's decision on a run left for review (``dream run --apply review``).

Promoting fast-forwards each store to the run's commit; when the store has moved on since
the run was built, the run branch is merged (a merge commit with the run's trailers) and a
conflict refuses the promotion without touching the store. Discarding only records the
decision: the run branch stays in the store's git for the audit trail.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from dream import runs
from dream.db import utcnow
from dream.errors import BadInput, DreamError, GitFailed, VersionConflict
from dream.notes.dreaming import acquire_lock, release_lock
from dream.pipeline import commit as git_commit
from dream.pipeline.run import sync_index
from dream.runs import Run
from dream.store.git import run_git
from dream.store.lock import write_locks
from dream.store.store import Store


def _waiting(conn: sqlite3.Connection, run_id: str) -> Run:
    run = runs.get(conn, run_id, "dream")
    if run.details.decision:
        raise BadInput(f"run {run.id} was already {run.details.decision}",
                       "see it with 'dream runs show RUN'")
    if not run.waiting_for_review:
        raise BadInput(f"run {run.id} is not waiting for review",
                       "only runs made with 'dream run --apply review' that wrote a commit "
                       "can be promoted or discarded; list them with 'dream runs'")
    return run


def _lock_names(run: Run) -> list[str]:
    """The dream locks of the scopes the run wrote ('projects/<name>' -> name, 'user')."""
    return sorted({root.rsplit("/", 1)[-1] for root in run.details.scopes})


# how a merge that stands but whose briefs could not be rendered again is said
NOT_RENDERED = "merged; rendering"


def _merge(store: Store, sha: str, run_id: str, brief_tokens: int = 2000) -> str | None:
    """Merge the run branch into the store's moved branch. A conflict only in briefs (a
    note written meanwhile re-rendered its scope's brief) is no conflict of content: the
    briefs are rendered again from the merged records and notes, in the merge commit.
    None once merged; a merge that stands but whose briefs could not be rendered again
    returns what to say of them (raised, it was reported as a run not merged, to be
    promoted by hand, while the store's branch held it)."""
    repo = store.repo
    # a merge commit is a store write like any other: refused while a git command holds the
    # index or a history scrub is half-done (its work tree may still hold the secret)
    repo.check_index_lock()
    message = (f"Promote dream run {run_id} (merged: the store moved since the run)\n\n"
               f"Dream-Run: {run_id}\nDream-Pass: promote\nDream-Store: {store.id}")
    proc = run_git(repo.path, "merge", "--no-ff", "-q", "-m", message, sha, check=False,
                   env=repo.identity_env())
    if repo.git("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).strip():
        clashes = repo.git("diff", "--name-only", "-z", "--diff-filter=U",
                           check=False).split("\0")
        clashes = [c for c in clashes if c]
        if not clashes or any(c.rsplit("/", 1)[-1] != "brief.md" for c in clashes):
            repo.git("merge", "--abort", check=False)
            raise VersionConflict(
                f"run {run_id} changes records that were changed in store '{store.name}' "
                "since",
                "newer content is never overwritten: discard this run ('dream runs discard "
                "RUN') and dream again ('dream run --redo')")
        try:
            repo.git("checkout", "--theirs", "--", *clashes)
            repo.git("add", "--", *clashes)
            repo.git("commit", "-q", "--no-edit", "--no-verify", env=repo.identity_env())
        except BaseException:
            repo.git("merge", "--abort", check=False)
            raise
        try:
            _render_briefs(store, clashes, brief_tokens)
        except Exception as exc:        # the merge commit stands, with the run's briefs
            repo.git("checkout", "-q", "HEAD", "--", *clashes, check=False)
            why = exc.one_line().rstrip(".") if isinstance(exc, DreamError) else \
                f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
            shows = "it shows" if len(clashes) == 1 else "they show"
            return (f"{NOT_RENDERED} {', '.join(clashes)} again from the merged "
                    f"records and notes failed ({why}): {shows} the run's version until "
                    "a note written there or the next run over it renders it again")
    if run_git(repo.path, "merge-base", "--is-ancestor", sha, "HEAD",
               check=False).returncode != 0:
        # the merge failed without a conflict (a file in the way in the work tree): the
        # store's branch did not take the run, which must not pass for promoted. Not a
        # version conflict: no record was changed on both sides, git refused to start
        said = [line.removeprefix("error: ").strip().rstrip(":.") for line in
                proc.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        raise GitFailed(f"run {run_id} could not be merged into store '{store.name}': git "
                        "refused the merge" + (f" ({said[0]})" if said else ""),
                        f"check 'git -C {store.path} status' for changes in the way, "
                        "then promote it again ('dream runs promote RUN')")
    return None


def _render_briefs(store: Store, paths: list[str], brief_tokens: int) -> None:
    """Render the briefs at ``paths`` from the records and notes at HEAD, into HEAD."""
    from dream.pipeline.render import render_brief
    from dream.pipeline.state import Scope, load_state

    repo = store.repo
    head = repo.require_head()
    for path in paths:
        root = path.rsplit("/", 1)[0]
        scope = Scope(store=store, root=root, project_key=None,
                      name=root.rsplit("/", 1)[-1])
        brief = render_brief(load_state(scope, head), brief_tokens).encode("utf-8")
        (store.path / path).write_bytes(brief)
    repo.git("add", "--", *paths)
    repo.git("commit", "-q", "--amend", "--no-edit", "--no-verify", "--allow-empty",
             env=repo.identity_env())


def decide(conn: sqlite3.Connection, stores: list[Store], notes_path: Path, run_id: str,
           promote: bool, brief_tokens: int = 2000) -> Run:
    """Promote or discard a run left for review. The decision is taken under the run's
    dream locks and the write locks of the stores it wrote, and the run is read again once
    they are held: of two racing decisions one wins and the other is refused."""
    run = _waiting(conn, run_id)
    held: list[Path] = []
    heads: dict[str, str] = {}
    written = [s for s in stores if s.id in run.details.commits]
    try:
        for name in _lock_names(run):
            held.append(acquire_lock(notes_path, name, owner="promote",
                                     info={"run_id": run.id}))
        with write_locks([s.path for s in written], "dream runs promote"):
            run = _waiting(conn, run.id)           # again, under the locks
            if promote:
                for store in written:
                    sha = run.details.commits[store.id]
                    base = store.repo.git("rev-parse", "-q", "--verify", f"{sha}^",
                                          check=False).strip() or None
                    if not git_commit.promote(store.repo, sha, base):
                        said = _merge(store, sha, run.id, brief_tokens)
                        if said:
                            run.details.errors.append(f"store {store.name} {said}")
                    heads[store.id] = store.repo.require_head()
                    sync_index(conn, store)
            details = run.details
            details.decision = "promoted" if promote else "discarded"
            details.decided_at = utcnow()
            if heads:
                details.promoted_heads = heads
            runs.update(conn, run.id, details=details)
    finally:
        for path in held:
            release_lock(path)
    return runs.get(conn, run.id, "dream")
