"""The notes service for the current project, with the dream open over it (if any)."""

from __future__ import annotations

from dataclasses import dataclass

from dream.app import App
from dream.notes.dreaming import CLI_OWNER, DreamSession
from dream.notes.service import NotesService
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
    current = app.current_project(project)
    return DreamSession.begin(app.notes_store(), app.db, current.key, current.name, owner,
                              session_id=session_id)
