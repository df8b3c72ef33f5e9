"""The real Claude Code, Codex and Pi, installed from npm at the versions pinned in
``versions.json``, each driving whole sessions offline against a local model server
(:mod:`model_server`) in a throw-away HOME.

For each client: Dream is reached from the session and the change is committed in the
store; hooks fire; the brief reaches the model; the transcript is collected with the user's
words as evidence and the assistant's prose not; an automation wake reaches the model
(Claude Code, Codex); uninstall gives back every file byte for byte and the client starts
cleanly after it. The clients are installed by ``tests/clients/install.py`` (which
``scripts/test`` runs first, and which a session fixture runs when needed); without npm or
the registry the tests skip with one line.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import install  # noqa: E402
from harness import Machine, codex_trust_hooks, snapshot  # noqa: E402
from model_server import Call, ModelServer, Say, Script  # noqa: E402

BRIEF = "Dream brief: the shop deploys with blue-green switches on Fridays."
PROMPT = "Remember this for later: we use SQLite for storage, never Postgres."
ANSWER = "Noted in Dream; the storage choice is recorded."
WAKE = "'Dream before compaction' fired"
NOTE = "@projects/shop/decisions/storage.md"
NOTE_PATH = "projects/shop/decisions/storage.md"
# input tokens the model server reports per call: past the lowered threshold of the
# model's window (Claude Code's default model: 1,000,000) yet under the client's own
# auto-compaction (Codex's fallback window for an unknown model: 258,400)
USAGE = 600_000
CODEX_USAGE = 150_000
PI_USAGE = 150_000          # of 200,000 (models.json; Pi compacts near the end)
THRESHOLD = "[automations]\nbefore_compaction = 0.5\n"


@pytest.fixture(scope="session")
def clients() -> dict:
    # DREAM_CLIENTS=latest runs the tier against the newest npm versions instead of the pins
    latest = os.environ.get("DREAM_CLIENTS") == "latest"
    status = install.install(latest=latest, log=lambda line: print(line, flush=True))
    if not status.get("ok"):
        pytest.skip(f"real clients not available: {status.get('reason')}")
    return status


@pytest.fixture
def machine(tmp_path, clients) -> Machine:
    m = Machine(tmp_path / "m", Path(clients["bin"]))
    m.dream("init")
    return m


@pytest.mark.filterwarnings("default::UserWarning")
def test_newest_npm_versions_match_the_pins():
    """Upgrading a pinned client is a deliberate commit: say when npm has a newer one."""
    newest = install.latest_versions(timeout=30)
    if newest is None:
        pytest.skip("the npm registry cannot be reached")
    behind = {p: (v, newest[p]) for p, v in install.pinned().items() if newest[p] != v}
    if behind:
        warnings.warn(UserWarning("newer client versions on npm than pinned in "
                                  "tests/clients/versions.json: " + ", ".join(
                                      f"{p} {old} -> {new}" for p, (old, new) in behind.items())),
                      stacklevel=1)


def wrote_note_script() -> Script:
    return Script([Call("notes_write", {"address": NOTE, "text": "We use SQLite for storage, "
                                        "never Postgres.\n"}), Say(ANSWER)])


def check_note_committed(m: Machine) -> None:
    shown = m.dream_json("notes", "show", NOTE)
    assert "SQLite" in shown["body"]
    assert m.note_commits(NOTE_PATH), "the note is not in a commit of the notes home"


def check_evidence(m: Machine, source: str) -> None:
    items = m.items(source)
    typed = [i for i in items if i["role"] == "user" and PROMPT in i["text"]]
    # the typed words are a statement once (a client's echo of them is meta)
    assert [i["kind"] for i in typed if i["evidence"] == 1] == ["statement"], items
    prose = [i for i in items if i["role"] == "assistant" and ANSWER in i["text"]]
    assert prose and all(i["evidence"] == 0 for i in prose), items


# -- Claude Code ------------------------------------------------------------------------------
def claude(m: Machine, server: ModelServer, *args: str, **kw):
    env = {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-test-offline",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
           "DISABLE_TELEMETRY": "1"}
    return m.run("claude", *args, env=env, **kw)


def test_claude_code(machine):
    m = machine
    m.configure(THRESHOLD)
    (m.repo / "CLAUDE.md").write_text("# Shop\n\nRun `make test` before committing.\n")
    (m.repo / ".claude").mkdir()
    (m.repo / ".claude" / "settings.json").write_text(
        '{\n  "permissions": {"allow": ["Bash(make test)"]}\n}\n')
    before = snapshot(m.repo)
    m.write_brief(f"# Brief\n\n{BRIEF}\n")
    m.dream("install", "claude-code", "--project")
    # the user approves the project's server in Claude Code's dialog (kept in the local file)
    local = m.repo / ".claude" / "settings.local.json"
    data = json.loads(local.read_text())
    data["enabledMcpjsonServers"] = ["dream"]
    local.write_text(json.dumps(data, indent=2) + "\n")

    with ModelServer(wrote_note_script(), usage=USAGE) as server:
        # DREAM_HOME is not in Claude Code's environment: the hooks and the server find the
        # home through .claude/settings.local.json
        first = claude(m, server, "-p", PROMPT, "--output-format", "json",
                       "--allowedTools", "mcp__dream__notes_write", drop=("DREAM_HOME",))
        result = json.loads(first.stdout)
        assert result["result"] == ANSWER and not result["is_error"]
        session = result["session_id"]
        asked = server.model_requests()
        # the brief, printed by the SessionStart hook, is in what the model is sent
        assert BRIEF in asked[0].text()
        # Dream's tools are offered from the first request, and the call went through
        assert "mcp__dream__notes_write" in asked[0].text()
        assert any('"tool_result"' in r.text() and "commit" in r.text() for r in asked)
        assert server.errors == []
        check_note_committed(m)
        # hooks fired, without warnings
        log = [line for line in m.hook_log() if session in line]
        for event in ("SessionStart", "UserPromptSubmit", "SessionEnd"):
            assert any(f" {event} " in line and "warnings=0" in line for line in log), log
        # SessionEnd collected the transcript: the typed words are evidence, prose is not
        check_evidence(m, "claude_code")
        # the fire on SessionEnd never reached the model: it waits for the next session start
        assert [w["session_id"] for w in m.journal("dream.requested")] == [session]
        assert m.journal("dream.woke") == []
        assert not any(WAKE in r.text() for r in asked)
        resumed = claude(m, server, "-p", "What should we do next?", "--resume", session,
                         drop=("DREAM_HOME",))
        assert resumed.returncode == 0
        later = server.model_requests()[len(asked):]
        assert any(WAKE in r.text() for r in later), "the wake did not reach the model"
        assert len(m.journal("dream.woke")) == 1

        # `claude mcp list` runs a SessionEnd for a session that never was: no warning
        listed = claude(m, server, "mcp", "list", drop=("DREAM_HOME",))
        assert "dream" in listed.stdout
        assert not any("warnings=1" in line for line in m.hook_log())

        m.dream("uninstall", "claude-code", "--project")
        assert snapshot(m.repo) == before          # approval entry and local file gone too
        count = len(server.model_requests())
        lines = len(m.hook_log())
        server.script = Script([Say("Hello.")])
        clean = claude(m, server, "-p", "hello", "--output-format", "json")
        assert json.loads(clean.stdout)["result"] == "Hello."
        assert "dream" not in clean.stderr.lower()
        assert "mcp__dream" not in server.model_requests()[count].text()
        assert len(m.hook_log()) == lines                      # no Dream hook ran


def test_claude_code_user_scope(machine):
    """--user: the server in ~/.claude.json, hooks in ~/.claude/settings.json, the user's
    brief through the @-import in ~/.claude/CLAUDE.md (no approval needed there)."""
    m = machine
    claude_dir = m.home / ".claude"
    claude_dir.mkdir()
    (claude_dir / "CLAUDE.md").write_text("Answer briefly.\n")
    (claude_dir / "settings.json").write_text('{\n  "theme": "dark"\n}\n')
    before = snapshot(claude_dir)
    brief = m.dream_json("brief", "--user")["path"]
    Path(brief).parent.mkdir(parents=True, exist_ok=True)
    Path(brief).write_text(f"# Your brief\n\n{BRIEF}\n")
    m.dream("install", "claude-code", "--user")
    with ModelServer(wrote_note_script()) as server:
        first = claude(m, server, "-p", PROMPT, "--output-format", "json",
                       "--allowedTools", "mcp__dream__notes_write")
        result = json.loads(first.stdout)
        assert result["result"] == ANSWER
        asked = server.model_requests()
        assert BRIEF in asked[0].text()                     # the @-import was loaded
        assert "mcp__dream__notes_write" in asked[0].text()
        check_note_committed(m)
        log = [line for line in m.hook_log() if result["session_id"] in line]
        assert any(" SessionEnd " in line and "warnings=0" in line for line in log), log

        m.dream("uninstall", "claude-code", "--user")
        after = snapshot(claude_dir)
        for path, data in before.items():
            assert after[path] == data                     # settings.json, CLAUDE.md
        assert not (claude_dir / "skills").exists()
        config = json.loads((m.home / ".claude.json").read_text())
        assert "dream" not in config.get("mcpServers", {})
        count, lines = len(server.model_requests()), len(m.hook_log())
        server.script = Script([Say("Hello.")])
        clean = claude(m, server, "-p", "hello", "--output-format", "json")
        assert json.loads(clean.stdout)["result"] == "Hello."
        assert BRIEF not in server.model_requests()[count].text()
        assert len(m.hook_log()) == lines


# -- Codex ---------------------------------------------------------------------------------------
def codex_config(server: ModelServer, repo: Path) -> str:
    """The user's own Codex configuration: the local model provider, the project trusted."""
    return (f'model = "fake-model"\nmodel_provider = "local"\n\n'
            f'[model_providers.local]\nname = "local test server"\n'
            f'base_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "LOCAL_API_KEY"\n'
            f'\n[projects."{repo}"]\ntrust_level = "trusted"\n')


