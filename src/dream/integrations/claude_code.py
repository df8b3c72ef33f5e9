"""Claude Code: MCP server, skills, hooks and the brief.

Files (sources in docs/integrations.md):

- MCP server: ``.mcp.json`` at the project root (``--project``) or top-level
  ``mcpServers`` in ``~/.claude.json`` (``--user``); entry ``dream`` runs ``dream mcp``
  with ``alwaysLoad`` (Claude Code waits for it and offers its tools from the first turn).
- Hooks: ``.claude/settings.json`` / ``~/.claude/settings.json``, ``hooks.<Event>`` is a
  list of matcher groups ``{"hooks": [{"type": "command", "command": ...}]}``; Dream adds
  one group per event in :data:`EVENTS`, each calling ``dream hook --agent claude-code``.
- Skills: ``.claude/skills/<name>/SKILL.md`` / ``~/.claude/skills/<name>/SKILL.md``.
- Brief: ``--project``: the SessionStart hook prints it (``--brief project``); an ``@``
  import of a file outside the project would wait for an approval dialog ``claude -p``
  never shows. ``--user``: an ``@<path>/brief.md`` import line in ``~/.claude/CLAUDE.md``.
- ``.claude/settings.local.json`` (Claude Code keeps it out of git): ``env.DREAM_HOME``
  when the home was moved, and where Claude Code records the approval of the project's
  ``dream`` server (``enabledMcpjsonServers``), which uninstall takes out too.

Project files name ``dream`` from PATH; user files this install's absolute command.
``CLAUDE_CONFIG_DIR``, when set, replaces ``~/.claude`` (and holds ``.claude.json``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dream.app import App
from dream.integrations.files import BlockEdit, Edit, FileCopy, JsonEdit, member
from dream.integrations.installer import (
    Target,
    brief_path,
    dream_command,
    dream_env,
    hook_command,
    path_note,
    project_root,
    skill_files,
    user_home,
)

EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd")
SERVER = "dream"


def server_entry(scope: str = "user") -> dict[str, Any]:
    cmd = dream_command(scope)
    entry: dict[str, Any] = {"type": "stdio", "command": cmd[0], "args": [*cmd[1:], "mcp"],
                             "alwaysLoad": True}
    env = dream_env() if scope != "project" else {}
    if env:
        entry["env"] = env
    return entry


def _server_adder(scope: str) -> Callable[[dict[str, Any]], None]:
    def add(data: dict[str, Any]) -> None:
        servers = member(data, "mcpServers", dict)
        servers[SERVER] = server_entry(scope)
    return add


def _add_local(data: dict[str, Any]) -> None:
    """settings.local.json: the moved home, for the hooks and the server Claude Code starts."""
    env = dream_env()
    if env:
        member(data, "env", dict).update(env)


def _strip_local(data: dict[str, Any]) -> bool:
    """Dream's entries in settings.local.json: ``env.DREAM_HOME`` and Claude Code's own
    approval of the project's ``dream`` server."""
    found = False
    env = data.get("env")
    if isinstance(env, dict) and "DREAM_HOME" in env:
        del env["DREAM_HOME"]
        found = True
        if not env:
            del data["env"]
    approved = data.get("enabledMcpjsonServers")
    if isinstance(approved, list) and SERVER in approved:
        approved.remove(SERVER)
        found = True
        if not approved:
            del data["enabledMcpjsonServers"]
    return found


def _strip_server(data: dict[str, Any]) -> bool:
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or SERVER not in servers:
        return False
    del servers[SERVER]
    if not servers:
        del data["mcpServers"]
    return True


def is_dream_hook(hook: Any, agent: str = "claude-code") -> bool:
    mark = f"hook --agent {agent}"
    return (isinstance(hook, dict) and isinstance(hook.get("command"), str)
            and mark in hook["command"] and "dream" in hook["command"])


def hook_adder(agent: str, events: tuple[str, ...], scope: str = "user",
               brief: str | None = None) -> Callable[[dict[str, Any]], None]:
    """Adds one matcher group per event calling ``dream hook`` (Claude Code's hooks format,
    which Codex's hooks.json shares); the SessionStart hook prints ``brief`` when given."""
    def add(data: dict[str, Any]) -> None:
        hooks = member(data, "hooks", dict)
        for event in events:
            command = hook_command(agent, event, scope,
                                   brief if event == "SessionStart" else None)
            member(hooks, event, list, "hooks.").append(
                {"hooks": [{"type": "command", "command": command, "timeout": 30}]})
    return add


def hook_stripper(agent: str) -> Callable[[dict[str, Any]], bool]:
    """Removes exactly Dream's hook entries (and groups and events left empty)."""
    def strip(data: dict[str, Any]) -> bool:
        hooks = data.get("hooks")
        if not isinstance(hooks, dict):
            return False
        found = False
        for event in list(hooks):
            groups = hooks[event]
            if not isinstance(groups, list):
                continue
            kept = []
            for group in groups:
                inner = group.get("hooks") if isinstance(group, dict) else None
                if isinstance(inner, list) and any(is_dream_hook(h, agent) for h in inner):
                    found = True
                    rest = [h for h in inner if not is_dream_hook(h, agent)]
                    if rest:
                        kept.append({**group, "hooks": rest})
                    continue
                kept.append(group)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
        if not hooks:
            del data["hooks"]
        return found
    return strip


def config_dir() -> Path:
    raw = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(raw).expanduser() if raw else user_home() / ".claude"


def target(app: App, scope: str) -> Target:
    project = scope == "project"
    if project:
        root = project_root(app)
        mcp_file, claude_dir, memory = root / ".mcp.json", root / ".claude", root / "CLAUDE.md"
    else:
        root = user_home()
        claude_dir = config_dir()
        mcp_file = (claude_dir / ".claude.json" if os.environ.get("CLAUDE_CONFIG_DIR")
                    else root / ".claude.json")
        memory = claude_dir / "CLAUDE.md"
    brief = brief_path(app, scope)
    edits: list[Edit] = [
        JsonEdit(mcp_file, "MCP server 'dream' (runs 'dream mcp')", _server_adder(scope),
                 _strip_server),
        JsonEdit(claude_dir / "settings.json",
                 "hooks " + ", ".join(EVENTS) + " calling 'dream hook'"
                 + (" (SessionStart prints the brief)" if project else ""),
                 hook_adder("claude-code", EVENTS, scope, "project" if project else None),
                 hook_stripper("claude-code")),
    ]
    if project:
        edits.append(JsonEdit(claude_dir / "settings.local.json",
                              "env DREAM_HOME (this machine's home; Claude Code keeps this "
                              "file out of git)", _add_local, _strip_local, optional=True))
    for rel, content in skill_files().items():
        edits.append(FileCopy(claude_dir / "skills" / rel, f"skill file {rel}", content))
    block = BlockEdit(memory, "import of brief.md, loaded at session start", "claude-code",
                      "Dream memory brief (kept by Dream; `dream uninstall claude-code` "
                      f"removes this block):\n@{brief}", removal_only=project)
    edits.append(block)
    if project:
        notes = [f"brief: the SessionStart hook prints {brief} into the session's context "
                 "(no CLAUDE.md import: Claude Code asks before loading a file outside the "
                 "project, and claude -p never asks)",
                 "Claude Code asks once to approve the project's .mcp.json servers; the "
                 "answer is kept in .claude/settings.local.json"]
    else:
        notes = [f"brief: Claude Code loads {brief} at session start through the @-import "
                 f"in {memory}"]
    return Target("claude-code", scope, root, edits, notes + path_note(scope))
