"""Patches for agent instructions (``AGENTS.md`` / ``CLAUDE.md``) that the *user* applies.

Dream never edits code or agent instructions itself: an instruction proposal carries the
lessons as text plus a unified diff that ``git apply`` accepts in the project's repository.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dream.passes.evidence import Evidence

SECTION = "## Lessons from Dream reviews"
AGENT_FILES = ("AGENTS.md", "CLAUDE.md")


def agent_file(root: Path | None) -> tuple[str, str | None]:
    """The instructions file a patch should target in ``root`` and its current text:
    ``AGENTS.md`` when present, else ``CLAUDE.md`` when present, else a new ``AGENTS.md``."""
    if root is not None:
        for name in AGENT_FILES:
            path = root / name
            if path.is_file():
                try:
                    return name, path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
    return AGENT_FILES[0], None


def with_lessons(old: str | None, lessons: list[str]) -> str:
    """The instructions text with ``lessons`` added under the Dream lessons section."""
    text = old or ""
    if text and not text.endswith("\n"):
        text += "\n"
    bullets = [f"- {lesson.strip()}" for lesson in lessons
               if f"- {lesson.strip()}" not in text]
    if not bullets:
        return text
    lines = text.split("\n")
    if SECTION in lines:
        at = lines.index(SECTION) + 1
        while at < len(lines) and lines[at] == "":
            at += 1
        while at < len(lines) and lines[at].startswith("- "):
            at += 1
        lines[at:at] = bullets
        return "\n".join(lines)
    if text and not text.endswith("\n\n"):
        text += "\n"
    return text + SECTION + "\n\n" + "\n".join(bullets) + "\n"


def unified_patch(path: str, old: str | None, new: str) -> str:
    """A ``git apply``-able patch turning ``old`` (None: no file) into ``new``."""
    old_lines = (old or "").splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    diff = difflib.unified_diff(old_lines, new_lines,
                                fromfile="/dev/null" if old is None else f"a/{path}",
                                tofile=f"b/{path}", n=3)
    out = [f"diff --git a/{path} b/{path}\n"]
    if old is None:
        out.append("new file mode 100644\n")
    for line in diff:
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


def lessons_patch(ev: Evidence, lessons: list[str]) -> dict[str, object]:
    new = with_lessons(ev.agent_file_text, lessons)
    return {"file": ev.agent_file, "lessons": lessons,
            "diff": unified_patch(ev.agent_file, ev.agent_file_text, new)}


def new_file_patch(path: str, text: str) -> str:
    return unified_patch(path, None, text if text.endswith("\n") else text + "\n")
