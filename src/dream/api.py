"""Dream's public Python API for consumers: discover, search, read, snapshot.

Every function answers about the repository at ``path`` (default: the current directory)
and the home at ``home`` (default: ``DREAM_HOME``). Only the Primary Store of that
repository is ever searched; there is no fallback to another store. A store that cannot be
read (a broken ``store.toml``, git failing) raises :class:`dream.errors.StoreError` or
:class:`dream.errors.GitFailed`; it never turns into empty results.

    from dream import api
    found = api.discover()
    if found.ok:
        snap = api.snapshot("make the importer resumable")
        for doc in snap.documents:
            print(doc.path, doc.commit, doc.sha256, doc.authority)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from dream import index
from dream.app import App
from dream.errors import (
    BadInput,
    DreamError,
    NoHome,
    NoteNotFound,
    NotInitialised,
    NotManaged,
    StoreError,
)
from dream.home import Home
from dream.index import Hit
from dream.index.query import require_words
from dream.notes.address import document_path
from dream.store.document import decode, sha256
from dream.store.store import Store

__all__ = [
    "AUTHORITIES",
    "Discovery",
    "Document",
    "DreamError",
    "Hit",
    "Snapshot",
    "SnapshotDocument",
    "StoreInfo",
    "discover",
    "read",
    "search",
    "snapshot",
]

DiscoveryStatus = Literal["ok", "no_home", "not_initialised", "not_managed"]
AUTHORITIES = ("advisory", "binding", "skipped")
MAX_LIMIT = 100


@dataclass(frozen=True)
class StoreInfo:
    id: str
    name: str
    scope: str
    path: str

    @classmethod
    def of(cls, store: Store) -> StoreInfo:
        return cls(store.id, store.name, store.scope, str(store.path))


@dataclass(frozen=True)
class Discovery:
    status: DiscoveryStatus
    home: str
    project_key: str | None
    project_name: str | None
    store: StoreInfo | None
    message: str

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Document:
    """A document's exact bytes at one commit of one store."""

    store_id: str
    store_name: str
    scope: str
    commit: str
    path: str
    sha256: str
    data: bytes

    @property
    def content(self) -> str:
        return decode(self.data, f"{self.path} at {self.commit[:12]}")

    def as_dict(self) -> dict[str, Any]:
        return {"store_id": self.store_id, "store_name": self.store_name, "scope": self.scope,
                "commit": self.commit, "path": self.path, "sha256": self.sha256,
                "content": self.content}


@dataclass(frozen=True)
class SnapshotDocument:
    store_id: str
    store_name: str
    scope: str
    commit: str
    path: str
    title: str
    score: float
    sha256: str
    authority: str
    content: str


@dataclass(frozen=True)
class Snapshot:
    """An immutable record of what one bounded search selected, read at exact commits."""

    objective: str
    created_at: str
    project_key: str
    store: StoreInfo
    max_docs: int
    max_chars: int
    total_chars: int
    documents: tuple[SnapshotDocument, ...]
    omitted: tuple[dict[str, str], ...]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@contextmanager
def _app(path: str | Path | None, home: str | Path | None) -> Iterator[App]:
    app = App(Home(Path(home).expanduser().resolve()) if home else Home.from_env(),
              Path(path).resolve() if path else Path.cwd())
    try:
        yield app
    finally:
        app.close()


def _discover(app: App) -> tuple[Discovery, Store | None]:
    root = str(app.home.root)
    app.home.check_folder()         # a home path that is a file: named, not "no home"
    if not app.home.exists():
        return Discovery("no_home", root, None, None, None,
                         f"no Dream home at {root}; run 'dream init' in the repository"), None
    project = app.current_project()  # a broken store raises: surfaced, never skipped
    primary = project.store
    if primary is not None:
        name = project.name
        return Discovery("ok", root, project.key, name, StoreInfo.of(primary),
                         f"project {name} is managed by store '{primary.name}'"), primary
    if any(s.manages(project.key) for s in app.stores.all()):
        return Discovery("not_managed", root, project.key, None, None,
                         f"project {project.key} is known but no store is primary for it; "
                         "run 'dream init' (optionally with --store) in the repository"), None
    where = "repository" if app.project().in_git else "folder"   # (outside git: a folder)
    return Discovery("not_initialised", root, project.key, None, None,
                     f"{where} {project.root} is not initialised; run 'dream init' in it"
                     ), None


def _require(app: App) -> tuple[Discovery, Store]:
    found, store = _discover(app)
    if store is not None:
        return found, store
    # the discovery message already says how to fix it: no second hint
    if found.status == "no_home":
        raise NoHome(found.message)
    if found.status == "not_managed":
        raise NotManaged(found.message)
    raise NotInitialised(found.message)


def discover(path: str | Path | None = None, *, home: str | Path | None = None) -> Discovery:
    """Which store manages the repository at ``path``: a status, never a fallback."""
    with _app(path, home) as app:
        return _discover(app)[0]


