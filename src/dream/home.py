"""The Dream home: one folder holding config, the database and the notes home.

Only entry points (CLI, MCP server, web page, ``dream.api``) call :func:`Home.from_env`;
library code receives a :class:`Home`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dream.errors import NoHome

ENV_VAR = "DREAM_HOME"


@dataclass(frozen=True)
class Home:
    root: Path
    relative: str | None = None    # DREAM_HOME as given, when it was a relative path

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> "Home":
        env = os.environ if environ is None else environ
        raw = env.get(ENV_VAR)
        root = Path(raw).expanduser() if raw else Path.home() / ".dream"
        return cls(root.resolve() if root.exists() else root.absolute(),
                   None if root.is_absolute() else raw)

    @property
    def config_path(self) -> Path:
        return self.root / "config.toml"

    @property
    def db_path(self) -> Path:
        return self.root / "dream.db"

    @property
    def notes_path(self) -> Path:
        """The notes home: a git repository and a Store."""
        return self.root / "notes"

    @property
    def exports_path(self) -> Path:
        """Accepted code or instruction proposals are exported here as work items."""
        return self.root / "exports"

    def check_folder(self) -> None:
        """A home path that is a file (or under one) can never be a home: say so. Nor can
        a relative DREAM_HOME ('.dream' in an env file): each folder a command, a hook or
        the MCP server ran in got a home of its own, 'dream init' made one inside the
        repository, and memory written in one was missing in the next."""
        if self.relative is not None:
            raise NoHome(f"{ENV_VAR} is a relative path ('{self.relative}'): every folder a "
                         f"command runs in would have a home of its own (here {self.root})",
                         f"set it to an absolute path, such as {ENV_VAR}=$HOME/.dream")
        for path in (self.root, *self.root.parents):
            if path.exists():
                if not path.is_dir():
                    raise NoHome(f"the Dream home {self.root} is not a folder ({path} is a file)",
                                 f"set {ENV_VAR} to a folder, or move {path} away")
                return

    def exists(self) -> bool:
        return self.config_path.exists() and self.notes_path.exists()

    def require(self) -> "Home":
        self.check_folder()
        if self.notes_path.exists() and not self.config_path.exists():
            # (a config.toml moved aside, as the error about a broken one suggests)
            raise NoHome(f"the Dream home {self.root} has no config.toml",
                         "put it back, or run 'dream init' in a repository to write a new one "
                         "(the notes and the database stay; attach again any store 'dream "
                         "stores attach' added)")
        if not self.exists():
            raise NoHome(
                f"no Dream home at {self.root}",
                "run 'dream init' in a repository (or set DREAM_HOME to an existing home)",
            )
        return self
