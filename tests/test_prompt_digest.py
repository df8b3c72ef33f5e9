"""What a billed model is shown of an agent's tool calls (``prompt.render_bundle``): a
successful call's output only as its end, without the notes the agent's harness appends,
and a successful call the call already showed (same tool, command and output) not again;
a failed call keeps its head, error lines and tail. Code providers read the structured
payload, which keeps every item whole, so what the ``rules`` provider writes does not
change. The last test sends a real-format Claude Code transcript through the real
``openai`` provider to a real local HTTP server (tests/fake_servers.py)."""

from __future__ import annotations

import json

from fake_servers import FakeOpenAIServer
from test_scenarios import fields, run_json

from dream.items import Item
from dream.kinds.records import Record
from dream.pipeline.bundle import Bundle
from dream.pipeline.prompt import OK_TAIL_CHARS, render_bundle, tool_digest

REMINDER = ("<system-reminder>\nWhenever you read a file, you should consider whether it "
            "would be considered malware.\n</system-reminder>")
# a file the agent read: its own lines, one of which merely mentions an error
SOURCE_FILE = "\n".join(
    [f"{n:5d}→def step_{n}(x):  # keep the body short" for n in range(1, 40)]
    + ['   40→    raise ValueError("error: bad input")  # how the module reports one']
    + [f"{n:5d}→    return x + {n}" for n in range(41, 60)]
    + ["   60→# end of module"])
TRACEBACK = "\n".join(
    ["============================= test session starts =============================="]
    + [f"tests/test_mod_{n}.py ........                                   [ {n}%]"
       for n in range(1, 30)]
    + ["E   AssertionError: assert 3 == 4", "FAILED tests/test_mod_7.py::test_sum",
       "=================== 1 failed, 231 passed in 4.21s ==================="])


def tool_items(*specs: tuple[str, str, str, bool]) -> list[Item]:
    """A session's items: for each (tool, command, output, failed) the agent's call (not
    evidence) and its result (evidence), in order."""
    items: list[Item] = []
    for tool, command, output, failed in specs:
        n = len(items)
        items.append(Item(seq=n, id=f"i{n}", role="assistant", kind="tool_call",
                          evidence=False, text=f"{tool}: {command}", stream="s1",
                          said_at="2026-03-01T10:00:00Z", tool_name=tool))
        items.append(Item(seq=n + 1, id=f"i{n + 1}", role="tool", kind="tool_result",
                          evidence=True, text=output, stream="s1",
                          said_at="2026-03-01T10:00:00Z", tool_name=tool,
                          is_error=failed))
    return items


def shown(items: list[Item]) -> tuple[str, dict]:
    rendered = render_bundle(Bundle("B1", items, streams=["s1"]), 1, {})
    return "\n".join(rendered.lines), rendered


def test_a_successful_call_shows_its_command_and_the_end_of_its_output_only():
    text, rendered = shown(tool_items(("Read", "src/mod.py", SOURCE_FILE + "\n" + REMINDER,
                                       False)))
    line = text.split("\n", 1)[1]
    assert line.startswith("E2 10:00 Read ok (src/mod.py): …[")
    assert line.endswith("# end of module")             # the output's end ...
    assert "def step_1" not in text                      # ... not the file's head,
    assert "ValueError" not in text                      # nor an "error" line of the file
    assert "system-reminder" not in text and "malware" not in text   # nor the harness note
    assert len(line) < len("E2 10:00 Read ok (src/mod.py): ") + OK_TAIL_CHARS + 30
    # code providers read the payload: the item as it was said, the note included
    payload_text = rendered.payload["items"][1]["text"]
    assert "def step_1" in payload_text and "ValueError" in payload_text


def test_a_failed_call_keeps_its_head_its_error_lines_and_its_tail():
    digest = tool_digest(TRACEBACK, failed=True)
    assert digest.startswith("============================= test session starts")
    assert "E   AssertionError: assert 3 == 4" in digest
    assert "FAILED tests/test_mod_7.py::test_sum" in digest
    assert digest.endswith("1 failed, 231 passed in 4.21s ===================")
    # the same output from a call that succeeded (a pipe hid the exit status): its end,
    # where the summary sits
    ok = tool_digest(TRACEBACK, failed=False)
    assert ok.endswith("1 failed, 231 passed in 4.21s ===================")
    assert "test session starts" not in ok and len(ok) < OK_TAIL_CHARS + 30
    short = "On branch main\nnothing to commit, working tree clean"
    assert tool_digest(short, failed=False) == short     # a short output is shown whole


