"""The notes service for the current project, with the dream open over it (if any)."""

from __future__ import annotations

from dataclasses import dataclass

from dream.app import App
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
    service = NotesService(store, app.db, project_key=current.key, dream=dream)
    return NotesContext(store, current, dream, service)


def begin(app: App, project: str | None, owner: str, session_id: str | None = None
          ) -> DreamSession:
    """Open a dream over PROJECT (a name or key a store knows) or the current project."""
    app.home.require()
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
