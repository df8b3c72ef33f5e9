"""search, show, context, reindex, begin, forget, end, revert."""

from __future__ import annotations

import sys

import click

from dream import api, index
from dream.app import App
from dream.cli.common import emit_json, get_app, json_option
from dream.errors import NoDream
from dream.notes.dreaming import CLI_OWNER, DreamSession, lock_held_error, lock_path, read_lock
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
    for rank, hit in enumerate(hits, 1):   # bm25 scores are near 0 in a small store
        click.echo(f"{rank:>3}. {hit.path}  {hit.title}  [{hit.commit[:12]}]")
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
    from dream.core import notes as core_notes

    dream = core_notes.begin(get_app(), project, CLI_OWNER, session_id)
    notes = dream.notes()
    name = dream.project_name
    result = {"run_id": dream.run_id, "project": name, "project_key": dream.project_key,
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


def _open_dream(app: App, project: str | None = None) -> DreamSession:
    store = app.notes_store()
    name = app.current_project(project).name
    dream = DreamSession.open(store, app.db, name, owner=CLI_OWNER)
    if dream is None:
        path = lock_path(store.path, name)
        info = read_lock(path)
        if info is not None:
            raise lock_held_error(path, info)
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
    from dream.core.notes import end as end_dream

    app = get_app()
    dream = _open_dream(app, project)
    files = dream.pending_files()
    sha = end_dream(app, dream)
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
    from dream.core.revert import revert as revert_use_case

    done = revert_use_case(get_app(), commit_or_run)
    if as_json:
        emit_json(done.as_dict())
    else:
        for item in done.reverts:
            click.echo(f"reverted {item['reverted'][:12]} -> {item['commit'][:12]}")
        for run_id in done.runs_reverted:
            click.echo(f"run {run_id} is now marked reverted ('dream runs show {run_id}')")
