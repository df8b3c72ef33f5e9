"""Installers: each on a temporary home with an existing configuration that has other
entries; install, check what the agent reads, uninstall, compare bytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


@pytest.fixture(autouse=True)
def dream_on_path(tmp_path, monkeypatch) -> Path:
    """A ``dream`` on PATH that runs this checkout, as pip/pipx would put one there."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "dream"
    shim.write_text(f"#!/bin/sh\nPYTHONPATH={REPO_ROOT / 'src'} exec {sys.executable} "
                    "-m dream \"$@\"\n")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    return shim


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
    # .mcp.json: Dream's server beside the other one, by name from PATH, waited for
    mcp = json.loads((project / ".mcp.json").read_text())
    assert set(mcp["mcpServers"]) == {"github", "dream"}
    server = mcp["mcpServers"]["dream"]
    assert server == {"type": "stdio", "command": "dream", "args": ["mcp"], "alwaysLoad": True}
    # nothing of this machine in the files a team commits; the moved home goes to the
    # local override Claude Code keeps out of git
    committed = [project / ".mcp.json", project / ".claude" / "settings.json",
                 project / "CLAUDE.md"]
    for path in committed:
        assert str(dream_home) not in path.read_text() and sys.executable not in \
            path.read_text()
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert local == {"env": {"DREAM_HOME": str(dream_home)}}
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
    # the brief comes from the SessionStart hook, not an import of a file outside the
    # project (which Claude Code loads only after an approval dialog)
    assert (project / "CLAUDE.md").read_text() == "# Project\n\nUse pnpm, not npm."
    start = settings["hooks"]["SessionStart"][-1]["hooks"][0]["command"]
    assert start == "dream hook --agent claude-code SessionStart --brief project"
    # the hook command Claude Code would run works from a shell and exits 0
    hook_cmd = settings["hooks"]["SessionEnd"][-1]["hooks"][0]["command"]
    ran = subprocess.run(hook_cmd, shell=True, input=json.dumps({"session_id": "x"}),
                         capture_output=True, text=True, cwd=project, timeout=60)
    assert ran.returncode == 0 and ran.stderr == ""

    # installing again changes nothing
    again = json.loads(dream("install", "claude-code", "--json").output)
    assert again["changes"] == []
    # the user home was not touched by a project install
    assert {k: v for k, v in snapshot(home).items()} == \
        {k: v for k, v in before.items() if k.startswith(str(home))}

    # the user approves the project's server in Claude Code's dialog
    local_path = project / ".claude" / "settings.local.json"
    local["enabledMcpjsonServers"] = ["dream"]
    local_path.write_text(json.dumps(local, indent=2) + "\n")
    installed = snapshot(project, home)
    plan = json.loads(dream("uninstall", "claude-code", "--dry-run", "--json").output)
    assert {c["action"] for c in plan["changes"]} == {"restore", "delete"}
    assert snapshot(project, home) == installed                  # a dry run writes nothing
    dream("uninstall", "claude-code", "--project")
    assert snapshot(project, home) == before                     # approval gone too


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
    # a user file lives on this machine: it names this install's dream, by absolute path
    assert Path(data["mcpServers"]["dream"]["command"]).is_absolute()
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
    # a CLAUDE.md import block an earlier Dream wrote
    write(project / "CLAUDE.md", "<!-- dream:begin claude-code -->\n@/old/brief.md\n"
                                 "<!-- dream:end claude-code -->\n")
    (dream_home / "integrations" / "manifest.json").unlink()
    dream("uninstall", "claude-code")
    assert not (project / ".mcp.json").exists()
    assert not (project / "CLAUDE.md").exists()
    assert not (project / ".claude" / "settings.json").exists()
    assert not (project / ".claude" / "settings.local.json").exists()


def test_bad_existing_file_refuses_and_writes_nothing(project, home, dream):
    write(project / ".mcp.json", "{ not json")
    before = snapshot(project, home)
    result = dream("install", "claude-code", ok=False)
    assert result.exit_code != 0
    assert "is not valid JSON" in result.output and "Traceback" not in result.output
    assert snapshot(project, home) == before


