"""The application context that entry points build once: home, config, database, stores.

Library code takes what it needs from an ``App`` (or its parts); only entry points call
:meth:`App.from_env`.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from dream import db
from dream.config import Config
from dream.home import Home
from dream.store.lock import write_lock
from dream.store.project import ProjectId, identify
from dream.store.registry import Project, Stores
from dream.store.store import Store


@dataclass
class App:
    home: Home
    cwd: Path = field(default_factory=Path.cwd)

    @classmethod
    def from_env(cls, cwd: Path | None = None) -> "App":
        return cls(Home.from_env(), cwd or Path.cwd())

    @cached_property
    def config(self) -> Config:
        return Config.load(self.home.config_path)

    @cached_property
    def db(self) -> sqlite3.Connection:
        self.home.require()
        return db.connect(self.home.db_path)

    @cached_property
    def stores(self) -> Stores:
        return Stores(self.home, self.config)

    def notes_store(self) -> Store:
        self.home.require()
        return self.stores.notes_home()

    def project(self, path: Path | None = None) -> ProjectId:
        """The identity of the repository (or folder) at ``path``; see current_project."""
        return identify(path or self.cwd)

    def current_project(self, wanted: str | None = None) -> Project:
        """The project a command works on: key, name, Primary Store, root (one rule)."""
        return self.stores.project(self.project(), wanted)

    def ensure_home(self) -> Store:
        """Create the home, its config, database and notes home when missing."""
        self.home.check_folder()
        self.home.root.mkdir(parents=True, exist_ok=True)
        store = Store.create(self.home.notes_path, "notes", "user")
        if not self.home.config_path.exists():
            # under the notes home's write lock, as every config.toml write: a 'dream init'
            # that found no config wrote the defaults over the stores another command had
            # attached meanwhile
            with write_lock(self.home.notes_path, "dream init"):
                if not self.home.config_path.exists():
                    self.config.save()
        db.connect(self.home.db_path).close()
        return store

    def close(self) -> None:
        if "db" in self.__dict__:
            self.__dict__["db"].close()
