"""Export: an accepted code or instruction proposal becomes an ordinary work item.

``DREAM_HOME/exports/<run>/<slug>.md`` says what to do and why, with every citation, and
``<slug>.patch`` (when the proposal has one) is a unified diff for ``AGENTS.md``,
``CLAUDE.md`` or a new script that the *user* applies with ``git apply``. Dream never edits
code or agent instructions itself. An instruction patch is recomputed against the
project's current instructions file at export time, so it applies to what is there now.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dream.app import App
from dream.passes.instructions import agent_file, unified_patch, with_lessons
from dream.review.proposals import Proposal


def _patch(p: Proposal, project_root: Path | None) -> tuple[str, str] | None:
    """(target file, diff) for the proposal, refreshed against the project when known."""
    patch: dict[str, Any] | None = p.change.get("patch")
    if not patch or not patch.get("diff"):
        return None
    lessons = patch.get("lessons")
    if lessons and project_root is not None and project_root.is_dir():
        name, text = agent_file(project_root)
        return name, unified_patch(name, text, with_lessons(text, list(lessons)))
    return str(patch.get("file", "")), str(patch["diff"])


def export(app: App, p: Proposal, project_root: Path | None) -> Path:
    folder = app.home.exports_path / p.run_id
    folder.mkdir(parents=True, exist_ok=True)
    md = folder / f"{p.slug}.md"
    patch = _patch(p, project_root)
    lines = [
        f"# {p.title}",
        "",
        f"- kind: {p.kind} ({p.pass_name} pass of review {p.run_id})",
        f"- size: {p.size}, risk: {p.risk}",
        f"- project: {p.project_key or 'unknown'}",
        "",
        "## What to do",
        "",
        str(p.change.get("text", "")).rstrip(),
        "",
        "## Evidence",
        "",
        *[f"- {c}" for c in p.evidence],
        "",
    ]
    if patch:
        target, diff = patch
        patch_path = folder / f"{p.slug}.patch"
        patch_path.write_text(diff, encoding="utf-8")
        lines += [
            "## Patch",
            "",
            (f"`{patch_path.name}` changes `{target}`. Dream does not apply it; review it and "
            "apply it yourself from the repository root:"),
            "",
            "```sh",
            f"git apply {patch_path}",
            "```",
            "",
        ]
    md.write_text("\n".join(lines), encoding="utf-8")
    return md
