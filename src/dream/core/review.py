"""Review decisions as use-cases: accept and reject proposals under the store write lock.

Accepting promotes a memory proposal as a commit in its target store. Two accepts at once
(two CLI processes, the CLI and ``dream serve``, two ``serve`` processes) are serialised by
the write locks of the stores a promotion can write (the notes home and the project's
Primary Store); the proposal's status is read again under them, so of two accepts of one
proposal one commits and the other is refused as already accepted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dream.app import App
from dream.review import service
from dream.store.lock import write_locks


def _review_stores(app: App) -> list[Path]:
    app.home.require()
    return [s.path for s in app.stores.all()]


def accept(app: App, slugs: list[str], run_id: str | None = None) -> list[dict[str, Any]]:
    with write_locks(_review_stores(app), "dream review accept"):
        return service.accept(app, slugs, run_id)


def reject(app: App, slugs: list[str], why: str | None = None,
           run_id: str | None = None) -> list[dict[str, Any]]:
    with write_locks(_review_stores(app), "dream review reject"):
        return service.reject(app, slugs, why, run_id)
