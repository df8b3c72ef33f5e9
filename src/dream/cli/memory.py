"""search, show, context, reindex, begin, forget, end, revert."""

from __future__ import annotations

import sys

import click

from dream import api, index
from dream.app import App
from dream.cli.common import emit_json, get_app, json_option
from dream.cli.notes import project_name_for
from dream.db import utcnow
from dream.errors import LockHeld, NoDream, NotManaged, StoreError, UnknownCommit
from dream.notes.dreaming import CLI_OWNER, DreamSession, held_locks, lock_path, read_lock
from dream.review.proposals import mark_reverted
from dream.store.git import looks_like_sha
from dream.store.store import Store


def register(cli: click.Group) -> None:
    for command in (search, show, context, reindex, begin, forget, end, revert):
        cli.add_command(command)


def _primary(app: App) -> tuple[api.Discovery, Store]:
    return api._require(app)


@click.command()
@click.argument("query")
@click.option("--limit", default=8, show_default=True, type=int, help="At most this many hits.")
@json_option
def search(query: str, limit: int, as_json: bool) -> None:
    """Search the Primary Store of the current repository (never another store)."""
    app = get_app()
    found, store = _primary(app)
    hits = api._search(app, store, found.project_key or "", query, limit)
    if as_json:
        emit_json({"query": query, "limit": limit, "store": found.store and found.store.__dict__,
                   "hits": [h.as_dict() for h in hits]})
        return
    for hit in hits:
        click.echo(f"{hit.score:8.3f}  {hit.path}  {hit.title}  [{hit.commit[:12]}]")
    if not hits:
        click.echo("no documents found")


@click.command()
@click.argument("path")
@click.option("--at", "commit", default="HEAD", show_default=True,
              help="Commit to read the document at.")
@click.option("--store", "store_id", default=None,
              help="Read from this store (id or name) instead of the Primary Store.")
@json_option
def show(path: str, commit: str, store_id: str | None, as_json: bool) -> None:
    """Print the exact bytes of a document at a commit."""
    app = get_app()
    if store_id:
        app.home.require()
        store = app.stores.by_id(store_id)
    else:
        store = _primary(app)[1]
    doc = api._read(store, path, commit)
    if as_json:
        emit_json(doc.as_dict())
        return
    # the exact bytes, through the binary buffer under sys.stdout (click 8.5 deprecates
    # its binary-stream helper)
    sys.stdout.flush()
    sys.stdout.buffer.write(doc.data)
    sys.stdout.buffer.flush()


@click.command()
@click.option("--objective", required=True, help="What the work is about; the search query.")
@click.option("--max-docs", default=8, show_default=True, type=int, help="At most 8 documents.")
@click.option("--max-chars", default=64000, show_default=True, type=int,
              help="At most 64000 characters in total.")
@click.option("--authority", type=click.Choice(["advisory", "binding"]), default="advisory",
              show_default=True, help="Authority label recorded on every document.")
@click.option("--provenance", is_flag=True,
              help="Print each document whole, front matter (per-field provenance), commit "
                   "and sha256 included, instead of the compact text for agents.")
@json_option
def context(objective: str, max_docs: int, max_chars: int, authority: str, provenance: bool,
            as_json: bool) -> None:
    """Build an immutable snapshot: one bounded search, each document read at its commit.

    Printed compactly for an agent's context (each document's text without its front
    matter, the commit once); --provenance prints everything, --json the snapshot."""
    snap = api.build_snapshot(get_app(), objective, max_docs, max_chars, authority)
    if as_json:
        emit_json(snap.as_dict())
        return
    if provenance:
        click.echo(f"snapshot of store '{snap.store.name}' for: {snap.objective}")
        click.echo(f"{len(snap.documents)} documents, {snap.total_chars} characters")
        for doc in snap.documents:
            click.echo(f"\n=== {doc.path} @ {doc.commit[:12]} sha256 {doc.sha256[:16]} "
                       f"({doc.authority})")
            click.echo(doc.content, nl=not doc.content.endswith("\n"))
    else:
        commits = sorted({doc.commit[:12] for doc in snap.documents})
        click.echo(f"# Memory for: {snap.objective} (store {snap.store.name}"
                   + (f" @ {', '.join(commits)}" if commits else "") + f", {authority})")
        for doc in snap.documents:
            click.echo(f"\n## {doc.path}")
            click.echo(without_front_matter(doc.content).strip())
    for item in snap.omitted:
        click.echo(f"omitted {item['path']} ({item['reason']})")


