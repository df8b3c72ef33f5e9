"""Pi (pi-mono coding agent): skills, an extension, and a marked block in AGENTS.md. Pi has
no MCP by design, so the block tells the agent to use the ``dream`` command line.

- Extension: ``.pi/extensions/dream.ts`` (project) or ``~/.pi/agent/extensions/dream.ts``
  (user), from ``pi_extension.ts``: Pi has no hook file, so the extension calls
  ``dream hook --agent pi`` at session start, before each prompt, after each answer and at
  shutdown; it puts the brief in the system prompt and tells pending automation wakes.

- Skills: ``.pi/skills/<name>/SKILL.md`` (project) or ``~/.pi/agent/skills/<name>/``
  (user; ``PI_CODING_AGENT_DIR`` replaces ``~/.pi/agent``).
- Context file: ``AGENTS.md`` at the project root or ``~/.pi/agent/AGENTS.md``; Pi loads
  both at startup. Pi has no import syntax, so the block names brief.md and asks the agent
  to read it first.
"""

from __future__ import annotations

import os
from pathlib import Path

from dream.app import App
from dream.integrations.files import BlockEdit, Edit, FileCopy
from dream.integrations.installer import (
    Target,
    brief_path,
    path_note,
    project_root,
    skill_files,
    user_home,
)


def agent_dir() -> Path:
    raw = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(raw).expanduser() if raw else user_home() / ".pi" / "agent"


def cli_block(scope: str, agent_name: str, mcp: bool) -> str:
    """The AGENTS.md block: how to read the brief and reach Dream. It names ``dream`` and
    no path of this machine (a project's AGENTS.md is committed)."""
    brief = "dream brief" + (" --user" if scope != "project" else "")
    lines = [
        "## Dream memory",
        "",
        f"Dream keeps durable, reviewed memory for this work. At the start of a session read "
        f"the brief: run `{brief}` (it says so when no dream has written one yet).",
    ]
    if mcp:
        lines.append("Use the `dream` MCP tools (notes_*, history_*, memory_*); the `memory` "
                     "and `dream` skills explain them.")
    else:
        lines += [
            f"{agent_name} has no MCP here: call Dream through the shell (`dream`, "
            "installed on PATH):",
            "",
            "- `dream notes find \"QUERY\" --json`, `dream notes show ADDRESS --json`, "
            "`dream notes write ADDRESS TEXT`: notes;",
            "- `dream search \"QUERY\" --json`, `dream show PATH --at COMMIT --json`: "
            "reviewed memory;",
            "- `dream history search \"QUERY\" --json`, `dream history show SESSION --json`: "
            "past sessions;",
            "- `dream prepare --learned L --learned L --learned L --handoff FILE`: hand off "
            "before a review dream.",
            "",
            "The `memory` and `dream` skills explain more (`/skill:memory`, `/skill:dream`).",
        ]
    return "\n".join(lines)


def extension(scope: str) -> bytes:
    """The Pi extension, for the project's brief or the user's."""
    from importlib import resources

    text = (resources.files("dream") / "integrations" / "pi_extension.ts").read_text("utf-8")
    return text.replace("__DREAM_BRIEF_SCOPE__", scope).encode("utf-8")


def target(app: App, scope: str) -> Target:
    if scope == "project":
        root = project_root(app)
        skills_dir, agents_md = root / ".pi" / "skills", root / "AGENTS.md"
    else:
        root = user_home()
        skills_dir, agents_md = agent_dir() / "skills", agent_dir() / "AGENTS.md"
    brief = brief_path(app, scope)
    edits: list[Edit] = [FileCopy(skills_dir / rel, f"skill file {rel}", content)
                         for rel, content in skill_files().items()]
    ext_dir = (root / ".pi" / "extensions") if scope == "project" else agent_dir() / "extensions"
    edits.append(FileCopy(ext_dir / "dream.ts", "extension calling 'dream hook' (brief, "
                          "automations, collection)", extension(scope)))
    edits.append(BlockEdit(agents_md, "how to reach Dream, and how to read the brief", "pi",
                           cli_block(scope, "Pi", mcp=False)))
    notes = [f"brief: Pi reads {agents_md} at startup; the block there tells it to run "
             f"'dream brief' ({brief})"]
    return Target("pi", scope, root, edits, notes + path_note(scope))