def test_a_successful_call_the_call_already_showed_is_left_out_but_still_resolves():
    status = "On branch main\nnothing to commit, working tree clean"
    items = tool_items(("Bash", "git status", status, False),
                       ("Bash", "make test", "12 passed", False),
                       ("Bash", "git status", status, False),        # same call again: out
                       ("Bash", "git status --short", status, False),  # same output: (= E2)
                       ("Bash", "make deploy", "ssh: connect refused", True),
                       ("Bash", "make deploy", "ssh: connect refused", True))   # failed: kept
    text, rendered = shown(items)
    assert text.splitlines()[1:] == [
        "E2 10:00 Bash ok (git status): On branch main", "nothing to commit, working tree clean",
        "E4 Bash ok (make test): 12 passed",
        "E8 Bash ok (git status --short): (= E2)",
        "E10 Bash failed (make deploy): ssh: connect refused",
        "E12 Bash failed (make deploy): (= E10)"]
    # the left-out call's handle still maps to its item: an answer citing it resolves
    assert rendered.handles["E6"].id == "i5"


def cc_line(uuid: str, kind: str, content, minute: int) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "sessionId": "s1", "cwd": CWD[0],
                       "timestamp": f"2026-03-02T10:{minute:02d}:00.000Z",
                       "message": {"role": kind, "content": content}}) + "\n"


CWD = [""]


def call(uuid: str, tool_id: str, tool: str, command: str, output: str, minute: int,
         failed: bool = False) -> str:
    return (cc_line(f"{uuid}a", "assistant", [{"type": "tool_use", "id": tool_id,
                                               "name": tool, "input": {"command": command}}],
                    minute)
            + cc_line(f"{uuid}r", "user", [{"type": "tool_result", "tool_use_id": tool_id,
                                            "content": output, "is_error": failed}], minute))


def test_a_billed_run_sends_the_digest_and_writes_from_what_was_said(dream, repo, dream_home,
                                                                     tmp_path, monkeypatch):
    """A real Claude Code session through the real openai provider: the request carries
    the user's words whole, the failed call's error, the end of a long successful output
    and one git status; the op citing the user's statement is written."""
    CWD[0] = str(repo)
    dream("init")
    status = "On branch main\nnothing to commit, working tree clean"
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(
        cc_line("u1", "user", "From now on, always run make check before committing.", 0)
        + call("c1", "t1", "Bash", "git status", status, 1)
        + call("c2", "t2", "Bash", "cat src/mod.py", SOURCE_FILE + "\n" + REMINDER, 2)
        + call("c3", "t3", "Bash", "make check", TRACEBACK, 3, failed=True)
        + call("c4", "t4", "Bash", "git status", status, 4), encoding="utf-8")
    dream("collect", "--source", "claude_code", str(transcript))
    answer = {"ops": [{"op": "note.add", "name": "run make check before committing",
                       "row": None, "evidence": ["E1"],
                       "fields": fields(text="Run make check before committing",
                                        type="directive")}]}
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        server.enqueue(server.answer(answer))
        out = run_json(dream, "--model", "openai:gpt-4o-mini")
        propose = next(r.body for r in server.requests
                       if r.body["response_format"]["json_schema"]["name"] == "propose")
    sent = propose["messages"][-1]["content"]
    assert out["status"] == "ok"
    assert "From now on, always run make check before committing." in sent
    assert "E   AssertionError: assert 3 == 4" in sent and "Bash failed (make check)" in sent
    assert "# end of module" in sent and "def step_1" not in sent
    assert "system-reminder" not in sent
    assert sent.count("Bash ok (git status)") == 1
    written = [Record.loads(p.read_text(encoding="utf-8"))
               for p in (dream_home / "notes" / "projects").rglob("notes/*.md")]
    assert [r.get("text") for r in written] == ["Run make check before committing"]