@pytest.mark.parametrize("settings, where", [
    ('{"hooks": []}', "'hooks' is a list"),
    ('{"hooks": {"SessionStart": "echo hi"}}', "'hooks.SessionStart' is a string"),
    ('{"env": ["DREAM_HOME"]}', "'env' is a list"),
])
def test_a_setting_of_another_shape_refuses_and_writes_nothing(project, home, dream, settings,
                                                                where):
    # valid JSON whose 'hooks' (or 'env') is not the object Claude Code documents: one line
    # naming the file and the setting, never an internal error, and no file half-written
    target = ".claude/settings.local.json" if "env" in settings else ".claude/settings.json"
    write(project / target, settings)
    before = snapshot(project, home)
    result = dream("install", "claude-code", "--project", ok=False)
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert f"{project / target}: {where}" in result.output, result.output
    assert "internal error" not in result.output and "fix it by hand" in result.output
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
        assert "<!-- dream:begin pi -->" in text and "`dream brief" in text
        assert "dream search" in text and "mcp" not in text.lower().replace("no mcp", "")
        assert str(dream_home) not in text and sys.executable not in text
        assert (skills / "memory" / "SKILL.md").exists()
        assert (skills / "dream" / "playbook.md").exists()
        ext = (skills.parent / "extensions" / "dream.ts").read_text()
        assert '["hook", "--agent", "pi", event]' in ext         # calls `dream hook`
        assert f'"{scope[2:]}"' in ext and "__DREAM_BRIEF_SCOPE__" not in ext
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
    assert parsed["mcp_servers"]["dream"]["required"] is True   # codex exec waits for it
    assert parsed["profiles"]["fast"]["model"] == "o4-mini" and parsed["model"] == "o3"
    assert "features" not in parsed         # hooks are on by default; codex_hooks warns
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    for event in ("SessionStart", "UserPromptSubmit", "Stop"):
        [group] = hooks[event]
        assert f"hook --agent codex {event}" in group["hooks"][0]["command"]
    assert (home / ".agents" / "skills" / "memory" / "SKILL.md").exists()
    assert "`dream brief --user`" in (home / ".codex" / "AGENTS.md").read_text()
    out = json.loads(dream("install", "codex", "--project", "--json").output)
    assert any("/hooks" in note for note in out["notes"])      # the one step to take
    project_server = tomllib.loads((project / ".codex" / "config.toml").read_text())[
        "mcp_servers"]["dream"]
    assert project_server == {"command": "dream", "args": ["mcp"], "required": True,
                              "env_vars": ["DREAM_HOME"]}
    # Codex records the user's trust of Dream's hooks in the config; uninstall takes it out
    key = f"{home / '.codex' / 'hooks.json'}:stop:0:0"
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text() + f'\n[hooks.state."{key}"]\n'
                      'trusted_hash = "sha256:00"\n')
    assert (project / ".agents" / "skills" / "dream" / "SKILL.md").exists()
    dream("uninstall", "codex", "--user")
    dream("uninstall", "codex", "--project")
    assert snapshot(project, home) == before


def test_codex_with_its_own_features_table(project, home, dream):
    text = "[features]\nweb_search = true\nhooks = false\n"
    write(home / ".codex" / "config.toml", text)
    write(home / ".codex" / "hooks.json", json.dumps({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "say done"}]}]}}, indent=2) + "\n")
    before = snapshot(project, home)
    out = json.loads(dream("install", "codex", "--user", "--json").output)
    assert any("hooks = true" in note for note in out["notes"])
    parsed = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert parsed["features"] == {"web_search": True, "hooks": False}   # the user's table
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


def test_codex_config_with_a_byte_order_mark_or_a_typo(project, home, dream):
    """A config.toml saved by Notepad starts with a byte-order mark (Codex's Rust TOML reads
    it); install refused it, blaming 'an existing [mcp_servers.dream] table'. It is now
    wired in and taken out byte for byte; a file that is no TOML before Dream touches it
    is named as the user's to fix."""
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(b'\xef\xbb\xbfmodel = "o3"\n')
    before = snapshot(project, home)
    dream("install", "codex", "--user")
    parsed = tomllib.loads(config.read_bytes().decode("utf-8-sig"))
    assert parsed["model"] == "o3" and "dream" in parsed["mcp_servers"]
    dream("uninstall", "codex", "--user")
    assert snapshot(project, home) == before
    config.write_text("model = \n")
    before = snapshot(project, home)
    result = dream("install", "codex", "--user", ok=False)
    assert result.exit_code == 1 and "is not valid TOML (Invalid value" in result.output
    assert "fix the file by hand" in result.output
    assert "[mcp_servers.dream]" not in result.output
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


def test_the_brief_the_hook_prints_is_the_one_a_dream_run_renders(project, home, dream,
                                                                   tmp_path):
    dream("install", "claude-code")
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    start = settings["hooks"]["SessionStart"][-1]["hooks"][0]["command"]
    payload = json.dumps({"session_id": "s-start", "cwd": str(project),
                          "hook_event_name": "SessionStart"})

    def session_start() -> str:
        ran = subprocess.run(start, shell=True, input=payload, capture_output=True, text=True,
                             cwd=project, timeout=60)
        assert ran.returncode == 0 and ran.stderr == "", ran.stderr
        return ran.stdout

    assert session_start() == ""                                # no brief before a dream
    assert "no brief yet" in dream("brief").output
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
    context = json.loads(session_start())["hookSpecificOutput"]["additionalContext"]
    assert "pnpm" in context and "pnpm" in dream("brief").output


def test_install_before_init_says_to_init(repo, home, dream):
    out = json.loads(dream("install", "claude-code", "--json").output)
    assert any("dream init" in note for note in out["notes"])
    assert (repo / ".mcp.json").exists()
    dream("uninstall", "claude-code")
    assert not (repo / ".mcp.json").exists() and not (repo / ".claude").exists()


def test_install_in_a_repository_dream_does_not_know_says_to_init_there(
        project, home, dream, make_repo, monkeypatch):
    known = json.loads(dream("install", "claude-code", "--dry-run", "--json").output)
    assert not any("not a project Dream knows" in note for note in known["notes"])
    other = make_repo("other")
    monkeypatch.chdir(other)
    out = json.loads(dream("install", "claude-code", "--dry-run", "--json").output)
    assert f"{other} is not a project Dream knows yet: run 'dream init' there, or no dream " \
        "runs over its sessions and no brief is written for it" in out["notes"]
    user = json.loads(dream("install", "claude-code", "--user", "--dry-run", "--json").output)
    assert not any("not a project Dream knows" in note for note in user["notes"])


def _lists_tools(command: str, args: list[str], env: dict[str, str], cwd: Path) -> set[str]:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command, args=args, cwd=str(cwd),
                                   env={**env, "PATH": os.environ["PATH"],
                                        "DREAM_HOME": os.environ["DREAM_HOME"]})

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
