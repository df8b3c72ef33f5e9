"""All stores known to a home: the notes home plus attached stores."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dream.config import Config
from dream.errors import BadInput, NotManaged, StoreError
from dream.home import Home
from dream.store.store import Store


@dataclass
class Stores:
    home: Home
    config: Config

    def notes_home(self) -> Store:
        return Store.load(self.home.notes_path)

    def all(self) -> list[Store]:
        stores = [self.notes_home()]
        for path in self.config.store_paths:
            stores.append(Store.load(path))
        return stores

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

    def attach(self, path: Path, name: str | None, scope: str, remote: str | None = None,
               create: bool = False) -> Store:
        """Attach the git repository at ``path`` (made a store if it is not one). A missing
        folder is refused unless ``create``: a typo never makes a repository silently."""
        path = Path(path).expanduser().resolve()
        if not path.exists() and not create:
            raise BadInput(f"{path} does not exist",
                           "check the path, or pass --create to make a new store there")
        store = Store.create(path, name or path.name, scope)
        if remote and not store.remote:
            store.remote = remote
            store.save(subject="Record team remote")
        self.config.add_store(path)
        self.config.save()
        return store

    def detach(self, store_id: str, force: bool = False) -> Store:
        """Forget an attached store (id or name); its files and history stay where they are.
        The notes home cannot be detached; a store that is some project's Primary Store only
        with ``force`` (that project is then not managed until 'dream init')."""
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
        self.config.remove_store(store.path)
        self.config.save()
        return store
