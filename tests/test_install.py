"""Installers: each on a temporary home with an existing configuration that has other
entries; install, check what the agent reads, uninstall, compare bytes."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml
from conftest import REPO_ROOT


def snapshot(*roots: Path) -> dict[str, bytes]:
    out = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if ".git" in path.relative_to(root).parts:
                continue
            out[str(path)] = path.read_bytes() if path.is_file() else b"<dir>"
    return out


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    for var in ("CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR", "CODEX_HOME"):
        monkeypatch.delenv(var, raising=False)
    return h


@pytest.fixture
def project(repo, dream):
    dream("init")
    return repo


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def claude_existing(project: Path, home: Path) -> None:
    write(project / ".mcp.json",
          '{\n    "mcpServers": {\n        "github": {"command": "npx", "args": ["gh"]}\n    }\n}')
    write(project / ".claude" / "settings.json", json.dumps({
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {"PreCompact": [{"matcher": "auto", "hooks": [
            {"type": "command", "command": "backup-transcript.sh"}]}],
                  "PostToolUse": [{"matcher": "Write", "hooks": [
                      {"type": "command", "command": "prettier --write"}]}]},
    }, indent=2) + "\n")
    write(project / "CLAUDE.md", "# Project\n\nUse pnpm, not npm.")      # no final newline
    write(project / ".claude" / "skills" / "lint" / "SKILL.md",
          "---\nname: lint\ndescription: lint things\n---\nRun the linter.\n")
    write(home / ".claude.json", json.dumps({
        "numStartups": 12, "theme": "dark",
        "mcpServers": {"fs": {"type": "stdio", "command": "mcp-fs"}},
        "projects": {"/x": {"allowedTools": []}}}))
    write(home / ".claude" / "settings.json", '{\n\t"model": "opus"\n}\n')
    write(home / ".claude" / "CLAUDE.md", "Be terse.\n")


def test_claude_code_project_round_trip_and_what_claude_reads(project, home, dream,
                                                              dream_home):
    claude_existing(project, home)
    before = snapshot(project, home)
    dry = dream("install", "claude-code", "--project", "--dry-run", "--json")
    assert json.loads(dry.output)["changes"] and snapshot(project, home) == before

    result = json.loads(dream("install", "claude-code", "--project", "--json").output)
    assert {c["action"] for c in result["changes"]} == {"create", "modify"}
    # .mcp.json: Dream's server beside the other one
    mcp = json.loads((project / ".mcp.json").read_text())
    assert set(mcp["mcpServers"]) == {"github", "dream"}
    server = mcp["mcpServers"]["dream"]
    assert server["args"][-1] == "mcp" and Path(server["command"]).is_absolute()
    assert server["env"]["DREAM_HOME"] == str(dream_home)
    # hooks: every event calls dream hook; the user's hooks are untouched
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["permissions"] == {"allow": ["Bash(npm test)"]}
    for event in ("SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"):
        commands = [h["command"] for g in settings["hooks"][event] for h in g["hooks"]]
        assert any(f"hook --agent claude-code {event}" in c for c in commands)
    assert settings["hooks"]["PreCompact"][0]["hooks"][0]["command"] == "backup-transcript.sh"
    assert settings["hooks"]["PostToolUse"][0]["matcher"] == "Write"
    # skills in the Agent Skills layout, next to the user's own
    for name in ("memory", "dream"):
        text = (project / ".claude" / "skills" / name / "SKILL.md").read_text()
        meta = yaml.safe_load(text.split("---\n")[1])
        assert meta["name"] == name
    assert (project / ".claude" / "skills" / "dream" / "playbook.md").exists()
    assert (project / ".claude" / "skills" / "lint" / "SKILL.md").exists()
    # CLAUDE.md imports the brief with an @path line, after the user's text
    memory = (project / "CLAUDE.md").read_text()
    assert memory.startswith("# Project\n\nUse pnpm, not npm.\n")
    imports = [line[1:] for line in memory.splitlines() if line.startswith("@")]
    assert imports == [str(dream_home / "notes" / "projects" / "proj" / "brief.md")]
    # the hook command Claude Code would run works from a shell and exits 0
    hook_cmd = settings["hooks"]["SessionEnd"][-1]["hooks"][0]["command"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    ran = subprocess.run(hook_cmd, shell=True, input=json.dumps({"session_id": "x"}),
                         capture_output=True, text=True, env=env, cwd=project, timeout=60)
    assert ran.returncode == 0 and ran.stderr == ""

    # installing again changes nothing
    again = json.loads(dream("install", "claude-code", "--json").output)
    assert again["changes"] == []
    # the user home was not touched by a project install
    assert {k: v for k, v in snapshot(home).items()} == \
        {k: v for k, v in before.items() if k.startswith(str(home))}

    installed = snapshot(project, home)
    plan = json.loads(dream("uninstall", "claude-code", "--dry-run", "--json").output)
    assert {c["action"] for c in plan["changes"]} == {"restore", "delete"}
    assert snapshot(project, home) == installed                  # a dry run writes nothing
    dream("uninstall", "claude-code", "--project")
    assert snapshot(project, home) == before


def test_claude_code_user_round_trip(project, home, dream):
    claude_existing(project, home)
    before = snapshot(project, home)
    dream("install", "claude-code", "--user")
    data = json.loads((home / ".claude.json").read_text())
    assert set(data["mcpServers"]) == {"fs", "dream"} and data["numStartups"] == 12
    assert "dream" not in json.loads((project / ".mcp.json").read_text())["mcpServers"]
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["model"] == "opus" and "UserPromptSubmit" in settings["hooks"]
    assert (home / ".claude" / "skills" / "memory" / "SKILL.md").exists()
    assert "@" in (home / ".claude" / "CLAUDE.md").read_text()
    dream("uninstall", "claude-code", "--user")
    assert snapshot(project, home) == before


def test_uninstall_keeps_changes_the_user_made_since(project, home, dream):
    claude_existing(project, home)
    dream("install", "claude-code")
    path = project / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    settings["hooks"].setdefault("Stop", []).append(
        {"hooks": [{"type": "command", "command": "notify-send done"}]})
    path.write_text(json.dumps(settings, indent=2) + "\n")
    dream("uninstall", "claude-code")
    left = json.loads(path.read_text())
    assert left["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done"
    assert set(left["hooks"]) == {"PreCompact", "PostToolUse", "Stop"}
    assert "dream" not in json.dumps(left)


def test_uninstall_without_a_record_still_removes_dreams_entries(project, home, dream,
                                                                 dream_home):
    dream("install", "claude-code")
    (dream_home / "integrations" / "manifest.json").unlink()
    dream("uninstall", "claude-code")
    assert not (project / ".mcp.json").exists()
    assert not (project / "CLAUDE.md").exists()
    assert not (project / ".claude" / "settings.json").exists()


def test_bad_existing_file_refuses_and_writes_nothing(project, home, dream):
    write(project / ".mcp.json", "{ not json")
    before = snapshot(project, home)
    result = dream("install", "claude-code", ok=False)
    assert result.exit_code != 0
    assert "is not valid JSON" in result.output and "Traceback" not in result.output
    assert snapshot(project, home) == before


def test_pi_round_trip(project, home, dream, dream_home):
    write(project / "AGENTS.md", "# Agents\n\n- run `make test` before committing\n")
    write(home / ".pi" / "agent" / "AGENTS.md", "Global rules.\n")
    write(home / ".pi" / "agent" / "settings.json", '{"skills": {"enabled": true}}\n')
    write(home / ".pi" / "agent" / "skills" / "web" / "SKILL.md",
          "---\nname: web\ndescription: x\n---\n")
    before = snapshot(project, home)
    for scope, agents_md, skills in (
            ("--project", project / "AGENTS.md", project / ".pi" / "skills"),
            ("--user", home / ".pi" / "agent" / "AGENTS.md", home / ".pi" / "agent" / "skills")):
        dream("install", "pi", scope)
        text = agents_md.read_text()
        assert "<!-- dream:begin pi -->" in text and "brief.md" in text
        assert "dream search" in text and "mcp" not in text.lower().replace("no mcp", "")
        assert (skills / "memory" / "SKILL.md").exists()
        assert (skills / "dream" / "playbook.md").exists()
    assert (home / ".pi" / "agent" / "skills" / "web" / "SKILL.md").exists()
    dream("uninstall", "pi", "--project")
    dream("uninstall", "pi", "--user")
    assert snapshot(project, home) == before


CODEX_TOML = """# my codex config
model = "o3"  # the default model

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]   # keep this comment