def _search(app: App, store: Store, project_key: str | None, query: str, limit: int,
            offset: int = 0) -> list[Hit]:
    """What ``dream search`` runs: the index brought up to HEAD, then one ranked search
    (``offset`` skips the best hits already shown, for a page of results)."""
    if not isinstance(limit, int) or limit < 1 or limit > MAX_LIMIT:
        raise BadInput(f"limit must be between 1 and {MAX_LIMIT}", "for example --limit 8")
    require_words(query)            # the one check every search shares
    index.sync(app.db, store)
    budget = app.config.get("search", "score_budget")
    if budget is not None and (not isinstance(budget, int) or budget < 0):
        raise BadInput(f"search.score_budget in {app.config.path} must be a whole number >= 0",
                       "set it to 0 (exact ranking) or a number of documents, e.g. 10000")
    return index.search(app.db, store, query, limit=limit, project_key=project_key,
                        score_budget=budget, offset=offset)


def search(query: str, *, path: str | Path | None = None, limit: int = 8,
           home: str | Path | None = None) -> list[Hit]:
    """One bounded search of the repository's Primary Store, best first."""
    with _app(path, home) as app:
        found, store = _require(app)
        return _search(app, store, found.project_key or "", query, limit)


def _read(store: Store, doc_path: str, commit: str) -> Document:
    rel = document_path(doc_path)
    repo = store.repo
    repo.require_head()
    sha = repo.resolve(commit)
    data = repo.read_at(sha, rel)
    if data is None:
        raise NoteNotFound(f"no document '{rel}' at commit {sha[:12]} of store '{store.name}'",
                           "check the path with 'dream search' or 'git ls-tree'")
    return Document(store.id, store.name, store.scope, sha, rel, sha256(data), data)


def read(doc_path: str, commit: str = "HEAD", *, store_id: str | None = None,
         path: str | Path | None = None, home: str | Path | None = None) -> Document:
    """The exact bytes of ``doc_path`` at ``commit`` of a store (by id, or the Primary Store
    of the repository at ``path``)."""
    with _app(path, home) as app:
        if store_id is not None:
            app.home.require()
            store = app.stores.by_id(store_id)
        else:
            store = _require(app)[1]
        return _read(store, doc_path, commit)


def build_snapshot(app: App, objective: str, max_docs: int = 8, max_chars: int = 64_000,
                   authority: str | Callable[[Hit], str] = "advisory") -> Snapshot:
    if not objective or not objective.strip():
        raise BadInput("the objective is empty", "describe the goal in a few words")
    if max_docs < 1 or max_docs > 8:
        raise BadInput("max-docs must be between 1 and 8", "for example --max-docs 4")
    if max_chars < 1 or max_chars > 64_000:
        raise BadInput("max-chars must be between 1 and 64000", "for example --max-chars 32000")
    if isinstance(authority, str) and authority not in AUTHORITIES[:2]:
        raise BadInput(f"authority '{authority}' is not advisory or binding",
                       "use --authority advisory or --authority binding")
    found, store = _require(app)
    hits = _search(app, store, found.project_key or "", objective, max_docs)
    documents: list[SnapshotDocument] = []
    omitted: list[dict[str, str]] = []
    total = 0
    for hit in hits:
        label = authority(hit) if callable(authority) else authority
        if label not in AUTHORITIES:
            raise BadInput(f"authority '{label}' for {hit.path} is not one of "
                           f"{', '.join(AUTHORITIES)}", "return advisory, binding or skipped")
        if label == "skipped":
            omitted.append({"path": hit.path, "reason": "skipped"})
            continue
        doc = _read(store, hit.path, hit.commit)
        if doc.sha256 != hit.sha256:
            raise StoreError(f"the index disagrees with {hit.path} at {hit.commit[:12]}",
                             "rebuild it with 'dream reindex --force'")
        content = doc.content
        if total + len(content) > max_chars:
            omitted.append({"path": hit.path, "reason": "max_chars"})
            continue
        total += len(content)
        documents.append(SnapshotDocument(hit.store_id, hit.store_name, hit.scope, hit.commit,
                                          hit.path, hit.title, hit.score, hit.sha256, label,
                                          content))
    return Snapshot(objective, datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    found.project_key or "", StoreInfo.of(store), max_docs, max_chars, total,
                    tuple(documents), tuple(omitted))


def snapshot(objective: str, *, path: str | Path | None = None, max_docs: int = 8,
             max_chars: int = 64_000, authority: str | Callable[[Hit], str] = "advisory",
             home: str | Path | None = None) -> Snapshot:
    """One bounded search with ``objective``, then each selected document read at the exact
    commit the search returned; at most ``max_docs`` documents and ``max_chars`` characters.
    ``authority`` is a label (advisory, binding) or a function choosing one per hit
    (returning ``skipped`` leaves a hit out)."""
    with _app(path, home) as app:
        return build_snapshot(app, objective, max_docs, max_chars, authority)