def codex(m: Machine, *args: str, approve: bool = True, **kw):
    # approving Dream's tools for this run is the user's choice (codex exec cannot ask)
    flags = ["-c", 'mcp_servers.dream.default_tools_approval_mode="approve"'] if approve else []
    return m.run("codex", "exec", "--json", "--skip-git-repo-check", *flags, *args,
                 env={"LOCAL_API_KEY": "offline"}, **kw)


def events(proc) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def errors_of(evs: list[dict]) -> list[str]:
    return [e["item"]["message"] for e in evs if e.get("type") == "item.completed"
            and e["item"].get("type") == "error"
            and not e["item"]["message"].startswith("Model metadata for")]


def test_codex(machine):
    m = machine
    m.configure(THRESHOLD)
    (m.repo / "AGENTS.md").write_text("# Shop\n\nRun `make test` before committing.\n")
    with ModelServer(wrote_note_script(), usage=CODEX_USAGE) as server:
        user_config = m.home / ".codex" / "config.toml"
        user_config.parent.mkdir()
        user_config.write_text(codex_config(server, m.repo))
        before = snapshot(m.repo)
        config_before = user_config.read_bytes()
        m.write_brief(f"# Brief\n\n{BRIEF}\n")
        out = m.dream_json("install", "codex", "--project")
        assert any("/hooks" in note for note in out["notes"])
        assert str(m.dream_home) not in (m.repo / ".codex" / "config.toml").read_text()
        # untrusted hooks do not run (codex exec says nothing): the user trusts them
        assert len(codex_trust_hooks(m)) == 3

        first = codex(m, PROMPT)
        evs = events(first)
        assert errors_of(evs) == []          # no codex_hooks deprecation, no failed server
        thread = next(e["thread_id"] for e in evs if e["type"] == "thread.started")
        calls = [e["item"] for e in evs if e.get("type") == "item.completed"
                 and e["item"].get("type") == "mcp_tool_call"]
        assert [(c["server"], c["tool"], c["status"]) for c in calls] == \
            [("dream", "notes_write", "completed")], calls
        asked = server.model_requests()
        assert "mcp__dream" in asked[0].text()                 # offered in a plain exec
        assert BRIEF in asked[0].text()                        # SessionStart hook output
        assert server.errors == []
        check_note_committed(m)
        log = [line for line in m.hook_log() if thread in line]
        for event in ("SessionStart", "UserPromptSubmit", "Stop"):
            assert any(f" {event} " in line and "warnings=0" in line for line in log), log
        check_evidence(m, "codex")
        tools = {i["tool_name"] for i in m.items("codex") if i["tool_name"]}
        assert "mcp__dream__notes_write" in tools
        # Stop fired the automation; its output never reaches the model: the wake waits
        assert [w["session_id"] for w in m.journal("dream.requested")] == [thread]
        assert not any(WAKE in r.text() for r in asked)
        server.script = Script([Say("Next: write the migration.")])
        resumed = codex(m, "resume", thread, "What should we do next?")
        assert errors_of(events(resumed)) == []
        later = server.model_requests()[len(asked):]
        assert any(WAKE in r.text() for r in later), "the wake did not reach the model"

        m.dream("uninstall", "codex", "--project")
        assert snapshot(m.repo) == before
        assert user_config.read_bytes() == config_before       # trust entries gone too
        count, lines = len(server.model_requests()), len(m.hook_log())
        clean = codex(m, "hello", approve=False)
        assert errors_of(events(clean)) == [] and clean.returncode == 0
        assert "mcp__dream" not in server.model_requests()[count].text()
        assert len(m.hook_log()) == lines


