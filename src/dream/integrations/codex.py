"""Codex CLI: ``[mcp_servers.dream]`` in config.toml, hooks, skills, and a block in AGENTS.md.

- MCP: ``$CODEX_HOME/config.toml`` (default ``~/.codex``) for ``--user``, the project's
  ``.codex/config.toml`` (read for trusted projects) for ``--project``. The table is
  appended as a marked text block, so every other byte (comments included) stays put. It
  says ``required = true``: Codex does not wait for MCP servers that are slow to start and
  would leave Dream's tools out of a ``codex exec``; a required server is waited for.
- Skills: Codex loads Agent Skills from ``.agents/skills`` (repository) and
  ``~/.agents/skills`` (user).
- Brief: the SessionStart hook prints it (``--brief``); ``AGENTS.md`` (project root, and
  ``$CODEX_HOME/AGENTS.md``) gets a block naming ``dream brief`` for when hooks do not run.
- Hooks: ``hooks.json`` beside the config (``.codex/hooks.json``, ``$CODEX_HOME/hooks.json``)
  in Claude Code's shape (event -> matcher groups -> ``{"type": "command", ...}``), for
  :data:`EVENTS`. Hooks are on by default since Codex 0.12x (``[features] hooks``; the old
  ``codex_hooks`` name is deprecated and warns), but Codex runs a hook only after the user
  trusted it (``/hooks`` in the Codex TUI); ``codex exec`` skips untrusted hooks silently.
  Codex keeps that trust in config.toml as ``[hooks.state."<hooks.json>:<event>:<i>:<j>"]``
  tables; uninstall removes the ones of Dream's hooks.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from dream.app import App
from dream.errors import BadInput
from dream.integrations.claude_code import hook_adder, hook_stripper, is_dream_hook
from dream.integrations.files import BlockEdit, Edit, FileCopy, JsonEdit
from dream.integrations.installer import (
    Target,
    brief_path,
    dream_command,
    dream_env,
    path_note,
    project_root,
    skill_files,
    user_home,
)
from dream.integrations.pi import cli_block


def codex_home() -> Path:
    raw = os.environ.get("CODEX_HOME")
    return Path(raw).expanduser() if raw else user_home() / ".codex"


EVENTS = ("SessionStart", "UserPromptSubmit", "Stop")
# Codex's names of the events in hook trust keys
EVENT_KEYS = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit",
              "Stop": "stop"}


def toml_block(scope: str) -> str:
    cmd = dream_command(scope)
    lines = ["[mcp_servers.dream]", f"command = {json.dumps(cmd[0])}",
             f"args = {json.dumps([*cmd[1:], 'mcp'])}", "required = true"]
    if scope == "project":
        # this machine's home stays out of the committed file: pass the variable through
        lines.append('env_vars = ["DREAM_HOME"]')
    else:
        env = dream_env()
        if env:
            lines.append("env = { " + ", ".join(f"{k} = {json.dumps(v)}"
                                                for k, v in env.items()) + " }")
    return "\n".join(lines)


def dream_trust_keys(hooks_file: Path) -> set[str]:
    """Codex's trust keys of Dream's hooks in ``hooks_file`` as it is now."""
    try:
        data = json.loads(hooks_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    keys = set()
    hooks = data.get("hooks") if isinstance(data, dict) else None
    for event, groups in (hooks.items() if isinstance(hooks, dict) else []):
        label = EVENT_KEYS.get(event) or re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()
        for i, group in enumerate(groups if isinstance(groups, list) else []):
            inner = group.get("hooks") if isinstance(group, dict) else None
            for j, handler in enumerate(inner if isinstance(inner, list) else []):
                if is_dream_hook(handler, "codex"):
                    keys.add(f"{hooks_file}:{label}:{i}:{j}")
    return keys


@dataclass
class TrustEntries(Edit):
    """Codex's record that the user trusted Dream's hooks: ``[hooks.state."<key>"]`` tables
    in the user's config.toml (Codex ignores a project layer's copy). Install adds none
    (trusting is the user's step); uninstall removes the tables of Dream's hooks."""

    path: Path
    what: str
    keys: set[str] = field(default_factory=set)

    def apply(self, old: bytes | None) -> bytes:
        return old          # type: ignore[return-value]

    def _strip(self, text: str) -> str:
        out: list[str] = []
        skipping = False
        for line in text.splitlines(keepends=True):
            header = re.match(r'\s*\[hooks\.state\."((?:[^"\\]|\\.)*)"\]\s*$', line)
            if header:
                skipping = header.group(1) in self.keys
                if skipping:
                    if out and not out[-1].strip():
                        out.pop()           # the blank line Codex put before the table
                    continue
            elif skipping and re.match(r"\s*\[", line):
                skipping = False
            if not skipping:
                out.append(line)
        return "".join(out)

    def remove(self, old: bytes) -> bytes | None:
        text = self._strip(old.decode("utf-8"))
        return text.encode("utf-8") if text.strip() else None

    def equivalent(self, a: bytes, b: bytes) -> bool:
        return a.rstrip(b"\n") == b.rstrip(b"\n")

    def is_ours(self, current: bytes) -> bool:
        text = current.decode("utf-8", "replace")
        return self._strip(text) != text


def features_of(config: Path, block: BlockEdit) -> dict | None:
    """The user's own ``[features]`` table (Dream's block left out), or None."""
    try:
        text = config.read_text(encoding="utf-8-sig")
    except (FileNotFoundError, UnicodeDecodeError):
        return None
    try:
        parsed = tomllib.loads(block._strip(text))
    except (tomllib.TOMLDecodeError, RecursionError):
        return None        # the install itself reports the broken file
    features = parsed.get("features")
    return features if isinstance(features, dict) else None


def _unreadable(path: Path) -> str | None:
    """Why the file as it is now is no TOML (a typo, Notepad's byte-order mark), or None:
    such a file was blamed on 'an existing [mcp_servers.dream] table'."""
    try:
        tomllib.loads(path.read_bytes().decode("utf-8-sig"))
    except FileNotFoundError:
        return None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
        return "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
    return None


def _validate(path: Path):
    def check(data: bytes) -> None:
        try:
            # a byte-order mark (Notepad) is TOML Codex reads (Rust's toml skips it)
            parsed = tomllib.loads(data.decode("utf-8-sig"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
            broken = _unreadable(path)
            if broken is not None:      # the user's file, before Dream touched it
                raise BadInput(f"{path} is not valid TOML ({broken}), so Codex cannot read "
                               "it either", "fix the file by hand, then run the command "
                               "again") from exc
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
    hooks_file = config.parent / "hooks.json"
    block = BlockEdit(config, "MCP server [mcp_servers.dream] (runs 'dream mcp', "
                      "required = true)", "codex", toml_block(scope), style="hash",
                      validate=_validate(config))
    edits: list[Edit] = [
        block,
        TrustEntries(codex_home() / "config.toml", "your trust of Dream's hooks (Codex's "
                     "[hooks.state] entries)", dream_trust_keys(hooks_file)),
        JsonEdit(hooks_file, "hooks " + ", ".join(EVENTS) + " calling 'dream hook' "
                 "(SessionStart prints the brief)",
                 hook_adder("codex", EVENTS, scope, scope), hook_stripper("codex")),
    ]
    edits += [FileCopy(skills_dir / rel, f"skill file {rel}", content)
              for rel, content in skill_files().items()]
    edits.append(BlockEdit(agents_md, "how to read the brief, and Dream's tools", "codex",
                           cli_block(scope, "Codex", mcp=True)))
    notes = [f"brief: Codex's SessionStart hook prints {brief}; the block in {agents_md} "
             "says to run 'dream brief' when it is missing",
             f"Codex runs hooks only once you trust them: start 'codex' in {root}, type "
             "/hooks and trust Dream's three hooks (codex exec skips untrusted hooks "
             "without a word, and trust is asked again whenever a hook's command changes)"]
    features = features_of(config, BlockEdit(config, "", "codex", "", style="hash"))
    if features and (features.get("hooks") is False or features.get("codex_hooks") is False):
        notes.append(f"hooks are switched off in the [features] table of {config}: set "
                     "hooks = true there (Dream does not edit your own tables)")
    if scope == "project":
        notes.append("Codex reads .codex/config.toml only in projects you marked trusted")
    return Target("codex", scope, root, edits, notes + path_note(scope))
