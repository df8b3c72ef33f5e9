"""Codex CLI: ``[mcp_servers.dream]`` in config.toml, skills, and a block in AGENTS.md.

- MCP: ``$CODEX_HOME/config.toml`` (default ``~/.codex``) for ``--user``, the project's
  ``.codex/config.toml`` (read for trusted projects) for ``--project``. The table is
  appended as a marked text block, so every other byte (comments included) stays put.
- Skills: Codex loads Agent Skills from ``.agents/skills`` (repository) and
  ``~/.agents/skills`` (user).
- Brief: Codex reads ``AGENTS.md`` (project root, and ``$CODEX_HOME/AGENTS.md``) at
  session start; it has no import syntax, so the block names brief.md to read first.
- Hooks: ``hooks.json`` beside the config (``.codex/hooks.json``, ``$CODEX_HOME/hooks.json``)
  in Claude Code's shape (event -> matcher groups -> ``{"type": "command", ...}``), for
  :data:`EVENTS`. Codex runs hooks only with ``[features] codex_hooks = true``; Dream's
  config block sets it when the file has no ``[features]`` table of its own, and otherwise
  says so in a note (a second ``[features]`` table would be invalid TOML).
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

from dream.app import App
from dream.errors import BadInput
from dream.integrations.claude_code import hook_adder, hook_stripper
from dream.integrations.files import BlockEdit, Edit, FileCopy, JsonEdit
from dream.integrations.installer import (
    Target,
    brief_path,
    dream_command,
    dream_env,
    project_root,
    skill_files,
    user_home,
)
from dream.integrations.pi import cli_block


def codex_home() -> Path:
    raw = os.environ.get("CODEX_HOME")
    return Path(raw).expanduser() if raw else user_home() / ".codex"


EVENTS = ("SessionStart", "UserPromptSubmit", "Stop")


def toml_block(features: bool) -> str:
    cmd = dream_command()
    lines = ["[mcp_servers.dream]", f"command = {json.dumps(cmd[0])}",
             f"args = {json.dumps([*cmd[1:], 'mcp'])}"]
    env = dream_env()
    if env:
        lines.append("env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items())
                     + " }")
    if features:
        lines += ["", "[features]", "codex_hooks = true"]
    return "\n".join(lines)


def _features_of(config: Path, block: BlockEdit) -> dict | None:
    """The user's own ``[features]`` table (Dream's block left out), or None."""
    try:
        text = config.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return None
    try:
        parsed = tomllib.loads(block._strip(text))
    except tomllib.TOMLDecodeError:
        return None        # the install itself reports the broken file
    features = parsed.get("features")
    return features if isinstance(features, dict) else None


def _validate(path: Path):
    def check(data: bytes) -> None:
        try:
            parsed = tomllib.loads(data.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise BadInput(f"{path} would not be valid TOML with Dream's table ({exc})",
                           "remove any existing [mcp_servers.dream] table by hand and retry"
                           ) from exc
        if "dream" not in parsed.get("mcp_servers", {}):
            raise BadInput(f"{path}: the dream server table did not parse", "report this")
    return check


def target(app: App, scope: str) -> Target:
    if scope == "project":
        root = project_root(app)
        config, skills_dir, agents_md = (root / ".codex" / "config.toml",
                                         root / ".agents" / "skills", root / "AGENTS.md")
    else:
        root = user_home()
        config, skills_dir, agents_md = (codex_home() / "config.toml",
                                         root / ".agents" / "skills", codex_home() / "AGENTS.md")
    brief = brief_path(app, scope)
    probe = BlockEdit(config, "", "codex", "", style="hash")
    features = _features_of(config, probe)
    block = BlockEdit(config, "MCP server [mcp_servers.dream] (runs 'dream mcp')"
                      + ("" if features is not None else " and [features] codex_hooks"),
                      "codex", toml_block(features is None), style="hash",
                      validate=_validate(config))
    hooks_file = config.parent / "hooks.json"
    edits: list[Edit] = [
        block,
        JsonEdit(hooks_file, "hooks " + ", ".join(EVENTS) + " calling 'dream hook'",
                 hook_adder("codex", EVENTS), hook_stripper("codex")),
    ]
    edits += [FileCopy(skills_dir / rel, f"skill file {rel}", content)
              for rel, content in skill_files().items()]
    edits.append(BlockEdit(agents_md, "the brief to read first, and Dream's tools", "codex",
                           cli_block(brief, "Codex", mcp=True)))
    notes = [f"brief: Codex reads {agents_md} at session start; the block there points it at "
             f"{brief}"]
    if features is not None and features.get("codex_hooks") is not True:
        notes.append(f"Codex runs hooks only with codex_hooks = true: add it to the [features] "
                     f"table of {config} (Dream does not edit your own tables)")
    if scope == "project":
        notes.append("Codex reads .codex/config.toml only in projects you marked trusted")
    return Target("codex", scope, root, edits, notes)
