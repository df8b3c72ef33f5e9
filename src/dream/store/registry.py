"""All stores known to a home (the notes home plus attached stores), and the one rule that
says which project a command works on and what it is called."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dream.config import Config
from dream.errors import BadInput, NotManaged, StoreError
from dream.home import Home
from dream.store.lock import write_lock
from dream.store.project import ProjectId
from dream.store.store import STORE_FILE, Store


@dataclass(frozen=True)
class Project:
    """The project a command works on: its key, its name in ``@projects/<name>/``
    addresses, its Primary Store (None while no store is primary for it) and the work tree
    it was resolved from (None for a project named on the command line elsewhere)."""

    key: str
    name: str
    store: Store | None
    root: Path | None
    in_git: bool = True

    @property
    def managed(self) -> bool:
        return self.store is not None

    def require_store(self) -> Store:
        if self.store is None:
            raise NotManaged(f"no store is primary for project {self.key}",
                             "run 'dream init' in the repository")
        return self.store


def load_attached(path: Path) -> Store:
    """An attached store; one whose folder is gone names the way to go on without it."""
    try:
        return Store.load(path)
    except (StoreError, NotADirectoryError) as exc:
        if (path / STORE_FILE).exists():
            raise                   # there but broken: its own message says what to fix
        # moved, deleted, on a drive not mounted, or a file now (a config edited by hand)
        what = "is a file, not a store's folder" if path.is_file() else \
            f"is gone (no {STORE_FILE} there)"
        raise StoreError(f"attached store {path} {what}",
                         f"put it back, or forget it with 'dream stores detach {path}'") from exc


@dataclass
class Stores:
    home: Home
    config: Config

    def notes_home(self) -> Store:
        return Store.load(self.home.notes_path)

    def all(self) -> list[Store]:
        return [self.notes_home(), *map(load_attached, self.config.store_paths)]

    def by_id(self, store_id: str) -> Store:
        for store in self.all():
            if store.id == store_id or store.name == store_id:
                return store
        raise StoreError(f"no store with id or name '{store_id}'", "list stores with 'dream stores list'")

    def primary_for(self, project_key: str) -> Store | None:
        """The store marked primary for the project, or None. Never a fallback."""
        for store in self.all():
            if store.is_primary_for(project_key):
                return store
        return None

    def require_primary(self, project_key: str) -> Store:
        store = self.primary_for(project_key)
        if store is None:
            raise NotManaged(
                f"no store manages project {project_key}",
                "run 'dream init' in the repository",
            )
        return store

    def name_of(self, key: str, stores: list[Store] | None = None) -> str | None:
        """The project's name: the Primary Store's entry, else the first store that lists
        the key. One rule for every front end, so a lock or an address never depends on
        which command asked."""
        stores = self.all() if stores is None else stores
        primary = next((s for s in stores if s.is_primary_for(key)), None)
        for store in ([primary] if primary else []) + stores:
            name = store.project_name(key)
            if name:
                return name
        return None

    def project(self, here: ProjectId, wanted: str | None = None) -> Project:
        """The current project (``here``), or the one ``wanted`` names (a key or a name a
        store knows). An unknown ``wanted`` raises NotManaged."""
        stores = self.all() if self.home.exists() else []
        if wanted:
            key = next((k for s in stores for k in [s.project_key_for_name(wanted)] if k),
                       None)
            if key is None:
                raise NotManaged(f"no store knows a project named '{wanted}'",
                                 "run 'dream init' in its repository, or see "
                                 "'dream stores list'")
            primary = next((s for s in stores if s.is_primary_for(key)), None)
            root = here.root if here.key == key else None
            return Project(key, self.name_of(key, stores) or wanted, primary, root,
                           here.in_git if root else True)
        primary = next((s for s in stores if s.is_primary_for(here.key)), None)
        return Project(here.key, self.name_of(here.key, stores) or here.name, primary,
                       here.root, here.in_git)

    def attach(self, path: Path, name: str | None, scope: str, remote: str | None = None,
               create: bool = False) -> Store:
        """Attach the git repository at ``path`` (made a store if it is not one). A missing
        folder is refused unless ``create``: a typo never makes a repository silently."""
        path = Path(path).expanduser().resolve()
        if not path.exists() and not create:
            raise BadInput(f"{path} does not exist",
                           "check the path, or pass --create to make a new store there")
        if path.exists() and not path.is_dir():
            raise BadInput(f"{path} is not a folder", "give the folder of a git repository")
        if path.exists() and not create and not (path / ".git").exists() and \
                not (path / STORE_FILE).exists():
            # never 'git init' and commit in a folder someone named by mistake (~, /etc)
            raise BadInput(f"{path} is not a git repository",
                           "give a clone of the store, or pass --create to make this folder "
                           "a new store (git init there)")
        store = Store.create(path, name or path.name, scope)
        if remote and not store.remote:
            # a store write like any other: under its write lock, on store.toml as it is
            # now (saved from the copy read before, it dropped a project 'dream init' had
            # just added, and its commit raced a run's)
            with write_lock(store.path, "dream stores attach"):
                store = Store.load(store.path)
                if not store.remote:
                    store.remote = remote
                    store.save(subject="Record team remote")
        self._change_config("dream stores attach", lambda config: config.add_store(path))
        return store

    def _change_config(self, what: str, change: Callable[[Config], object]) -> None:
        """Apply ``change`` to config.toml as it is on disk now, under the notes home's
        write lock, and save it. Saved from the copy read when the command began, two
        'dream stores attach' at once kept one store of the two (six at once kept one of
        six): each wrote the list it had read, without the other's entry."""
        with write_lock(self.home.notes_path, what):
            fresh = Config.load(self.config.path)
            change(fresh)
            fresh.save()
        self.config.data = fresh.data

    def _gone(self, named: str) -> Path | None:
        """The attached path ``named`` (as written in config.toml or as a path) when no
        store is there any more."""
        for path in self.config.store_paths:
            if named in (str(path), str(path).rstrip("/")) or \
                    Path(named).expanduser().resolve() == path.resolve():
                return None if (path / STORE_FILE).exists() else path
        return None

    def detach(self, store_id: str, force: bool = False) -> Store:
        """Forget an attached store (id or name); its files and history stay where they are.
        The notes home cannot be detached; a store that is some project's Primary Store only
        with ``force`` (that project is then not managed until 'dream init'). A store whose
        folder is gone is named by its path and forgotten as it is."""
        gone = self._gone(store_id)
        if gone is not None:
            self._change_config("dream stores detach",
                                lambda config: config.remove_store(gone))
            return Store(path=gone, id="", name=gone.name, scope="shared")
        store = self.by_id(store_id)
        if store.path == self.notes_home().path:
            raise BadInput("the notes home cannot be detached",
                           "detach an attached store (see 'dream stores list')")
        primary = sorted(entry.get("name") or key for key, entry in store.projects.items()
                         if entry.get("primary"))
        if primary and not force:
            raise BadInput(f"store '{store.name}' is the Primary Store of {', '.join(primary)}",
                           "run 'dream init' there to make another store primary, or pass "
                           "--force")
        self._change_config("dream stores detach",
                            lambda config: config.remove_store(store.path))
        return store
