"""Each source reads the real samples in ../shared/data correctly.

Counts are computed independently from the files (plain json parsing here) where that is
possible, otherwise they are the numbers verified by reading the files by hand.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from conftest import SHARED_DATA

from dream.sources import LINE_SOURCES, FileContext, Message, Skip, detect, get
from dream.spool.gate import gate

CC = SHARED_DATA / "claude_code"
PI = SHARED_DATA / "pi"
CODEX = SHARED_DATA / "codex"
SLACK = SHARED_DATA / "messages" / "slack-export-viewer__testarchive.zip"
CODEX_BIG = CODEX / "localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
CODEX_SMALL = CODEX / "localpush__rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"


def read(path: Path, kind: str | None = None) -> tuple[list[Message], list[Skip]]:
    kind = kind or detect(path)
    assert kind is not None, path
    source = get(kind)
    ctx = FileContext(path, {})
    if kind in LINE_SOURCES:
        with open(path, "rb") as handle:
            out = list(source.parse_lines(((i, line) for i, line in enumerate(handle, 1)
                                           if line.strip()), ctx))
    else:
        out = list(source.parse_file(path, ctx))
    return ([m for m in out if isinstance(m, Message)], [s for s in out if isinstance(s, Skip)])


def kinds(messages: list[Message]) -> Counter[str]:
    return Counter(gate(m)[0] for m in messages)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def folder_key(path: str) -> str:
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return f"{name}-{hashlib.sha256(path.encode()).hexdigest()[:8]}"


# -- detection ---------------------------------------------------------------------------

@pytest.mark.shared_data
def test_detect_names_every_sample_format() -> None:
    assert {detect(p) for p in CC.glob("*.jsonl")} == {"claude_code"}
    assert {detect(p) for p in PI.glob("*.jsonl")} == {"pi"}
    assert {detect(p) for p in CODEX.glob("*.jsonl")} == {"codex"}
    assert detect(SLACK) == "slack"
    assert detect(CODEX / "localpush__manifest.json") is None
    assert detect(CC / "SOURCES.txt") is None


# -- Claude Code -------------------------------------------------------------------------

@pytest.mark.shared_data
def test_claude_code_short_session() -> None:
    path = CC / "spotter__short.jsonl"
    messages, skips = read(path)
    assert skips == []
    statements = [m for m in messages if gate(m)[0] == "statement"]
    assert [(m.text, m.ref) for m in statements] == [
        ("mix phx.server doesnt seem to start", f"{path}:4")]
    assert statements[0].said_at == "2026-02-10T21:11:56.846Z"
    assert statements[0].stream == "55604662-cf2a-4331-851a-ec234028f8ca"
    # not on this machine: the key is derived from the recorded path string
    assert statements[0].project_key == folder_key("/home/marco/projects/spotter")
    tools = [m for m in messages if m.role == "tool"]
    assert [(m.tool_name, m.is_error, m.ref) for m in tools] == [
        ("Bash", True, f"{path}:11"), ("Glob", True, f"{path}:12")]
    assert "rejected" in tools[0].text
    # the interruption marker and the /model local command are meta, not statements
    metas = [m.text for m in messages if gate(m)[0] == "meta"]
    assert metas[0] == "[Request interrupted by user for tool use]"
    assert any("<command-name>/model</command-name>" in t for t in metas)
    assistant = [m for m in messages if gate(m)[0] == "assistant"]
    assert assistant[0].text.startswith("Let me check the project structure")
    assert all(gate(m)[1] == 0 for m in assistant)
    assert kinds(messages) == Counter(statement=1, tool_result=2, assistant=3, meta=3)


@pytest.mark.shared_data
def test_claude_code_tool_results_match_the_file() -> None:
    for name in ("spotter__short.jsonl", "spotter__tool_heavy.jsonl", "spotter__subagent.jsonl"):
        path = CC / name
        expected = 0
        for record in records(path):
            msg = record.get("message")
            if record["type"] == "progress" and record["data"].get("type") == "agent_progress":
                msg = record["data"]["message"].get("message")
            if isinstance(msg, dict) and isinstance(msg.get("content"), list):
                expected += sum(1 for b in msg["content"] if b.get("type") == "tool_result")
        messages, _ = read(path)
        assert sum(1 for m in messages if m.role == "tool") == expected, name
    # tool_heavy: 6 results; the Read result carries the file it read
    messages, _ = read(CC / "spotter__tool_heavy.jsonl")
    reads = [m for m in messages if m.role == "tool" and m.tool_name == "Read"]
    assert len(reads) == 1 and 'import "phoenix_html"' in reads[0].text
    statements = [m.text for m in messages if gate(m)[0] == "statement"]
    assert statements == [
        "start phoenix in background",
        ("scrolling back in xterm.js still does not work (maybe because outer web catches it)? "
         "websearch xterm.js tmux interactions")]


@pytest.mark.shared_data
def test_claude_code_subagent_sidechain() -> None:
    path = CC / "spotter__subagent.jsonl"
    messages, skips = read(path)
    assert skips == []
    side = [m for m in messages if m.stream.endswith("/agent-afb92ff")]
    main = [m for m in messages if m.stream == "491e126e-1e71-469c-ade2-fcc8af567c74"]
    assert len(side) + len(main) == len(messages)
    # the main agent's prompt to the subagent is assistant prose, never evidence
    prompts = [m for m in side if m.text.startswith("Draft bead content for setting up Credo")]
    assert prompts and all(gate(m) == ("assistant", 0) for m in prompts)
    # the subagent's failed Read is still a tool result (evidence of what the tool did)
    failed = [m for m in side if m.role == "tool" and m.is_error]
    assert [m.text for m in failed][:1] == ["EISDIR: illegal operation on a directory, read"]
    assert failed[0].tool_name == "Read"
    assert not any(gate(m)[0] == "statement" for m in side)


@pytest.mark.shared_data
def test_claude_code_compaction_sidechain_is_never_evidence() -> None:
    messages, skips = read(CC / "spotter__agent-acompact-e1f845.jsonl")
    assert skips == []
    assert len(messages) == 5
    assert all(gate(m)[1] == 0 for m in messages)
    assert kinds(messages) == Counter(meta=3, assistant=2)
    assert {m.stream for m in messages} == {
        "4d5611e5-241a-462a-8d15-5122611a9569/agent-acompact-e1f845"}


# -- Pi ----------------------------------------------------------------------------------

@pytest.mark.shared_data
def test_pi_legacy_v1_large_session() -> None:
    path = PI / "pi-mono__large-session.jsonl"
    raw = records(path)
    users = [r for r in raw if r["type"] == "message" and r["message"]["role"] == "user"]
    results = [r for r in raw if r["type"] == "message" and r["message"]["role"] == "toolResult"]
    messages, skips = read(path)
    assert skips == []
    statements = [m for m in messages if gate(m)[0] == "statement"]
    assert len(statements) == len(users) == 88
    assert statements[0].text == "/mode"
    assert statements[1].text.startswith("read packages/coding-agent/docs/theme.md in full")
    tools = [m for m in messages if m.role == "tool"]
    assert len(tools) == len(results) == 373
    assert sum(1 for m in tools if m.is_error) == 19
    assert tools[0].tool_name == "read" and tools[0].text.startswith("# Pi Coding Agent Themes")
    assert {m.stream for m in messages} == {"d703a1a9-1b7b-4fb1-b512-c9738b1fe617"}
    assert statements[0].project_key == folder_key("/Users/badlogic/workspaces/pi-mono")
    assert all(m.key is None for m in messages)  # v1 has no entry ids: ids come from refs


@pytest.mark.shared_data
def test_pi_before_compaction_summaries_and_bash() -> None:
    messages, skips = read(PI / "pi-mono__before-compaction.jsonl")
    assert skips == []
    summaries = [m for m in messages if m.meta]
    assert len(summaries) == 2
    assert summaries[0].text.startswith("# Context Checkpoint: Coding Agent Refactoring")
    bash = [m for m in messages if m.tool_name == "bash" and m.text.startswith("$ ")]
    assert len(bash) == 3 and bash[0].text.startswith("$ ls\nAGENTS.md")
    assert kinds(messages)["statement"] == 55


def test_pi_v3_tree_keeps_every_branch(tmp_path: Path) -> None:
    lines = [
        {"type": "session", "version": 3, "id": "s-3", "timestamp": "2026-01-05T10:00:00Z",
         "cwd": "/nowhere/proj"},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-05T10:00:01Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "use tabs"}]}},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "2026-01-05T10:00:02Z",
         "message": {"role": "assistant", "content": [
             {"type": "text", "text": "ok"},
             {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": "ls"}}]}},
        {"type": "message", "id": "a3", "parentId": "a2", "timestamp": "2026-01-05T10:00:03Z",
         "message": {"role": "toolResult", "toolCallId": "t1", "toolName": "bash",
                     "isError": True, "content": [{"type": "text", "text": "boom"}]}},
        # a second branch from a1
        {"type": "message", "id": "b2", "parentId": "a1", "timestamp": "2026-01-05T10:05:00Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "no, use spaces"}]}},
        {"type": "branch_summary", "id": "b3", "parentId": "b2", "fromId": "a3",
         "timestamp": "2026-01-05T10:05:01Z", "summary": "tried tabs"},
        {"type": "label", "id": "b4", "parentId": "b3", "targetId": "a1", "label": "x"},
        {"type": "brand_new_entry", "id": "b5", "parentId": "b4"},
    ]
    path = tmp_path / "2026-01-05T10-00-00_s-3.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert detect(path) == "pi"
    messages, skips = read(path)
    assert [s.reason for s in skips] == ["unknown record type 'brand_new_entry'"]
    assert [(m.text, gate(m)[0]) for m in messages] == [
        ("use tabs", "statement"), ("ok", "assistant"), ("bash: ls", "assistant"),
        ("boom", "tool_result"), ("no, use spaces", "statement"), ("tried tabs", "meta")]
    assert messages[0].key == "s-3/a1#0" and messages[2].key == "s-3/a2#1"
    assert messages[3].is_error is True and messages[3].tool_name == "bash"
    assert {m.stream for m in messages} == {"s-3"}


# -- Codex -------------------------------------------------------------------------------

@pytest.mark.shared_data
def test_codex_cli_sample() -> None:
    messages, skips = read(CODEX / "claude-code-transcripts__sample_codex_session.jsonl")
    assert skips == []
    messages.sort(key=lambda m: int(m.ref.rsplit(":", 1)[1]))
    assert [(m.text, gate(m)[0]) for m in messages] == [
        ("Write a hello world function", "statement"),
        ("Here is a simple hello world function.", "assistant")]  # reasoning not kept
    assert messages[0].stream == "test-session"
    assert messages[0].project_key == folder_key("/project")


@pytest.mark.shared_data
def test_codex_desktop_rollout_uses_event_user_messages() -> None:
    raw = records(CODEX_SMALL)
    events = [r for r in raw if r["type"] == "event_msg" and r["payload"]["type"] == "user_message"]
    outputs = [r for r in raw if r["type"] == "response_item"
               and r["payload"]["type"] in ("function_call_output", "custom_tool_call_output")]
    messages, skips = read(CODEX_SMALL)
    assert skips == []
    statements = [m for m in messages if gate(m)[0] == "statement"]
    assert len(statements) == len(events) == 1
    assert statements[0].text == "[REDACTED_MESSAGE len=98 sha=c002ff99]"
    tools = [m for m in messages if m.role == "tool"]
    assert len(tools) == len(outputs) == 5
    assert tools[0].tool_name == "mcp__cloud-associates__search_workflows"
    # 3 user response items (AGENTS.md, environment, the duplicate of the typed message)
    # and 4 developer messages are meta
    assert kinds(messages) == Counter(meta=7, statement=1, tool_result=5, assistant=11)
    assert {m.stream for m in messages} == {"019c8bfe-ec25-79e0-97d7-bda6a9c575ff"}


def test_codex_0171_rollout_typed_prompt_is_evidence() -> None:
    """Codex 0.171 writes no user_message event: the prompt is an item_completed UserMessage
    (and a user response item). Recorded from a real codex exec session."""
    path = Path(__file__).parent / "clients" / "fixtures" / "codex-0.171.0-rollout.jsonl"
    raw = records(path)
    assert not any(r["type"] == "event_msg" and r["payload"]["type"] == "user_message"
                   for r in raw)
    messages, skips = read(path)
    assert skips == []                      # world_state, token_usage_record, item_completed
    statements = [m for m in messages if gate(m)[0] == "statement"]
    assert [m.text for m in statements] == ["Remember: we use SQLite for storage."]
    calls = [m for m in messages if m.role == "assistant" and m.tool_name]
    assert [m.tool_name for m in calls] == ["mcp__dream__notes_write"]
    prose = [m for m in messages if m.role == "assistant" and not m.tool_name]
    assert [m.text for m in prose] == ["I wrote the note."]
    assert all(gate(m)[0] != "statement" for m in prose)


def test_codex_rollout_without_events_keeps_prompts_in_place(tmp_path: Path) -> None:
    """A rollout without event messages (old or trimmed logs) takes its user response
    items as statements: each stays where it was said, between the tool calls, not after
    them all (the order tells which failure a correction answers)."""
    def item(n: int, payload: dict) -> dict:
        return {"timestamp": f"2026-11-17T11:2{n}:00Z", "type": "response_item",
                "payload": payload}

    def user(text: str) -> dict:
        return {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": text}]}

    lines = [
        {"timestamp": "2026-11-17T11:20:00Z", "type": "session_meta",
         "payload": {"id": "s-1", "cwd": "/project"}},
        item(1, user("<environment_context>\n  <cwd>/project</cwd>")),
        item(2, user("fix the tiling, tests: pixi run test")),
        item(3, {"type": "function_call", "name": "shell_command", "call_id": "c1",
                 "arguments": json.dumps({"command": "pixi add scikit-image"})}),
        item(4, {"type": "function_call_output", "call_id": "c1",
                 "output": "Exit code: 1\nOutput:\nfailed to solve"}),
        item(5, user("don't add scikit-image, numpy is pinned")),
        item(6, {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": "Understood."}]}),
    ]
    path = tmp_path / "rollout-2026-11-17T11-20-00-s-1.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    messages, skips = read(path, "codex")
    assert skips == []
    assert [(m.text[:22], gate(m)[0]) for m in messages] == [
        ("<environment_context>\n", "meta"),
        ("fix the tiling, tests:", "statement"),
        ('shell_command: {"comma', "assistant"),
        ("Exit code: 1\nOutput:\nf", "tool_result"),
        ("don't add scikit-image", "statement"),
        ("Understood.", "assistant")]


def test_codex_shell_outputs_fail_by_the_exit_code_in_their_header(tmp_path: Path) -> None:
    """The three ways a Codex shell output says its exit status all set the error flag:
    ``metadata.exit_code`` in JSON (``shell``), ``Exit code: N`` (``shell_command``) and
    ``Process exited with code N`` after ``Chunk ID`` / ``Wall time`` (``exec_command``), and
    so does a call the person declined ("exec command rejected by user"); a zero code, a code
    in the output itself and a still-running session do not."""
    outputs = [
        ("shell", json.dumps({"output": "boom", "metadata": {"exit_code": 2}}), True),
        ("shell_command", "Exit code: 4\nWall time: 0.7 seconds\nOutput:\nImportError", True),
        ("shell_command", "Exit code: 0\nWall time: 0.2 seconds\nOutput:\nok", False),
        ("exec_command", "Chunk ID: 7c1e\nWall time: 0.4000 seconds\nProcess exited with "
                         "code 1\nOriginal token count: 9\nOutput:\nerror: nope", True),
        ("exec_command", "Chunk ID: 7c1f\nWall time: 0.4000 seconds\nProcess exited with "
                         "code 0\nOriginal token count: 1\nOutput:\n", False),
        ("exec_command", "Chunk ID: 7c20\nWall time: 10.0 seconds\nProcess running with "
                         "session ID 3\nOutput:\nwatching...", False),
        ("shell_command", "Exit code: 0\nOutput:\nExit code: 1 was printed by a test", False),
        # declined at the approval prompt: Codex's own words for a "no", the call never ran
        ("shell_command", "exec command rejected by user", True),
        ("apply_patch", "patch rejected by user", True),
        ("shell_command", "Exit code: 0\nOutput:\nwarning: exec command rejected by user", False),
    ]
    lines = [{"timestamp": "2026-11-17T11:20:00Z", "type": "session_meta",
              "payload": {"id": "s-2", "cwd": "/project"}}]
    for n, (tool, output, _failed) in enumerate(outputs):
        lines.append({"timestamp": "2026-11-17T11:21:00Z", "type": "response_item",
                      "payload": {"type": "function_call", "name": tool, "call_id": f"c{n}",
                                  "arguments": json.dumps({"command": "make"})}})
        lines.append({"timestamp": "2026-11-17T11:21:01Z", "type": "response_item",
                      "payload": {"type": "function_call_output", "call_id": f"c{n}",
                                  "output": output}})
    path = tmp_path / "rollout-2026-11-17T11-20-00-s-2.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    messages, skips = read(path, "codex")
    assert skips == []
    results = [m for m in messages if m.role == "tool"]
    assert [(m.tool_name, bool(m.is_error)) for m in results] == \
        [(tool, failed) for tool, _output, failed in outputs]


@pytest.mark.shared_data
def test_codex_long_rollout_with_compaction() -> None:
    raw = records(CODEX_BIG)
    typed = sum(1 for r in raw if r["type"] == "event_msg"
                and r["payload"]["type"] == "user_message")
    outputs = sum(1 for r in raw if r["type"] == "response_item" and r["payload"]["type"]
                  in ("function_call_output", "custom_tool_call_output"))
    messages, skips = read(CODEX_BIG)
    assert skips == []
    assert (typed, outputs) == (38, 365)
    assert kinds(messages)["statement"] == typed
    assert sum(1 for m in messages if m.role == "tool") == outputs
    compacted = [m for m in messages if m.meta and m.ref.endswith(":" + str(
        next(i for i, r in enumerate(raw, 1) if r["type"] == "compacted")))]
    assert len(compacted) == 1
    patches = [m for m in messages if m.role == "tool" and m.tool_name == "apply_patch"]
    assert len(patches) == 49


# -- Slack -------------------------------------------------------------------------------

@pytest.mark.shared_data
def test_slack_export_zip() -> None:
    with zipfile.ZipFile(SLACK) as archive:
        day_files = [n for n in archive.namelist() if n.count("/") == 1 and n.endswith(".json")]
        raw = [m for n in day_files for m in json.loads(archive.read(n))]
    assert len(raw) == 158
    people = [m for m in raw if m.get("subtype") in (None, "file_share", "file_comment")]
    messages, skips = read(SLACK)
    assert skips == []
    assert len(messages) == 158
    assert kinds(messages) == Counter(message=len(people), meta=158 - len(people))
    assert len(people) == 53
    assert {m.stream.split(":")[1] for m in messages} == {"enrique", "traveling-sailor"}
    joins = [m for m in messages if m.text.endswith("has joined the channel")]
    assert joins and joins[0].text.startswith("@") and "<@" not in joins[0].text
    assert all(m.said_at and m.said_at.startswith("2016-") for m in messages)
    assert all(m.channel == "slack" for m in messages)
