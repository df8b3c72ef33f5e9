"""The packaged skills: Agent Skills format, and accurate to the real tools and commands."""

from __future__ import annotations

import re

import click
import pytest
import yaml

from dream import mcp_server
from dream.cli import cli
from dream.integrations.installer import skill_files

SKILLS = ("memory", "dream")


def front_matter(text: str) -> tuple[dict, str]:
    assert text.startswith("---\n")
    head, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(head), body


def all_text() -> str:
    """The skills plus the AGENTS.md block Pi gets (it uses the CLI, not MCP)."""
    from pathlib import Path

    from dream.integrations.pi import cli_block

    texts = [b.decode("utf-8") for b in skill_files().values()]
    return "\n".join([*texts, cli_block(Path("/x/brief.md"), "Pi", mcp=False)])


def test_packaged_files():
    assert sorted(skill_files()) == ["dream/SKILL.md", "dream/playbook.md", "memory/SKILL.md"]


@pytest.mark.parametrize("name", SKILLS)
def test_front_matter_follows_agent_skills_spec(name):
    meta, body = front_matter(skill_files()[f"{name}/SKILL.md"].decode("utf-8"))
    assert meta["name"] == name                                   # matches its folder
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", meta["name"]) and len(name) <= 64
    assert 50 < len(meta["description"]) <= 1024
    # Pi's older parser reads single-line `key: value` front matter only
    head = skill_files()[f"{name}/SKILL.md"].decode().split("\n---\n", 1)[0]
    assert all(": " in line for line in head.splitlines()[1:])
    assert len(body.split()) < 900                                # short: written to be read


def test_dream_skill_links_its_playbook():
    text = skill_files()["dream/SKILL.md"].decode()
    assert "(playbook.md)" in text and "dream/playbook.md" in skill_files()


def test_every_tool_named_exists_and_hidden_ones_are_marked():
    text = all_text()
    named = set(re.findall(r"\b((?:notes|history|memory|dream|review|tool)_[a-z]+)\b", text))
    assert named, "the skills name no tools"
    unknown = sorted(named - set(mcp_server.TOOLS))
    assert not unknown, f"skills name tools the MCP server does not define: {unknown}"
    for hidden in ("dream_begin", "dream_forget", "dream_end"):
        assert mcp_server.TOOLS[hidden].hidden and hidden in text
    assert "tool_search" in text


def _commands(group: click.Group, prefix: str = "") -> set[str]:
    out = set()
    for name in group.list_commands(None):     # type: ignore[arg-type]
        cmd = group.get_command(None, name)     # type: ignore[arg-type]
        out.add(prefix + name)
        if isinstance(cmd, click.Group):
            out |= _commands(cmd, prefix + name + " ")
    return out


def test_every_cli_command_named_exists():
    commands = _commands(cli)
    text = all_text()
    used = set()
    for match in re.finditer(r"`dream ([a-z]+)(?: ([a-z]+))?", text):
        first, second = match.group(1), match.group(2)
        if second and f"{first} {second}" in commands:
            used.add(f"{first} {second}")
        else:
            used.add(first)
    missing = sorted(u for u in used if u not in commands)
    assert not missing, f"skills name commands the CLI lacks: {missing}"
