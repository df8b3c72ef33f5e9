"""Claude Code: MCP server, skills, hooks and the brief.

Files (sources in docs/integrations.md):

- MCP server: ``.mcp.json`` at the project root (``--project``) or top-level
  ``mcpServers`` in ``~/.claude.json`` (``--user``); entry ``dream`` runs ``dream mcp``.
- Hooks: ``.claude/settings.json`` / ``~/.claude/settings.json``, ``hooks.<Event>`` is a
  list of matcher groups ``{"hooks": [{"type": "command", "command": ...}]}``; Dream adds
  one group per event in :data:`EVENTS`, each calling ``dream hook --agent claude-code``.
- Skills: ``.claude/skills/<name>/SKILL.md`` / ``~/.claude/skills/<name>/SKILL.md``.
- Brief: an ``@<path>/brief.md`` import line in ``CLAUDE.md`` / ``~/.claude/CLAUDE.md``,
  which Claude Code loads at session start.

``CLAUDE_CONFIG_DIR``, when set, replaces ``~/.claude`` (and holds ``.claude.json``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dream.app import App
from dream.integrations.files import BlockEdit, Edit, FileCopy, JsonEdit
from dream.integrations.installer import (
    Target,
    brief_path,
    dream_command,
    dream_env,
    hook_command,
    project_root,
    skill_files,
    user_home,
)

EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd")
SERVER = "dream"


def server_entry() -> dict[str, Any]:
    cmd = dream_command()
    entry: dict[str, Any] = {"type": "stdio", "command": cmd[0], "args": [*cmd[1:], "mcp"]}
    env = dream_env()
    if env:
        entry["env"] = env
    return entry


def _add_server(data: dict[str, Any]) -> None:
    servers = data.setdefault("mcpServers", {})
    servers[SERVER] = server_entry()


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


def hook_adder(agent: str, events: tuple[str, ...]) -> Callable[[dict[str, Any]], None]:
    """Adds one matcher group per event calling ``dream hook`` (Claude Code's hooks format,
    which Codex's hooks.json shares)."""
    def add(data: dict[str, Any]) -> None:
        hooks = data.setdefault("hooks", {})
        for event in events:
            hooks.setdefault(event, []).append(
                {"hooks": [{"type": "command", "command": hook_command(agent, event),
                            "timeout": 30}]})
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
    if scope == "project":
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
        JsonEdit(mcp_file, "MCP server 'dream' (runs 'dream mcp')", _add_server, _strip_server),
        JsonEdit(claude_dir / "settings.json",
                 "hooks " + ", ".join(EVENTS) + " calling 'dream hook'",
                 hook_adder("claude-code", EVENTS), hook_stripper("claude-code")),
    ]
    for rel, content in skill_files().items():
        edits.append(FileCopy(claude_dir / "skills" / rel, f"skill file {rel}", content))
    edits.append(BlockEdit(memory, "import of brief.md, loaded at session start", "claude-code",
                           "Dream memory brief (kept by Dream; `dream uninstall claude-code` "
                           f"removes this block):\n@{brief}"))
    notes = [f"brief: Claude Code loads {brief} at session start through the @-import in "
             f"{memory}"]
    if scope == "project":
        notes.append("Claude Code asks once to approve the project's .mcp.json servers")
    return Target("claude-code", scope, root, edits, notes)