def without_front_matter(text: str) -> str:
    """A document's text without its leading YAML front matter (provenance, versions)."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            return text[end + 5:]
    return text


@click.command()
@click.option("--force", is_flag=True, help="Drop the index rows and read every document again.")
@json_option
def reindex(force: bool, as_json: bool) -> None:
    """Rebuild the search index from git (unchanged files are skipped by checksum)."""
    app = get_app()
    app.home.require()
    results = index.reindex(app.db, app.stores.all(), force=force)
    if as_json:
        emit_json([r.as_dict() for r in results])
        return
    for r in results:
        click.echo(f"{r.store_id[:12]}  indexed {r.indexed}  skipped {r.skipped}  removed "
                   f"{r.removed}  total {r.total}  {r.seconds:.2f}s")


@click.command()
@click.argument("project", required=False)
@click.option("--session", "session_id", default=None,
              help="Session id whose new notes (@sessions/<id>/...) the dream may create.")
@json_option
def begin(project: str | None, session_id: str | None, as_json: bool) -> None:
    """Open a dream over one project (default: the current one) until 'dream end'."""
    app = get_app()
    store = app.notes_store()
    key, name = _project(app, project)
    dream = DreamSession.begin(store, app.db, key, name, CLI_OWNER, session_id=session_id)
    notes = dream.notes()
    result = {"run_id": dream.run_id, "project": name, "project_key": key,
              "lock": str(dream.lock), "baseline": dream.baseline, "notes": notes}
    if as_json:
        emit_json(result)
        return
    click.echo(f"dream {dream.run_id} open over {name}; lock {dream.lock}")
    for note in notes:
        flag = " (crumpled)" if note["status"] == "crumpled" else ""
        click.echo(f"  {note['address']}{flag}")
    click.echo("edit with 'dream notes ...', delete crumpled notes with 'dream forget', "
               "finish with 'dream end'")


def _project(app: App, project: str | None) -> tuple[str, str]:
    """(key, name) of PROJECT (a name or key known to a store) or the current project."""
    if project:
        key = next((k for s in app.stores.all() for k in [s.project_key_for_name(project)] if k),
                   None)
        if key is None:
            raise NotManaged(f"no store knows a project named '{project}'",
                             "run 'dream init' in its repository, or see 'dream stores list'")
        return key, project_name_for(app, key, project)
    current = app.project()
    return current.key, project_name_for(app, current.key, current.name)


def _open_dream(app: App, project: str | None = None) -> DreamSession:
    store = app.notes_store()
    _key, name = _project(app, project)
    dream = DreamSession.open(store, app.db, name, owner=CLI_OWNER)
    if dream is None:
        path = lock_path(store.path, name)
        info = read_lock(path)
        if info is not None:
            raise LockHeld(f"the dream over '{name}' belongs to {info.get('owner')}"
                           f" (lock {path})", "end it from that process")
        raise NoDream(f"no dream is open over '{name}'", "start one with 'dream begin'")
    return dream


@click.command()
@click.argument("address")
@json_option
def forget(address: str, as_json: bool) -> None:
    """Delete a crumpled note for good (inside the open dream; committed by 'dream end')."""
    dream = _open_dream(get_app())
    rel = dream.forget(address)
    if as_json:
        emit_json({"address": "@" + rel, "path": rel, "pending": True, "run_id": dream.run_id})
    else:
        click.echo(f"forgot @{rel} (committed by 'dream end')")


@click.command()
@click.argument("project", required=False)
@json_option
def end(project: str | None, as_json: bool) -> None:
    """Commit the open dream's changes as one commit and release its lock."""
    dream = _open_dream(get_app(), project)
    files = dream.pending_files()
    sha = dream.end()
    result = {"run_id": dream.run_id, "project": dream.project_name, "commit": sha,
              "files": files, "lock_released": True}
    if as_json:
        emit_json(result)
    else:
        click.echo(f"dream {dream.run_id} ended: " +
                   (f"{len(files)} files in commit {sha[:12]}" if sha else "no changes"))


@click.command()
@click.argument("commit_or_run")
@json_option
def revert(commit_or_run: str, as_json: bool) -> None:
    """Roll back a commit, or every commit of a run (Dream-Run trailer), with git revert."""
    app = get_app()
    app.home.require()
    locks = held_locks(app.home.notes_path)
    if locks:
        raise LockHeld(f"a dream is open (lock {locks[0]})",
                       "end it with 'dream end' before reverting")
    stores = app.stores.all()
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
    if not targets:
        raise UnknownCommit(f"'{commit_or_run}' is neither a run with commits nor a commit "
                            "in any store", "give a run id from 'git log' trailers "
                            "(Dream-Run) or a commit sha")
    for store, _shas in targets:
        dirty = store.repo.changed_files()
        if dirty:  # git revert would stage them, and a failed revert would reset them away
            raise StoreError(
                f"store '{store.name}' has {len(dirty)} uncommitted change(s), e.g. {dirty[0]}",
                "commit them first ('dream begin' then 'dream end' commits a project's pending "
                "edits) or remove them, then revert")
    done = []
    for store, shas in targets:
        for sha in shas:  # newest first
            new = store.repo.revert(sha, trailers={"Dream-Pass": "revert",
                                                   "Dream-Store": store.id})
            done.append({"store_id": store.id, "reverted": sha, "commit": new})
        index.sync(app.db, store)
    # a reverted review promotion is no longer 'accepted': the proposal says so
    reverted = mark_reverted(app.db, {d["reverted"]: d["commit"] for d in done}, utcnow())
    if as_json:
        emit_json({"target": commit_or_run, "reverts": done, "proposals_reverted": reverted})
    else:
        for item in done:
            click.echo(f"reverted {item['reverted'][:12]} -> {item['commit'][:12]}")
