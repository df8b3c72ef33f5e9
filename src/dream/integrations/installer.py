"""Install and uninstall Dream into an agent, keeping the user's files byte for byte.

The rule (documented in docs/integrations.md):

- Before Dream first touches a file it records, in
  ``$DREAM_HOME/integrations/manifest.json``, whether the file existed, and copies its
  original bytes to ``$DREAM_HOME/integrations/backups/``.
- Install parses the file, adds only Dream's entries and writes it back. Installing twice
  changes nothing.
- Uninstall removes exactly Dream's entries. If what is left is equivalent to the original
  (same JSON value, same text), the original bytes are written back; if the user changed
  something else since, their version minus Dream's entries is kept. A file that did not
  exist before is deleted once nothing but Dream's entries was in it, and so are the
  folders install created, when empty.
- Without a manifest (a lost home), uninstall still removes Dream's entries by their
  markers and names.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dream.app import App
from dream.errors import BadInput, DreamError
from dream.integrations.files import Edit

SCOPES = ("project", "user")


@dataclass
class Change:
    path: Path
    action: str        # create | modify | delete | restore | keep
    what: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "action": self.action, "what": self.what}


@dataclass
class Plan:
    agent: str
    scope: str
    root: Path
    dry_run: bool
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "scope": self.scope, "root": str(self.root),
                "dry_run": self.dry_run, "changes": [c.to_dict() for c in self.changes],
                "notes": self.notes}


@dataclass
class Target:
    """What one agent needs in one scope."""

    agent: str
    scope: str
    root: Path                      # project root or the user's home
    edits: list[Edit]
    notes: list[str] = field(default_factory=list)


# -- what the agents run ----------------------------------------------------------------------
# Project files (.mcp.json, .claude/settings.json, .codex/, AGENTS.md) are usually committed,
# so they name ``dream`` as found on PATH and nothing of this machine; what is machine-specific
# (a moved DREAM_HOME) goes to the client's local override or user-scope file. User-scope
# files live on this machine: they name this install's absolute command.
def dream_command(scope: str = "user") -> list[str]:
    """The command that runs Dream: ``dream`` from PATH in project files; in user files the
    absolute path of the ``dream`` on PATH, else this interpreter's ``python -m dream``."""
    if scope == "project":
        return ["dream"]
    exe = shutil.which("dream")
    if exe:
        return [str(Path(exe).absolute())]
    return [sys.executable, "-m", "dream"]


def dream_env() -> dict[str, str]:
    """Environment an agent must pass so it reaches this home (only when it was moved)."""
    env = {}
    if os.environ.get("DREAM_HOME"):
        env["DREAM_HOME"] = str(Path(os.environ["DREAM_HOME"]).expanduser().absolute())
    return env


def shell_command(*args: str, scope: str = "user") -> str:
    env = dream_env() if scope != "project" else {}
    prefix = "".join(f"{k}={shlex.quote(v)} " for k, v in env.items())
    return prefix + shlex.join([*dream_command(scope), *args])


def hook_command(agent: str, event: str, scope: str = "user", brief: str | None = None
                 ) -> str:
    """What an agent hook runs: ``dream hook --agent A EVENT`` (``dream hook`` and
    ``dream mcp`` skip loading the other commands, so a hook on each prompt stays cheap)."""
    args = ["hook", "--agent", agent, event]
    if brief:
        args += ["--brief", brief]
    return shell_command(*args, scope=scope)


def path_note(scope: str) -> list[str]:
    """A note when the project files name a ``dream`` that is not on PATH here."""
    if scope == "project" and shutil.which("dream") is None:
        return ["'dream' is not on PATH here, and the project files call it by name: install "
                "Dream with pipx or pip into an environment on PATH (see docs/integrations.md)"]
    return []


def user_home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def project_root(app: App) -> Path:
    return app.project().root


def brief_path(app: App, scope: str) -> Path:
    """The brief an agent loads at session start, where the dream run renders it:
    ``projects/<name>/brief.md`` in the project's Primary Store for --project (in the notes
    home, under the folder's name, while no store manages it), ``user/brief.md`` in the
    notes home for --user."""
    notes = app.home.notes_path.absolute()
    if scope != "project":
        return notes / "user" / "brief.md"
    if app.home.exists():
        try:
            current = app.current_project()
        except DreamError:
            current = None
        if current is not None and current.store is not None:
            return Path(current.store.path).absolute() / "projects" / current.name / "brief.md"
    return notes / "projects" / app.project().name / "brief.md"


def managed(app: App) -> bool:
    """Whether a store manages the current repository (``dream init`` was run in it)."""
    if not app.home.exists():
        return False
    try:
        return app.current_project().store is not None
    except DreamError:
        return False


def skill_files() -> dict[str, bytes]:
    """Packaged skills: relative path (``memory/SKILL.md``) -> bytes."""
    from importlib import resources

    root = resources.files("dream") / "skills"
    out: dict[str, bytes] = {}

    def walk(node, prefix: str) -> None:
        for child in sorted(node.iterdir(), key=lambda c: c.name):
            if child.name.startswith((".", "__")):
                continue
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            else:
                out[prefix + child.name] = child.read_bytes()

    walk(root, "")
    return out


