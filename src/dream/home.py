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

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> "Home":
        env = os.environ if environ is None else environ
        raw = env.get(ENV_VAR)
        root = Path(raw).expanduser() if raw else Path.home() / ".dream"
        return cls(root.resolve() if root.exists() else root.absolute())

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

    def exists(self) -> bool:
        return self.config_path.exists() and self.notes_path.exists()

    def require(self) -> "Home":
        if not self.exists():
            raise NoHome(
                f"no Dream home at {self.root}",
                "run 'dream init' in a repository (or set DREAM_HOME to an existing home)",
            )
        return self
