"""Project identity: a stable key per repository, shared by its linked worktrees."""

from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from dream.secrets import redact, strip_placeholders

_NAME_RE = re.compile(r"[^a-z0-9._-]+")


@dataclass(frozen=True)
class ProjectId:
    key: str            # '<name>-<8 hex>': stable across worktrees of one repository
    name: str           # readable name used in note addresses (@projects/<name>/...)
    root: Path          # work tree (or folder) the command ran in
    in_git: bool        # False when derived from a plain folder
    common_dir: Path | None  # the git common dir the key was derived from


def slug(text: str) -> str:
    """A readable name; a secret in a folder name is left out (the key's hash is made
    from the raw path, so two such folders still differ)."""
    out = _NAME_RE.sub("-", strip_placeholders(redact(text)[0]).lower()).strip("-.")
    return out[:48] or "project"


def _git(cwd: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.strip()


def identify(path: Path) -> ProjectId:
    """Identify the project at ``path``.

    In a git repository the key comes from the *common* git dir, so a linked worktree
    (``git worktree add``) gets the same key as its main checkout. Outside git the key is
    derived from the folder itself.
    """
    path = Path(path).resolve()
    # one git process for both answers (every command identifies its project); a bare
    # repository has no top level, so it is asked for the common dir alone
    both = _git(path, "rev-parse", "--path-format=absolute", "--git-common-dir",
                "--show-toplevel")
    lines = both.splitlines() if both else []
    common, top = (lines[0], lines[1]) if len(lines) == 2 else \
        (_git(path, "rev-parse", "--path-format=absolute", "--git-common-dir"), None)
    if common:
        common_dir = Path(common).resolve()
        # the main checkout is the parent of a '.git' common dir; bare repos use the dir name
        main_root = common_dir.parent if common_dir.name == ".git" else common_dir
        name = slug(main_root.name.removesuffix(".git"))
        digest = hashlib.sha256(str(common_dir).encode()).hexdigest()[:8]
        return ProjectId(f"{name}-{digest}", name, Path(top) if top else path, True, common_dir)
    name = slug(path.name)
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
    return ProjectId(f"{name}-{digest}", name, path, False, None)
