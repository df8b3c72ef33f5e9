"""The notes service for the current project, with the dream open over it (if any)."""

from __future__ import annotations

from dataclasses import dataclass

from dream.app import App
from dream.core.dreams import scopes_for
from dream.errors import BadInput, NotManaged
from dream.notes.dreaming import CLI_OWNER, DreamSession
from dream.notes.service import NoteChange, NotesService
from dream.store.registry import Project
from dream.store.store import Store


@dataclass
class NotesContext:
    store: Store
    project: Project
    dream: DreamSession | None
    service: NotesService

    @property
    def project_name(self) -> str:
        return self.project.name


def notes_context(app: App, owner: str = CLI_OWNER, dream: DreamSession | None = None
                  ) -> NotesContext:
    """The notes home, the current project and the dream ``owner`` holds over it (the
    command line's own open dream by default; a long-lived process passes its own)."""
    store = app.notes_store()
    current = app.current_project()
    if dream is None and owner == CLI_OWNER:
        dream = DreamSession.open(store, app.db, current.name, owner=CLI_OWNER)
    service = NotesService(store, app.db, project_key=current.key, dream=dream,
                           brief=lambda relpath, data: brief_with(app, relpath, data),
                           projects=lambda: known_projects(app))
    return NotesContext(store, current, dream, service)


def known_projects(app: App) -> dict[str, str]:
    """Every project a store knows, by name: name -> key."""
    return {str(entry["name"]): key for store in app.stores.all()
            for key, entry in store.projects.items() if entry.get("name")}


def brief_with(app: App, relpath: str, data: bytes) -> tuple[str, bytes] | None:
    """The brief of the scope a note in the notes home belongs to, re-rendered with the
    note as ``data``, so the note and the brief that shows it are one commit (see
    :func:`brief_after`)."""
    return brief_after(app, {relpath: data})


def brief_after(app: App, changes: dict[str, bytes | None]) -> tuple[str, bytes] | None:
    """The brief of the scope the changed notes in the notes home belong to (one scope:
    ``projects/<name>`` or ``user``), re-rendered from HEAD with the changes (a path's new
    bytes, or None for a note removed): (path, bytes), or None when no brief in the notes
    home shows these notes (session notes, records a run keys, a project whose Primary
    Store is another store), when the scope has no brief yet (its first run renders one),
    or when the brief would not change. A brief shows its scope's live written notes
    (:func:`dream.pipeline.render.sections`)."""
    from dream.errors import DreamError
    from dream.pipeline.answers import address_project
    from dream.pipeline.render import render_brief
    from dream.pipeline.state import load_state, written_note

    if not changes:
        return None
    first = next(iter(changes))
    try:
        scopes, _key = scopes_for(app, address_project("@" + first))
    except DreamError:
        return None
    notes = app.notes_store()
    scope = next((s for s in scopes if first.startswith(s.root + "/")
                  and s.store.path.resolve() == notes.path.resolve()), None)
    if scope is None:
        return None
    head = notes.repo.head()
    state = None
    for relpath, data in changes.items():
        if not relpath.startswith(scope.root + "/"):
            continue
        rel = relpath[len(scope.root) + 1:]
        note = written_note(rel, data) if data is not None else None
        if data is not None and note is None:
            continue                        # a record, the brief, not Markdown: not shown
        if state is None:
            state = load_state(scope, head)
        if note is None:
            state.written.pop(rel, None)
        else:
            state.add_written(note)
    path = f"{scope.root}/brief.md"
    current = notes.repo.read_at(head, path) if head and state is not None else None
    if current is None:         # no brief yet, or nothing it shows: the first run renders it
        return None
    brief = render_brief(state, int(app.config.get("run", "brief_tokens", 2000)))
    data_out = brief.encode("utf-8")
    return None if data_out == current else (path, data_out)


def end(app: App, dream: DreamSession) -> str | None:
    """End ``dream``: one commit of its changes and its project's brief re-rendered with
    the written notes it changed; the lock is released. The commit, or None."""
    return dream.end(brief=lambda paths: brief_after(app, {
        p: (dream.store.path / p).read_bytes() if (dream.store.path / p).is_file() else None
        for p in paths}))


def _check_session_id(session_id: str) -> None:
    """The session a dream may write new notes for names the folder of @sessions/<id>/
    addresses: '../x' or '' was taken, and every new session note of that dream was then
    refused, since no address holds such a name."""
    from dream.errors import BadAddress
    from dream.notes.address import parse

    try:
        ok = parse(f"@sessions/{session_id}/note").owner == session_id
    except BadAddress:
        ok = False
    if not ok:
        raise BadInput(f"'{session_id[:80]}' cannot be a session id: it names the folder of "
                       "@sessions/<id>/ addresses",
                       "give the agent's session id (letters, digits, '-', '_', '.'), such "
                       "as 3af9b1a7-6512-4883-ad18-320658ced099")


def begin(app: App, project: str | None, owner: str, session_id: str | None = None
          ) -> DreamSession:
    """Open a dream over PROJECT (a name or key a store knows) or the current project."""
    app.home.require()
    if session_id is not None:
        _check_session_id(session_id)
    current = app.current_project(project)
    current.require_store()     # a folder no store manages has no memory to dream over
    return DreamSession.begin(app.notes_store(), app.db, current.key, current.name, owner,
                              session_id=session_id)


def crumple(app: App, address: str, owner: str = CLI_OWNER) -> NoteChange:
    """Crumple the note at ``address``. A note record a run wrote (kind ``note``, with
    per-field provenance) is crumpled by correcting its ``status``: evidence said now, so no
    older message revives it, and the brief drops it in the same commit. Any other note goes
    through the notes service (its front matter ``status``), inside ``owner``'s open dream
    if it has one."""
    from dream.core.dreams import correct, scope_of
    from dream.kinds.records import Record
    from dream.store.document import sha256

    record = None
    try:
        scope, relpath, _key = scope_of(app, address)
    except (BadInput, NotManaged):      # a session note, or a project no store manages
        pass
    else:
        head = scope.store.repo.head()
        data = scope.store.repo.read_at(head, relpath) if head else None
        record = Record.loads(data.decode("utf-8", "replace")) if data else None
    if record is None or record.kind != "note":
        return notes_context(app, owner).service.crumple(address)
    done = correct(app, address, "status", "crumpled")
    head = scope.store.repo.head()
    after = scope.store.repo.read_at(head, relpath) if head else None
    return NoteChange(address, relpath, "crumple", sha256(after) if after else None,
                      done.run.commit, False)
