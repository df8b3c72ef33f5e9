"""Promotion: an accepted memory proposal becomes one commit on the store's main line.

The commit holds exactly the note's file (and the scope's ``brief.md`` re-rendered with the
change, when the note is a typed record the brief shows) and carries the trailers
``Dream-Run`` (the review run), ``Dream-Pass`` (``review:<pass>``), ``Dream-Evidence`` (one
per spool item), ``Dream-Project`` and ``Dream-Store``, so ``git show`` explains it and
``dream revert RUN`` undoes it. The search index is synced afterwards.

A proposal records the hash of the note's bytes when it was made. If the note changed since
(at HEAD or uncommitted in the work tree), accepting is refused as a version conflict: newer
content is never overwritten. Run a new review to get a proposal against the current note.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from dream import index
from dream.app import App
from dream.errors import VersionConflict
from dream.kinds.records import Record
from dream.notes.address import resolve_inside
from dream.notes.dreaming import held_locks, lock_held_error, read_lock
from dream.passes.notes import content_hash
from dream.review.proposals import Proposal
from dream.secrets import redact
from dream.store.store import Store


def target_store(app: App, p: Proposal) -> Store:
    if p.change["path"].startswith("user/") or not p.project_key:
        return app.stores.notes_home()
    return app.stores.require_primary(p.project_key)


def check(app: App, p: Proposal) -> Store:
    """Refuse (raise) when the proposal cannot be promoted as it is; return the store."""
    store = target_store(app, p)
    relpath = p.change["path"]
    parts = relpath.split("/")
    for lock in held_locks(store.path):
        name = lock.name.split(".dream.lock.", 1)[-1]
        if parts[0] == "projects" and len(parts) > 1 and parts[1] == name:
            raise lock_held_error(lock, read_lock(lock) or {})
    head = store.repo.head()
    current = store.repo.read_at(head, relpath) if head else None
    if content_hash(current) != p.change.get("base"):
        what = "was created" if p.change.get("base") is None else (
            "was deleted" if current is None else "changed")
        raise VersionConflict(
            f"{p.change['address']} {what} after review {p.run_id} proposed '{p.slug}'; "
            "accepting would overwrite newer content",
            "run 'dream review start' for a proposal against the current note, or reject "
            "this one",
        )
    disk = resolve_inside(store.path, relpath)
    on_disk = disk.read_bytes() if disk.is_file() else None
    if on_disk != current:
        raise VersionConflict(
            f"{p.change['address']} has uncommitted edits in {store.path}",
            "commit or discard them (or end the open dream), then accept again",
        )
    return store


def _write(path: Path, data: bytes) -> None:
    data = redact(data.decode("utf-8", "surrogateescape"))[0].encode("utf-8", "surrogateescape")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def _brief(app: App, store: Store, p: Proposal, content: str) -> tuple[str, bytes] | None:
    """The scope's brief re-rendered with the promoted record, when the pipeline exists."""
    rec = Record.loads(content)
    root = p.change.get("scope_root")
    if rec is None or not root:
        return None
    from dream.pipeline.render import render_brief
    from dream.pipeline.state import Scope, load_state

    name = root.split("/", 1)[1] if "/" in root else "user"
    scope = Scope(store=store, root=root, project_key=p.project_key if "/" in root else None,
                  name=name)
    state = load_state(scope, store.repo.head())
    state.records[(rec.kind, rec.key)] = rec
    tokens = int(app.config.get("run", "brief_tokens", 2000))
    relpath = f"{root}/brief.md"
    brief = render_brief(state, tokens).encode("utf-8")
    head = store.repo.head()
    if head and store.repo.read_at(head, relpath) == brief:
        return None
    return relpath, brief


def promote(app: App, p: Proposal) -> str:
    """Commit the proposal's change; returns the commit sha."""
    store = check(app, p)
    relpath = p.change["path"]
    content = p.change["content"]
    files: dict[str, bytes] = {relpath: content.encode("utf-8")}
    brief = _brief(app, store, p, content)
    if brief:
        files[brief[0]] = brief[1]
    old: dict[str, bytes | None] = {}
    for rel, data in files.items():
        target = resolve_inside(store.path, rel)
        old[rel] = target.read_bytes() if target.is_file() else None
        _write(target, data)
    trailers: dict[str, str | list[str]] = {
        "Dream-Run": p.run_id,
        "Dream-Pass": f"review:{p.pass_name}",
        "Dream-Evidence": p.items,
        "Dream-Store": store.id,
    }
    if p.project_key:
        trailers["Dream-Project"] = p.project_key
    op = p.change.get("op", "update")
    try:
        sha = store.repo.commit_files(
            f"Review: {op} {p.change['address']} ({p.slug})", list(files),
            trailers=trailers, body=f"Accepted from review {p.run_id}: {p.title}")
    except BaseException:
        for rel, previous in old.items():
            target = resolve_inside(store.path, rel)
            if previous is None:
                target.unlink(missing_ok=True)
            else:
                target.write_bytes(previous)
        store.repo.git("update-index", "--add", "--remove", "--", *files, check=False)
        raise
    if sha is None:
        sha = store.repo.require_head()
    index.sync(app.db, store)
    return sha