# -- manifest ---------------------------------------------------------------------------------
class Manifest:
    def __init__(self, app: App) -> None:
        self.dir = app.home.root / "integrations"
        self.path = self.dir / "manifest.json"
        self.data: dict[str, Any] = {}
        if self.path.exists():
            try:
                self.data = json.loads(self.path.read_text(encoding="utf-8"))
            except ValueError:
                self.data = {}

    def entry(self, target: Target) -> dict[str, Any]:
        key = f"{target.agent}:{target.scope}:{target.root}"
        return self.data.setdefault(key, {"files": {}, "dirs": []})

    def drop(self, target: Target) -> None:
        self.data.pop(f"{target.agent}:{target.scope}:{target.root}", None)

    def backup(self, path: Path, raw: bytes) -> str:
        name = hashlib.sha256(str(path).encode()).hexdigest()[:16] + ".orig"
        dest = self.dir / "backups" / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(raw)
        return name

    def read_backup(self, name: str) -> bytes | None:
        path = self.dir / "backups" / name
        return path.read_bytes() if path.exists() else None

    def save(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=2, sort_keys=True), encoding="utf-8")
        tmp.replace(self.path)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError as exc:
        raise BadInput(f"{path} is a folder, not a file", "move it aside and try again") from exc


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".dream-tmp")
    tmp.write_bytes(data)
    if path.exists():
        shutil.copymode(path, tmp)
    tmp.replace(path)


def _missing_dirs(path: Path, stop: Path) -> list[Path]:
    out = []
    cur = path.parent
    while not cur.exists() and cur != stop and cur != cur.parent:
        out.append(cur)
        cur = cur.parent
    return list(reversed(out))


# -- install / uninstall ---------------------------------------------------------------------------
def target_for(app: App, agent: str, scope: str) -> Target:
    if scope not in SCOPES:
        raise BadInput(f"unknown scope '{scope}'", "use --project or --user")
    if agent == "claude-code":
        from dream.integrations import claude_code as mod
    elif agent == "pi":
        from dream.integrations import pi as mod
    elif agent == "codex":
        from dream.integrations import codex as mod
    else:
        raise BadInput(f"unknown agent '{agent}'", "use claude-code, pi or codex")
    return mod.target(app, scope)


def install(app: App, agent: str, scope: str, dry_run: bool = False) -> Plan:
    target = target_for(app, agent, scope)
    plan = Plan(agent, scope, target.root, dry_run, notes=list(target.notes))
    if not app.home.exists():
        plan.notes.append(f"no Dream home at {app.home.root} yet: run 'dream init' in the "
                          "repository, or the MCP server and hooks will report that")
    elif scope == "project" and not managed(app):
        plan.notes.append(f"{target.root} is not a project Dream knows yet: run 'dream init' "
                          "there, or no dream runs over its sessions and no brief is written "
                          "for it")
    # compute every new content first: a bad file refuses the whole install, nothing written
    staged: list[tuple[Edit, bytes | None, bytes]] = []
    for edit in target.edits:
        old = _read(edit.path)
        new = edit.apply(old)
        staged.append((edit, old, new))
    manifest = Manifest(app)
    entry = manifest.entry(target)
    for edit, old, new in staged:
        if old == new:
            continue
        plan.changes.append(Change(edit.path, "create" if old is None else "modify", edit.what))
        if dry_run:
            continue
        rec = entry["files"].get(str(edit.path))
        if rec is None:
            rec = {"existed": old is not None, "backup": None}
            if old is not None:
                rec["backup"] = manifest.backup(edit.path, old)
            entry["files"][str(edit.path)] = rec
        for folder in _missing_dirs(edit.path, target.root.parent):
            entry["dirs"].append(str(folder))
        edit.path.parent.mkdir(parents=True, exist_ok=True)
        _write(edit.path, new)
        rec["installed_sha256"] = hashlib.sha256(new).hexdigest()
    if not dry_run:
        entry["installed_at"] = datetime.now(UTC).isoformat()
        manifest.save()
    return plan


def uninstall(app: App, agent: str, scope: str, dry_run: bool = False) -> Plan:
    target = target_for(app, agent, scope)
    plan = Plan(agent, scope, target.root, dry_run)
    manifest = Manifest(app)
    entry = manifest.entry(target)
    for edit in target.edits:
        current = _read(edit.path)
        if current is None:
            continue
        rec = entry["files"].get(str(edit.path))
        if rec is None and not edit.is_ours(current):
            continue
        left = edit.remove(current)
        original = manifest.read_backup(rec["backup"]) if rec and rec.get("backup") else None
        existed = bool(rec and rec.get("existed"))
        if not existed and left is None:
            action, data = "delete", None
        elif original is not None and edit.equivalent(left or b"", original):
            action, data = "restore", original
        elif left is None:
            action, data = ("delete", None) if not existed else ("modify", b"")
        else:
            action, data = "modify", left
        if data == current:
            continue
        plan.changes.append(Change(edit.path, action, edit.what))
        if dry_run:
            continue
        if data is None:
            edit.path.unlink()
        else:
            _write(edit.path, data)
    if not dry_run:
        for folder in sorted(entry.get("dirs", []), key=len, reverse=True):
            path = Path(folder)
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()
                plan.changes.append(Change(path, "delete", "folder Dream created"))
        manifest.drop(target)
        if manifest.dir.exists():
            manifest.save()
    return plan
