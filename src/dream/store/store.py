"""A Store: a git repository of Markdown documents with ``.dream/store.toml``.

``store.toml`` holds the store's id, name and scope, and the projects it manages:

    id = "4c1f..."
    name = "notes"
    scope = "user"            # user | project | shared

    [projects."dream-1a2b3c4d"]
    name = "dream"
    primary = true
"""

from __future__ import annotations

import tomllib
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from dream.errors import StoreError
from dream.store.git import Repo

SCOPES = ("user", "project", "shared")
STORE_FILE = Path(".dream") / "store.toml"
# Dream locks live in the notes home but are never versioned.
IGNORED = (".dream.lock.*",)


def ensure_gitignore(path: Path) -> None:
    """Make sure the store's ``.gitignore`` ignores Dream's lock files."""
    target = Path(path) / ".gitignore"
    text = target.read_text(encoding="utf-8") if target.exists() else ""
    missing = [p for p in IGNORED if p not in text.splitlines()]
    if missing:
        sep = "" if not text or text.endswith("\n") else "\n"
        target.write_text(text + sep + "\n".join(missing) + "\n", encoding="utf-8")


@dataclass
class Store:
    path: Path
    id: str
    name: str
    scope: str
    projects: dict[str, dict[str, Any]] = field(default_factory=dict)
    remote: str | None = None

    @property
    def repo(self) -> Repo:
        repo = self.__dict__.get("_repo")
        if repo is None:
            repo = Repo(self.path)
            self.__dict__["_repo"] = repo
        return repo

    # -- loading and creating -------------------------------------------------------------
    @classmethod
    def load(cls, path: Path) -> "Store":
        path = Path(path)
        meta_path = path / STORE_FILE
        try:
            meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise StoreError(
                f"{path} is not a Dream store (no {STORE_FILE})",
                "attach it with 'dream stores attach PATH' or check the path in config.toml",
            ) from exc
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
            why = "nested too deeply" if isinstance(exc, RecursionError) else exc
            raise StoreError(f"{meta_path} is not valid TOML ({why})", "fix or restore it") from exc
        scope = meta.get("scope", "user")
        if scope not in SCOPES or "id" not in meta:
            raise StoreError(f"{meta_path} has no valid id/scope", "fix or restore it")
        return cls(
            path=path,
            id=str(meta["id"]),
            name=str(meta.get("name", path.name)),
            scope=scope,
            projects=dict(meta.get("projects", {})),
            remote=meta.get("remote"),
        )

    @classmethod
    def create(cls, path: Path, name: str, scope: str = "user") -> "Store":
        """Make ``path`` a store (initialising git when needed) and commit store.toml."""
        if scope not in SCOPES:
            raise StoreError(f"unknown scope '{scope}'", f"use one of {', '.join(SCOPES)}")
        if (Path(path) / STORE_FILE).exists():
            return cls.load(path)
        repo = Repo.init(Path(path))
        store = cls(path=Path(path), id=uuid.uuid4().hex, name=name, scope=scope)
        ensure_gitignore(Path(path))
        store.save(commit=False)
        # only Dream's own files: a repository attached as a store keeps its other
        # uncommitted work out of this commit
        repo.commit_files("Create Dream store", [STORE_FILE.as_posix(), ".gitignore"],
                          trailers={"Dream-Store": store.id})
        return store

    def save(self, commit: bool = True, subject: str = "Update store settings") -> None:
        meta: dict[str, Any] = {"id": self.id, "name": self.name, "scope": self.scope}
        if self.remote:
            meta["remote"] = self.remote
        if self.projects:
            meta["projects"] = self.projects
        target = self.path / STORE_FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(tomli_w.dumps(meta), encoding="utf-8")
        if commit:
            # only store.toml: an open dream's edits in the work tree are not swept in
            self.repo.commit_files(subject, [STORE_FILE.as_posix()],
                                   trailers={"Dream-Store": self.id})

    # -- projects -------------------------------------------------------------------------
    def manages(self, project_key: str) -> bool:
        return project_key in self.projects

    def is_primary_for(self, project_key: str) -> bool:
        return bool(self.projects.get(project_key, {}).get("primary"))

    def add_project(self, key: str, name: str, primary: bool) -> None:
        self.projects[key] = {"name": name, "primary": primary}

    def project_name(self, key: str) -> str | None:
        entry = self.projects.get(key)
        return entry.get("name") if entry else None

    def project_key_for_name(self, name: str) -> str | None:
        """The key of the project named or keyed ``name``; names are made lower case
        ('M-Claude' becomes 'm-claude'), so a name in another case finds it too when only
        one project matches that way."""
        for key, entry in self.projects.items():
            if entry.get("name") == name or key == name:
                return key
        folded = name.casefold()
        loose = [key for key, entry in self.projects.items()
                 if str(entry.get("name") or "").casefold() == folded or key.casefold() == folded]
        return loose[0] if len(loose) == 1 else None

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "scope": self.scope, "path": str(self.path)}
