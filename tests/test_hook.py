"""dream hook: reads the agent's payload, reports context use, collects the transcript,
and never fails the agent."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from conftest import SHARED_DATA

from dream.integrations.context_use import measure

CC = SHARED_DATA / "claude_code"


@pytest.fixture(autouse=True)
def agent_folders(tmp_path, monkeypatch):
    """The test's transcripts live in tmp_path: it is the agents' session folder here."""
    for name in ("DREAM_CLAUDE_DIR", "DREAM_CODEX_DIR", "DREAM_PI_DIR"):
        monkeypatch.setenv(name, str(tmp_path))


@pytest.mark.shared_data
def test_a_transcript_outside_the_session_folders_is_not_read(repo, dream_proc, tmp_path,
                                                             dream_home):
    assert dream_proc("init", cwd=repo).returncode == 0
    outside = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    outside.mkdir()
    secret = outside / "secret.jsonl"
    shutil.copy(CC / "spotter__short.jsonl", secret)
    for path in (secret, "/etc/passwd"):
        payload = {"session_id": "x", "transcript_path": str(path), "cwd": str(repo),
                   "hook_event_name": "SessionEnd"}
        proc = hook(dream_proc, repo, payload, "--json")
        out = json.loads(proc.stdout)
        assert proc.returncode == 0 and out["collected"] is None
        assert out["context"] is None or out["context"]["source"] != "usage"  # not measured
        assert "outside the agents' session folders" in proc.stderr
    # a folder the user lists is allowed
    with (dream_home / "config.toml").open("a", encoding="utf-8") as fh:
        fh.write(f'\n[hooks]\ntranscript_dirs = ["{outside}"]\n')
    payload = {"session_id": "x", "transcript_path": str(secret), "cwd": str(repo),
               "hook_event_name": "SessionEnd"}
    out = json.loads(hook(dream_proc, repo, payload, "--json").stdout)
    assert out["collected"]["ok"] is True


@pytest.mark.shared_data
@pytest.mark.parametrize("name, tokens, window", [
    ("claude_code/spotter__short.jsonl", 25366, 1_000_000),   # claude-opus-4-6: sold with 1M
    ("codex/localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl",
     162366, 258400),
    ("pi/pi-mono__before-compaction.jsonl", 168018, 200_000),
])
def test_context_use_from_real_transcripts(name, tokens, window):
    use = measure({}, SHARED_DATA / name)
    assert (use.tokens, use.window, use.source) == (tokens, window, "usage")
    assert use.fraction == pytest.approx(tokens / window)


def test_context_window_by_model_never_fires_early(tmp_path):
    """Claude Code records the base name of a [1m] session's model: the table gives the
    largest window the model is sold with; config extends the table."""
    line = {"type": "assistant", "message": {"model": "claude-opus-4-8", "usage": {
        "input_tokens": 150_000, "output_tokens": 100}}}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(line) + "\n")
    use = measure({}, path)
    assert use.window == 1_000_000 and use.fraction == pytest.approx(0.1501)
    line["message"]["model"] = "claude-opus-4-5-20251101"
    path.write_text(json.dumps(line) + "\n")
    assert measure({}, path).window == 200_000
    line["message"]["model"] = "acme-large-2"
    path.write_text(json.dumps(line) + "\n")
    assert measure({}, path, window=128_000).window == 128_000
    assert measure({}, path, table={"acme-large": 2_000_000}).window == 2_000_000
    assert measure({"model": "claude-sonnet-4-5[1m]"}, None).window == 1_000_000


def test_context_use_prefers_the_payload(tmp_path):
    assert measure({"context_percent": 72}, None).fraction == pytest.approx(0.72)
    assert measure({"context_fraction": 0.4}, None).fraction == pytest.approx(0.4)
    use = measure({"context_tokens": 50_000, "context_window": 100_000}, None)
    assert use.fraction == pytest.approx(0.5)
    empty = tmp_path / "t.jsonl"
    empty.write_text('{"type": "user", "message": {"content": "hello there"}}\n')
    counted = measure({}, empty, window=1000)
    assert counted.source == "count" and counted.tokens > 0
    assert measure({}, tmp_path / "missing.jsonl").fraction is None


def hook(dream_proc, cwd, payload, *args, raw=None):
    text = raw if raw is not None else json.dumps(payload)
    return dream_proc("hook", *args, cwd=cwd, input=text)


def test_bad_input_warns_and_exits_zero(repo, dream_proc, dream_home):
    assert dream_proc("init", cwd=repo).returncode == 0
    for raw in ("not json", "[1, 2]", "", json.dumps({"hook_event_name": "Stop"}),
                "[" * 100_000 + "]" * 100_000):       # was 'hook failed: RecursionError'
        proc = hook(dream_proc, repo, None, raw=raw)
        assert proc.returncode == 0
        assert proc.stderr.startswith("dream hook: warning:")
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
        assert proc.stdout == ""
    log = (dream_home / "logs" / "hook.log").read_text().splitlines()
    assert len(log) == 5 and "warnings=1" in log[0]
    assert log[4].endswith("ignored hook input: JSON nested too deeply to read")


def test_escape_codes_in_a_payload_never_reach_the_hook_log(repo, dream_proc, dream_home):
    """A payload's event name or session id holding an escape code ('\x1b[2J' clears the
    screen, an OSC sequence writes the clipboard) was written into hook.log as it came,
    and acted on the terminal of whoever ran 'tail hook.log'."""
    assert dream_proc("init", cwd=repo).returncode == 0
    for payload in ({"hook_event_name": "\x00\x1b[2JSessionEnd\r"},
                    {"hook_event_name": "Stop", "session_id": "s1\x1b]52;c;eA==\x07"}):
        assert hook(dream_proc, repo, payload).returncode == 0
    log = (dream_home / "logs" / "hook.log").read_text()
    assert not any(ch in log for ch in "\x00\x1b\x07\r") and len(log.splitlines()) == 2
    assert "SessionEnd" in log and "session=s1" in log


def test_no_home_is_a_warning_not_a_failure(repo, dream_proc):
    proc = hook(dream_proc, repo, {"session_id": "s", "hook_event_name": "Stop"})
    assert proc.returncode == 0 and "dream init" in proc.stderr


@pytest.mark.shared_data
def test_session_end_collects_the_transcript(repo, dream_proc, dream_home, tmp_path):
    assert dream_proc("init", cwd=repo).returncode == 0
    transcript = tmp_path / "session.jsonl"
    shutil.copy(CC / "spotter__short.jsonl", transcript)
    payload = {"session_id": "abc", "transcript_path": str(transcript), "cwd": str(repo),
               "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}
    proc = hook(dream_proc, repo, payload, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["event"] == "SessionEnd" and out["collected"]["ok"] is True
    assert out["collected"]["result"]["new_items"] > 0
    assert out["context"]["source"] == "usage"
    # the same end again: collected incrementally, nothing new, no error
    again = json.loads(hook(dream_proc, repo, payload, "--json").stdout)
    assert again["collected"]["result"]["new_items"] == 0
    import sqlite3

    conn = sqlite3.connect(dream_home / "dream.db")
    count = conn.execute("SELECT count(*) FROM items WHERE source='claude_code'").fetchone()[0]
    conn.close()
    assert count == out["collected"]["result"]["new_items"]


@pytest.mark.shared_data
def test_user_prompt_does_not_collect_but_tracks_the_session(repo, dream_proc, tmp_path):
    assert dream_proc("init", cwd=repo).returncode == 0
    transcript = tmp_path / "s.jsonl"
    shutil.copy(CC / "spotter__tool_heavy.jsonl", transcript)
    payload = {"session_id": "u1", "transcript_path": str(transcript), "cwd": str(repo),
               "hook_event_name": "UserPromptSubmit", "prompt": "hi"}
    out = json.loads(hook(dream_proc, repo, payload, "--json").stdout)
    assert out["collected"] is None and out["fires"] == []
    listed = json.loads(dream_proc("automations", "list", "--session", "u1", "--json",
                                   cwd=repo).stdout)
    assert sorted(a["kind"] for a in listed) == ["after_pause", "before_compaction"]


def test_missing_transcript_is_reported(repo, dream_proc, tmp_path):
    assert dream_proc("init", cwd=repo).returncode == 0
    payload = {"session_id": "m", "transcript_path": str(tmp_path / "gone.jsonl"),
               "cwd": str(repo), "hook_event_name": "PreCompact", "trigger": "auto"}
    proc = hook(dream_proc, repo, payload)
    assert proc.returncode == 0 and "does not exist" in proc.stderr


def test_a_transcript_that_is_a_folder_or_pipe_is_named_as_such(repo, dream_proc, tmp_path):
    """A path that exists but is no regular file is not called missing: the warning says
    what it is, and the agent is not failed."""
    assert dream_proc("init", cwd=repo).returncode == 0
    folder = tmp_path / "sessions.jsonl"
    folder.mkdir()
    pipe = tmp_path / "live.jsonl"
    os.mkfifo(pipe)
    for path in (folder, pipe):
        payload = {"session_id": "f", "transcript_path": str(path), "cwd": str(repo),
                   "hook_event_name": "SessionEnd"}
        proc = hook(dream_proc, repo, payload)
        assert proc.returncode == 0 and "is not a regular file" in proc.stderr
        assert "does not exist" not in proc.stderr


def test_event_argument_overrides_payload(repo, dream_proc):
    assert dream_proc("init", cwd=repo).returncode == 0
    out = json.loads(hook(dream_proc, repo, {"session_id": "e"}, "PreCompact", "--json").stdout)
    assert out["event"] == "PreCompact" and out["session_id"] == "e"


@pytest.mark.shared_data
def test_compaction_after_the_last_usage_record_lowers_the_figure(tmp_path):
    # the real Pi session, cut right after its second compaction entry
    lines = (SHARED_DATA / "pi" / "pi-mono__before-compaction.jsonl").read_text().splitlines()
    marks = [i for i, line in enumerate(lines) if json.loads(line).get("type") == "compaction"]
    assert len(marks) == 2
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[: marks[1] + 1]) + "\n")
    use = measure({}, cut)
    assert use.source == "compaction" and 0 < use.fraction < 0.05
    # a Claude Code compact boundary works the same way
    cc = tmp_path / "cc.jsonl"
    cc.write_text("\n".join([
        json.dumps({"type": "assistant", "message": {"usage": {"input_tokens": 180_000}}}),
        json.dumps({"type": "system", "subtype": "compact_boundary", "content": "compacted"}),
        json.dumps({"type": "user", "message": {"content": "summary of the work so far"}}),
    ]) + "\n")
    assert measure({}, cc).source == "compaction"


def test_light_entry_point_behaves_like_dream_hook(repo, dream_proc, tmp_path):
    import os
    import subprocess
    import sys

    from conftest import REPO_ROOT

    assert dream_proc("init", cwd=repo).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}

    def light(text, *args):
        return subprocess.run([sys.executable, "-m", "dream.integrations", "hook", *args],
                              input=text, capture_output=True, text=True, env=env, cwd=repo,
                              timeout=60)

    bad = light("{oops")
    assert bad.returncode == 0 and bad.stderr.startswith("dream hook: warning:")
    payload = {"session_id": "light", "cwd": str(repo), "hook_event_name": "PreCompact",
               "context_percent": 80}
    out = json.loads(light(json.dumps(payload), "--json").stdout)
    assert out["fires"][0]["name"] == "Dream before compaction"
    again = json.loads(hook(dream_proc, repo, payload, "--json").stdout)
    assert set(again) == set(out) and again["fires"] == []      # same report: no second fire


@pytest.mark.shared_data
def test_codex_stop_collects_and_reads_the_codex_window(repo, dream_proc, tmp_path):
    assert dream_proc("init", cwd=repo).returncode == 0
    name = "localpush__rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"
    transcript = tmp_path / name
    shutil.copy(SHARED_DATA / "codex" / name, transcript)
    payload = {"session_id": "codex-1", "transcript_path": str(transcript), "cwd": str(repo),
               "hook_event_name": "Stop", "turn_id": "t1", "model": "gpt-5"}
    out = json.loads(hook(dream_proc, repo, payload, "--agent", "codex", "--json").stdout)
    assert out["agent"] == "codex" and out["context"]["window"] == 258400
    assert out["collected"]["ok"] is True and out["collected"]["result"]["new_items"] > 0
    assert out["collected"]["result"]["by_source"] == {"codex": out["collected"]["result"][
        "new_items"]}


def context_of(proc) -> str:
    """The text a hook hands the client for the model (hook JSON), or ''."""
    if not proc.stdout.strip():
        return ""
    out = json.loads(proc.stdout)
    return out["hookSpecificOutput"]["additionalContext"]


def test_a_wake_on_a_hook_the_model_never_sees_waits_for_the_next_prompt(repo, dream_proc):
    """Codex Stop and Claude Code PreCompact/SessionEnd output never reaches the model: the
    fire stays pending and the next UserPromptSubmit (or SessionStart) delivers it, once."""
    assert dream_proc("init", cwd=repo).returncode == 0
    base = {"session_id": "w1", "cwd": str(repo)}
    stop = hook(dream_proc, repo, {**base, "hook_event_name": "Stop", "context_percent": 85},
                "--agent", "codex")
    assert stop.returncode == 0 and stop.stdout == ""          # fired, but nobody reads it
    prompt = hook(dream_proc, repo, {**base, "hook_event_name": "UserPromptSubmit",
                                     "context_percent": 86}, "--agent", "codex")
    assert prompt.stdout.startswith("{") and json.loads(prompt.stdout)[
        "hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "'Dream before compaction' fired at 85% context" in context_of(prompt)
    later = hook(dream_proc, repo, {**base, "hook_event_name": "UserPromptSubmit",
                                    "context_percent": 87}, "--agent", "codex")
    assert later.stdout == ""                                   # told once


def test_session_start_prints_the_project_brief(repo, dream_proc, dream_home):
    assert dream_proc("init", cwd=repo).returncode == 0
    payload = {"session_id": "b1", "cwd": str(repo), "hook_event_name": "SessionStart"}
    assert hook(dream_proc, repo, payload, "--brief", "project").stdout == ""  # no brief yet
    brief = json.loads(hook(dream_proc, repo, {**payload, "session_id": "b0"}, "--brief",
                            "project", "--json").stdout)
    assert brief["brief"] is None
    path = dream_home / "notes" / "projects" / repo.name / "brief.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# Brief\n\nThe team deploys with blue-green switches.\n")
    proc = hook(dream_proc, repo, {**payload, "session_id": "b2"}, "--brief", "project")
    assert "blue-green switches" in context_of(proc)
    plain = hook(dream_proc, repo, {**payload, "session_id": "b3"})      # no --brief
    assert plain.stdout == ""


def test_session_end_of_a_session_that_never_was_is_quiet(repo, dream_proc, dream_home,
                                                          tmp_path):
    """`claude mcp list` fires SessionEnd with a transcript path that never existed."""
    assert dream_proc("init", cwd=repo).returncode == 0
    payload = {"session_id": "ghost", "cwd": str(repo), "hook_event_name": "SessionEnd",
               "transcript_path": str(tmp_path / "never.jsonl"), "reason": "other"}
    proc = hook(dream_proc, repo, payload)
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout == ""
    listed = json.loads(dream_proc("automations", "list", "--json", cwd=repo).stdout)
    assert listed == []


def test_an_endless_or_huge_input_is_one_warning_not_a_memory_leak(repo, dream_proc,
                                                                   dream_home):
    # 'yes | dream hook' grew past 4 GB in 20 seconds: a hook reads at most 16 MB of
    # payload, warns once and exits 0 (never failing the agent), in both entry points
    import os
    import subprocess
    import sys

    from conftest import REPO_ROOT

    assert dream_proc("init", cwd=repo).returncode == 0
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    payload = b"y\n" * (10 << 20)                 # 20 MB, past the cap
    for entry in (["-m", "dream", "hook", "SessionStart"],
                  ["-m", "dream.integrations", "hook", "SessionStart"]):
        proc = subprocess.run([sys.executable, *entry], cwd=repo, env=env, input=payload,
                              capture_output=True, timeout=60)
        out, err = proc.stdout, proc.stderr
        assert proc.returncode == 0, err
        assert err.decode() == ("dream hook: warning: ignored hook input: hook input is larger "
                                "than 16 MB\n")
        assert out == b""


def test_a_usage_error_is_one_line_like_every_other_command(repo, dream_proc):
    """'dream hook' reads its flags with argparse (a hook runs on every prompt and skips the
    full command line): '--brief nonsense' printed argparse's three-line usage block, where
    every other command prints one line with the help hint."""
    for args, words in ((("--brief", "nonsense"), "argument --brief: invalid choice"),
                        (("--agent", "cursor", "SessionStart"), "argument --agent"),
                        (("--nope",), "unrecognized arguments: --nope")):
        proc = dream_proc("hook", *args, cwd=repo, input="{}")
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
        assert words in proc.stderr and proc.stderr.endswith("Try 'dream hook --help'.\n")
