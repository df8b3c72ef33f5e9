"""Docs that cannot drift: every CLI command has help text and appears in README.md or
docs/*.md (as ``dream <command path>``)."""

from __future__ import annotations

import click
from conftest import REPO_ROOT

from dream.cli import cli


def walk(group: click.Group, prefix: tuple[str, ...] = ()):
    for name in group.list_commands(None):     # type: ignore[arg-type]
        cmd = group.get_command(None, name)     # type: ignore[arg-type]
        path = (*prefix, name)
        yield path, cmd
        if isinstance(cmd, click.Group):
            yield from walk(cmd, path)


def docs_text() -> str:
    files = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
    return "\n".join(f.read_text(encoding="utf-8") for f in files if f.exists())


def test_walk_finds_nested_commands():
    paths = {" ".join(p) for p, _ in walk(cli)}
    assert {"install", "hook", "mcp", "automations list", "automations pause"} <= paths


def test_every_command_has_help_text():
    missing = [" ".join(p) for p, cmd in walk(cli)
               if not (cmd.help or cmd.short_help or "").strip()]
    assert not missing, "commands without help text: " + ", ".join(missing)


def test_every_command_is_documented():
    text = " ".join(docs_text().split())
    missing = [f"dream {' '.join(p)}" for p, _ in walk(cli)
               if f"dream {' '.join(p)}" not in text]
    assert not missing, (
        "commands missing from README.md and docs/*.md (write 'dream <command>' in the "
        "docs of the area that owns it): " + ", ".join(missing))