def test_codex_user_scope(machine):
    """--user: Dream's table, its hooks and Codex's trust of them all in the user's
    CODEX_HOME; uninstall gives the config back byte for byte."""
    m = machine
    with ModelServer(wrote_note_script()) as server:
        codex_home = m.home / "codex-home"
        codex_home.mkdir()
        m.env["CODEX_HOME"] = str(codex_home)
        config = codex_home / "config.toml"
        config.write_text("# my settings\n" + codex_config(server, m.repo))
        before = snapshot(codex_home)
        m.write_brief(f"# Brief\n\n{BRIEF}\n")
        brief = Path(m.dream_json("brief", "--user")["path"])
        brief.parent.mkdir(parents=True, exist_ok=True)
        brief.write_text(f"# Your brief\n\nThe user's brief: {BRIEF}\n")
        m.dream("install", "codex", "--user")
        assert len(codex_trust_hooks(m)) == 3
        first = codex(m, PROMPT)
        evs = events(first)
        assert errors_of(evs) == []
        calls = [e["item"] for e in evs if e.get("type") == "item.completed"
                 and e["item"].get("type") == "mcp_tool_call"]
        assert [c["status"] for c in calls] == ["completed"], calls
        assert "The user's brief" in server.model_requests()[0].text()
        check_note_committed(m)
        m.dream("uninstall", "codex", "--user")
        after = snapshot(codex_home)
        assert after[str(config)] == before[str(config)]      # trust tables gone too
        assert not (codex_home / "hooks.json").exists()
        server.script = Script([Say("Hello.")])
        clean = codex(m, "hello", approve=False)
        assert errors_of(events(clean)) == [] and clean.returncode == 0