[profiles.fast]
model = "o4-mini"
"""


def test_codex_round_trip_keeps_comments(project, home, dream, dream_home):
    write(home / ".codex" / "config.toml", CODEX_TOML)
    write(home / ".codex" / "AGENTS.md", "Global.")
    before = snapshot(project, home)
    dream("install", "codex", "--user")
    text = (home / ".codex" / "config.toml").read_text()
    assert text.startswith(CODEX_TOML)                         # every byte before is kept
    parsed = tomllib.loads(text)
    assert set(parsed["mcp_servers"]) == {"docs", "dream"}
    assert parsed["mcp_servers"]["dream"]["args"][-1] == "mcp"
    assert parsed["mcp_servers"]["dream"]["env"] == {"DREAM_HOME": str(dream_home)}
    assert parsed["profiles"]["fast"]["model"] == "o4-mini" and parsed["model"] == "o3"
    assert parsed["features"] == {"codex_hooks": True}          # hooks are behind this flag
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    for event in ("SessionStart", "UserPromptSubmit", "Stop"):
        [group] = hooks[event]
        assert group["hooks"][0]["command"].endswith(f"hook --agent codex {event}")
    assert (home / ".agents" / "skills" / "memory" / "SKILL.md").exists()
    assert "brief.md" in (home / ".codex" / "AGENTS.md").read_text()
    dream("install", "codex", "--project")
    assert "dream" in tomllib.loads((project / ".codex" / "config.toml").read_text())[
        "mcp_servers"]
    assert (project / ".agents" / "skills" / "dream" / "SKILL.md").exists()
    dream("uninstall", "codex", "--user")
    dream("uninstall", "codex", "--project")
    assert snapshot(project, home) == before


def test_codex_with_its_own_features_table(project, home, dream):
    text = "[features]\nweb_search = true\n"
    write(home / ".codex" / "config.toml", text)
    write(home / ".codex" / "hooks.json", json.dumps({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "say done"}]}]}}, indent=2) + "\n")
    before = snapshot(project, home)
    out = json.loads(dream("install", "codex", "--user", "--json").output)
    assert any("codex_hooks = true" in note for note in out["notes"])
    parsed = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert parsed["features"] == {"web_search": True}           # the user's table, untouched
    stop = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]["Stop"]
    assert stop[0]["hooks"][0]["command"] == "say done" and len(stop) == 2
    assert json.loads(dream("install", "codex", "--user", "--json").output)["changes"] == []
    dream("uninstall", "codex", "--user")
    assert snapshot(project, home) == before


def test_codex_existing_dream_table_refuses(project, home, dream):
    write(home / ".codex" / "config.toml", '[mcp_servers.dream]\ncommand = "old"\n')
    before = snapshot(project, home)
    result = dream("install", "codex", "--user", ok=False)
    assert result.exit_code != 0 and "[mcp_servers.dream]" in result.output
    assert snapshot(project, home) == before


def test_codex_home_and_pi_dir_are_respected(project, home, dream, monkeypatch, tmp_path):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "ch"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi"))
    dream("install", "codex", "--user")
    dream("install", "pi", "--user")
    assert (tmp_path / "ch" / "config.toml").exists()
    assert (tmp_path / "pi" / "skills" / "memory" / "SKILL.md").exists()
    dream("uninstall", "codex", "--user")
    dream("uninstall", "pi", "--user")
    assert not (tmp_path / "ch").exists() and not (tmp_path / "pi").exists()


def test_the_imported_brief_is_the_one_a_dream_run_renders(project, home, dream, tmp_path):
    dream("install", "claude-code")
    memory = (project / "CLAUDE.md").read_text()
    [brief] = [Path(line[1:]) for line in memory.splitlines() if line.startswith("@")]
    assert not brief.exists()
    rows = []
    for i, (role, text) in enumerate([
            ("user", "Always use pnpm, never npm, in this repository."),
            ("assistant", "Understood."),
            ("user", "The staging database runs on port 5433.")]):
        message = ({"role": role, "content": text} if role == "user" else
                   {"role": role, "content": [{"type": "text", "text": text}]})
        rows.append({"type": role, "uuid": f"u{i}", "parentUuid": f"u{i - 1}" if i else None,
                     "isSidechain": False, "cwd": str(project), "sessionId": "s-brief",
                     "timestamp": f"2026-11-30T10:0{i}:00.000Z", "message": message})
    transcript = tmp_path / "s-brief.jsonl"
    transcript.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    dream("collect", str(transcript), "--source", "claude_code")
    dream("run")
    assert brief.is_file() and "pnpm" in brief.read_text()


def test_install_before_init_says_to_init(repo, home, dream):
    out = json.loads(dream("install", "claude-code", "--json").output)
    assert any("dream init" in note for note in out["notes"])
    assert (repo / ".mcp.json").exists()
    dream("uninstall", "claude-code")
    assert not (repo / ".mcp.json").exists() and not (repo / ".claude").exists()


def _lists_tools(command: str, args: list[str], env: dict[str, str], cwd: Path) -> set[str]:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command, args=args, cwd=str(cwd),
                                   env={**env, "PYTHONPATH": str(REPO_ROOT / "src")})

    async def scenario():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return {t.name for t in (await session.list_tools()).tools}

    return anyio.run(scenario)


def test_registered_servers_start_and_list_tools(project, home, dream):
    """Start the server exactly as .mcp.json and Codex's config.toml describe it."""
    dream("install", "claude-code")
    dream("install", "codex", "--user")
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["dream"]
    names = _lists_tools(entry["command"], entry["args"], entry.get("env", {}), project)
    assert {"notes_write", "notes_find", "tool_search"} <= names
    codex = tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]["dream"]
    assert _lists_tools(codex["command"], codex["args"], codex.get("env", {}), project) == names
