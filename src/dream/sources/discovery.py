"""Discovery: the agent transcripts on this machine that belong to a repository.

For every worktree of the repository (``git worktree list``: the main checkout and its
linked worktrees, which share one project key):

* Claude Code: ``$DREAM_CLAUDE_DIR`` (default ``~/.claude/projects``) holds one folder per
  working directory, named by the path with every character other than a letter or digit
  replaced by ``-``. The worktree's folder is taken, and so is any folder for a
  subdirectory of it (its name extends the worktree's) once a record in it names a
  working directory of the same project. Subagent files in ``<session>/subagents/`` come
  along.
* Pi: ``$DREAM_PI_DIR`` (default ``~/.pi/agent/sessions``) holds
  ``--<path without its leading / and with / \\ : as ->--/`` folders; same rule.
* Codex: ``$DREAM_CODEX_DIR`` (default ``~/.codex/sessions``) is organised by date, so
  every ``rollout-*.jsonl`` is matched by the ``cwd`` in its ``session_meta`` line (a
  folder missing on this machine also by its name or by the git remote recorded there).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from dream.sources.base import parse_json, project_key_for
from dream.store.project import ProjectId, folder_name, identify, normal_remote, remotes, slug

_CLAUDE_RE = re.compile(r"[^A-Za-z0-9]")

# the variable that points Dream at each agent's sessions (before the agent's own setting)
DIR_VARS = {"claude_code": "DREAM_CLAUDE_DIR", "pi": "DREAM_PI_DIR", "codex": "DREAM_CODEX_DIR"}


def roots(environ: dict[str, str] | None = None) -> dict[str, Path]:
    """Where each agent keeps its sessions: Dream's ``DREAM_*_DIR`` first, then the agent's
    own setting (``CLAUDE_CONFIG_DIR``, ``PI_CODING_AGENT_DIR``, ``CODEX_HOME``), then its
    default under the home folder."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or Path.home())
    claude = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    pi = Path(env["PI_CODING_AGENT_DIR"]) if env.get("PI_CODING_AGENT_DIR") \
        else home / ".pi" / "agent"
    codex = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
    defaults = {"claude_code": claude / "projects", "pi": pi / "sessions",
                "codex": codex / "sessions"}
    return {kind: Path(env.get(var) or defaults[kind]) for kind, var in DIR_VARS.items()}


def claude_folder(cwd: Path) -> str:
    return _CLAUDE_RE.sub("-", str(cwd))


def pi_folder(cwd: Path) -> str:
    text = str(cwd)
    text = text[1:] if text[:1] in ("/", "\\") else text
    return "--" + re.sub(r"[/\\:]", "-", text) + "--"


def worktrees(path: Path) -> list[Path]:
    """The main checkout and every linked worktree of the repository at ``path``."""
    try:
        proc = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=path,
                              capture_output=True, text=True, check=False)
    except (FileNotFoundError, NotADirectoryError):
        return [Path(path).resolve()]
    if proc.returncode != 0:
        return [Path(path).resolve()]
    out = [Path(line[len("worktree "):]).resolve() for line in proc.stdout.splitlines()
           if line.startswith("worktree ")]
    return out or [Path(path).resolve()]


def _first_cwd(folder: Path) -> str | None:
    """The first recorded working directory in any transcript of a folder."""
    for file in [f for f in sorted(folder.glob("*.jsonl")) if f.is_file()][:5]:
        try:
            with open(file, "rb") as handle:
                for _, line in zip(range(50), handle):
                    try:
                        record = parse_json(line)
                    except ValueError:
                        continue
                    if isinstance(record, dict) and isinstance(record.get("cwd"), str) \
                            and record["cwd"]:
                        return record["cwd"]
        except OSError:
            continue
    return None


def moved_here(recorded: str, project: ProjectId, remote: str | None = None) -> bool:
    """A session recorded in a folder missing on this machine whose name is this
    repository's, or whose recorded git remote is one of its remotes: logs copied from
    another machine (placed here by collect)."""
    path = Path(recorded)
    if not project.in_git or path.is_dir():
        return False
    name = folder_name(recorded)        # POSIX or Windows spelling, any case
    if name and slug(name) == project.name:
        return True
    return remote is not None and remote in _remotes_of(project.root)


@cache
def _remotes_of(root: Path) -> frozenset[str]:
    return frozenset(remotes(root))


def _folders(root: Path, names: list[str], project: ProjectId) -> Iterator[Path]:
    if not root.is_dir():
        return
    for folder in sorted(root.iterdir()):
        if not folder.is_dir():
            continue
        if folder.name in names:
            yield folder
        elif any(folder.name.startswith(n.rstrip("-") + "-") for n in names):
            cwd = _first_cwd(folder)
            if cwd and project_key_for(cwd) == project.key:
                yield folder
        elif project.in_git and folder.name.strip("-").lower().endswith(project.name):
            cwd = _first_cwd(folder)
            if cwd and moved_here(cwd, project):
                yield folder


def _codex_head(file: Path) -> tuple[str | None, str | None]:
    """The folder and the git remote (normalised) a rollout's first line records."""
    try:
        with open(file, "rb") as handle:
            first = handle.readline(1 << 20)
        record = parse_json(first)
    except (OSError, ValueError):
        return None, None
    if not isinstance(record, dict):
        return None, None
    payload = record.get("payload") if isinstance(record.get("payload"), dict) else record
    cwd = payload.get("cwd")
    git = payload.get("git") if isinstance(payload.get("git"), dict) else {}
    return (cwd if isinstance(cwd, str) else None), normal_remote(git.get("repository_url"))


def _transcripts(folder: Path, pattern: str) -> list[Path]:
    """Regular files only: opening a named pipe waits for a writer, forever."""
    return [f for f in sorted(folder.rglob(pattern)) if f.is_file()]


def discover(cwd: Path, kinds: list[str] | None = None,
             environ: dict[str, str] | None = None) -> list[tuple[str, Path]]:
    """(source kind, file) for every transcript of the repository at ``cwd``."""
    project = identify(cwd)
    trees = worktrees(project.root) if project.in_git else [project.root]
    base = roots(environ)
    wanted = kinds or ["claude_code", "pi", "codex"]
    found: list[tuple[str, Path]] = []
    if "claude_code" in wanted:
        names = [claude_folder(t) for t in trees]
        for folder in _folders(base["claude_code"], names, project):
            found += [("claude_code", f) for f in _transcripts(folder, "*.jsonl")]
    if "pi" in wanted:
        names = [pi_folder(t) for t in trees]
        for folder in _folders(base["pi"], names, project):
            found += [("pi", f) for f in _transcripts(folder, "*.jsonl")]
    if "codex" in wanted and base["codex"].is_dir():
        tree_strs = [str(t) for t in trees]
        for file in _transcripts(base["codex"], "rollout-*.jsonl"):
            recorded, remote = _codex_head(file)
            if not recorded:
                continue
            if any(recorded == t or recorded.startswith(t + os.sep) for t in tree_strs) or \
                    project_key_for(recorded) == project.key or \
                    moved_here(recorded, project, remote):
                found.append(("codex", file))
    return found