# -- Pi ------------------------------------------------------------------------------------------
def pi_models(server: ModelServer) -> str:
    """The user's models.json: a custom provider speaking Chat Completions."""
    return json.dumps({"providers": {"local": {
        "baseUrl": f"{server.url}/v1", "api": "openai-completions", "apiKey": "offline",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [{"id": "fake-model", "contextWindow": 200000, "maxTokens": 4096}]}}},
        indent=2) + "\n"


def pi(m: Machine, prompt: str, extra: tuple[str, ...] = (), **kw):
    return m.run("pi", "-p", "--provider", "local", "--model", "fake-model", "--offline",
                 *extra, prompt, env={"PI_OFFLINE": "1"}, input="", **kw)


def test_pi(machine):
    """Pi has no MCP and no hook file: the model uses the dream command line through Pi's
    bash tool, and Dream's Pi extension calls `dream hook` at Pi's lifecycle events."""
    m = machine
    m.configure(THRESHOLD)
    (m.repo / "AGENTS.md").write_text("# Shop\n\nRun `make test` before committing.\n")
    script = Script([
        Call("bash", {"command": f"dream notes write {NOTE} 'We use SQLite for storage, "
                                 "never Postgres.'"}),
        Say(ANSWER)])
    with ModelServer(script, usage=PI_USAGE) as server:
        agent_dir = m.home / ".pi" / "agent"
        agent_dir.mkdir(parents=True)
        (agent_dir / "models.json").write_text(pi_models(server))
        before = snapshot(m.repo)
        m.write_brief(f"# Brief\n\n{BRIEF}\n")
        m.dream("install", "pi", "--project")

        first = pi(m, PROMPT)
        assert first.stdout.strip().endswith(ANSWER), first.stdout
        asked = server.model_requests()
        assert "`dream brief`" in asked[0].text()             # the AGENTS.md block
        assert BRIEF in asked[0].text()                       # the extension's brief
        assert server.errors == []
        check_note_committed(m)                               # through Pi's bash tool
        session = next(line.split("session=")[1].split()[0] for line in m.hook_log()
                       if " SessionStart " in line)
        log = [line for line in m.hook_log() if session in line]
        for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
            assert any(f" {event} " in line and "warnings=0" in line for line in log), log
        check_evidence(m, "pi")                               # collected on SessionEnd
        # the fire after the answer (Stop) waits for the next session's first prompt
        assert [w["session_id"] for w in m.journal("dream.requested")] == [session]
        assert not any(WAKE in r.text() for r in asked)
        server.script = Script([Say("Next: write the migration.")])
        resumed = pi(m, "What should we do next?", extra=("--continue",))
        assert resumed.returncode == 0
        later = server.model_requests()[len(asked):]
        assert any(WAKE in r.text() for r in later), "the wake did not reach the model"

        m.dream("uninstall", "pi", "--project")
        assert snapshot(m.repo) == before
        count, lines = len(server.model_requests()), len(m.hook_log())
        server.script = Script([Say("Hello.")])
        clean = pi(m, "hello")
        assert clean.stdout.strip().endswith("Hello.")
        assert "dream" not in server.model_requests()[count].text().lower()
        assert len(m.hook_log()) == lines
