"""Discovery: `dream collect` with no paths finds the repository's transcripts, linked
worktrees included, under a fake HOME (and under the DREAM_*_DIR overrides)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import git

from dream.sources.discovery import claude_folder, discover, pi_folder
from dream.store.project import identify


def claude_session(session: str, cwd: Path, text: str) -> str:
    return json.dumps({"type": "user", "sessionId": session, "cwd": str(cwd),
                       "uuid": f"{session}-u1", "timestamp": "2026-03-01T10:00:00Z",
                       "isSidechain": False,
                       "message": {"role": "user", "content": text}}) + "\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def machine(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A repository with a linked worktree and transcripts of both (and of another project)
    in the agents' default folders under a fake HOME."""
    home = tmp_path / "fakehome"
    monkeypatch.setenv("HOME", str(home))
    for var in ("DREAM_CLAUDE_DIR", "DREAM_PI_DIR", "DREAM_CODEX_DIR"):
        monkeypatch.delenv(var, raising=False)
    worktree = (tmp_path / "proj-feature").resolve()
    git(repo, "worktree", "add", "-q", str(worktree), "-b", "feature")
    (repo / "sub").mkdir()
    other = tmp_path / "other"
    other.mkdir()
    root = repo.resolve()
    claude = home / ".claude" / "projects"
    write(claude / claude_folder(root) / "s-main.jsonl",
          claude_session("s-main", root, "main checkout session"))
    write(claude / claude_folder(root) / "s-main" / "subagents" / "agent-a1.jsonl",
          json.dumps({"type": "user", "sessionId": "s-main", "cwd": str(root),
                      "isSidechain": True, "agentId": "a1", "uuid": "sa-1",
                      "message": {"role": "user", "content": "subagent prompt"}}) + "\n")
    write(claude / claude_folder(worktree) / "s-wt.jsonl",
          claude_session("s-wt", worktree, "worktree session"))
    write(claude / claude_folder(root / "sub") / "s-sub.jsonl",
          claude_session("s-sub", root / "sub", "subdirectory session"))
    write(claude / claude_folder(other) / "s-other.jsonl",
          claude_session("s-other", other, "another project"))
    pi = home / ".pi" / "agent" / "sessions"
    write(pi / pi_folder(worktree) / "2026-03-01T10-00-00_p1.jsonl",
          json.dumps({"type": "session", "version": 3, "id": "p1", "cwd": str(worktree),
                      "timestamp": "2026-03-01T10:00:00Z"}) + "\n"
          + json.dumps({"type": "message", "id": "e1", "parentId": None,
                        "timestamp": "2026-03-01T10:00:01Z",
                        "message": {"role": "user", "content": "pi in the worktree"}}) + "\n")
    write(pi / pi_folder(other) / "2026-03-01T10-00-00_p2.jsonl",
          json.dumps({"type": "session", "version": 3, "id": "p2", "cwd": str(other),
                      "timestamp": "2026-03-01T10:00:00Z"}) + "\n")
    codex = home / ".codex" / "sessions" / "2026" / "03" / "01"
    for name, cwd, text in (("a", worktree, "codex in the worktree"),
                            ("b", other, "codex elsewhere")):
        write(codex / f"rollout-2026-03-01T10-00-00-{name}.jsonl",
              json.dumps({"timestamp": "2026-03-01T10:00:00Z", "type": "session_meta",
                          "payload": {"id": f"codex-{name}", "cwd": str(cwd)}}) + "\n"
              + json.dumps({"timestamp": "2026-03-01T10:00:01Z", "type": "response_item",
                            "payload": {"type": "message", "role": "user",
                                        "content": [{"type": "input_text", "text": text}]}})
              + "\n")
    return {"home": home, "repo": root, "worktree": worktree, "other": other}


def test_discover_finds_main_worktree_and_subdirectory_sessions(machine) -> None:
    found = discover(machine["worktree"])
    names = sorted((kind, path.name) for kind, path in found)
    assert names == [("claude_code", "agent-a1.jsonl"), ("claude_code", "s-main.jsonl"),
                     ("claude_code", "s-sub.jsonl"), ("claude_code", "s-wt.jsonl"),
                     ("codex", "rollout-2026-03-01T10-00-00-a.jsonl"),
                     ("pi", "2026-03-01T10-00-00_p1.jsonl")]
    # from the main checkout the same set is found
    assert sorted(discover(machine["repo"])) == sorted(found)
    assert [k for k, _ in discover(machine["repo"], ["pi"])] == ["pi"]


def test_collect_without_paths_uses_discovery(machine, dream, dream_home: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    dream("init")
    monkeypatch.chdir(machine["worktree"])
    report = json.loads(dream("collect", "--json").output)
    assert report["new_items"] == 6 and report["files"] == 6
    conn = sqlite3.connect(dream_home / "dream.db")
    rows = conn.execute("SELECT stream, project_key, kind, text FROM items ORDER BY text").fetchall()
    conn.close()
    key = identify(machine["repo"]).key
    assert {r[1] for r in rows} == {key}  # worktree and subdirectory share the repo's key
    assert [r[3] for r in rows] == ["codex in the worktree", "main checkout session",
                                    "pi in the worktree", "subagent prompt",
                                    "subdirectory session", "worktree session"]
    assert json.loads(dream("collect", "--json").output)["files_unchanged"] == 6


def test_environment_overrides_the_agent_folders(machine, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    moved = tmp_path / "elsewhere"
    (machine["home"] / ".claude" / "projects").rename(moved)
    assert [k for k, _ in discover(machine["repo"])].count("claude_code") == 0
    monkeypatch.setenv("DREAM_CLAUDE_DIR", str(moved))
    monkeypatch.setenv("DREAM_PI_DIR", str(tmp_path / "no-pi"))
    monkeypatch.setenv("DREAM_CODEX_DIR", str(tmp_path / "no-codex"))
    kinds = sorted(k for k, _ in discover(machine["repo"]))
    assert kinds == ["claude_code"] * 4


def test_discovery_never_opens_a_pipe_among_the_transcripts(machine) -> None:
    # a FIFO named like a transcript (an agent streaming its log) would block the first
    # read forever; discovery lists regular files only
    import os
    claude = machine["home"] / ".claude" / "projects"
    os.mkfifo(claude / claude_folder(machine["repo"]) / "streaming.jsonl")
    (claude / claude_folder(machine["repo"]) / "folder.jsonl").mkdir()
    sub = claude / (claude_folder(machine["repo"]) + "-extra")
    sub.mkdir()
    os.mkfifo(sub / "a.jsonl")          # read for its working directory: must not block
    codex = machine["home"] / ".codex" / "sessions" / "2026" / "03" / "02"
    codex.mkdir(parents=True)
    os.mkfifo(codex / "rollout-2026-03-02T10-00-00-c.jsonl")
    names = sorted(path.name for _, path in discover(machine["repo"]))
    assert names == ["2026-03-01T10-00-00_p1.jsonl", "agent-a1.jsonl", "rollout-2026-03-01T10-00-00-a.jsonl",
                     "s-main.jsonl", "s-sub.jsonl", "s-wt.jsonl"]


def test_nothing_found_names_the_folders_looked_in(repo: Path, dream, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A mistyped DREAM_CLAUDE_DIR was reported only as 'looked in DREAM_CLAUDE_DIR ... or
    their defaults': the folder it named, and that it does not exist, were not said."""
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    monkeypatch.setenv("DREAM_CLAUDE_DIR", str(tmp_path / "typo"))
    for name in ("DREAM_PI_DIR", "DREAM_CODEX_DIR", "CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR",
                 "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "h" / ".codex" / "sessions").mkdir(parents=True)
    dream("init")
    out = dream("collect").output
    assert f"DREAM_CLAUDE_DIR={tmp_path / 'typo'} (no such folder)" in out
    assert f"{tmp_path / 'h' / '.pi' / 'agent' / 'sessions'} (no such folder)" in out
    assert f"{tmp_path / 'h' / '.codex' / 'sessions'}); name files" in out
    only = dream("collect", "--source", "codex").output
    assert "typo" not in only and ".codex" in only


def test_collect_finding_nothing_says_where_it_looked_and_exits_cleanly(
        repo: Path, dream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """'dream collect' over folders holding no session printed only "0 new items ... from 0
    of 0 files"; in a folder outside any repository it spoke of "this repository". Both now
    say what was found where, collect nothing and exit 0."""
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    for name in ("DREAM_CLAUDE_DIR", "DREAM_PI_DIR", "DREAM_CODEX_DIR", "CLAUDE_CONFIG_DIR",
                 "PI_CODING_AGENT_DIR", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    dream("init")
    empty, stray = tmp_path / "empty", tmp_path / "stray"
    empty.mkdir()
    write(stray / "sub" / "notes.txt", "a shopping list, not a session\n")
    out = dream("collect", str(empty), str(stray)).output
    assert f"No sessions found in {empty}, {stray}: no file there is a transcript or " \
           "message export Dream reads; nothing collected." in out
    only = dream("collect", "--source", "pi", str(stray)).output
    assert f"No sessions found in {stray}: no file there reads as --source pi" in only
    monkeypatch.chdir(empty)
    out = dream("collect").output
    assert f"No transcripts found for {empty}, which is not a git repository" in out
    assert "this repository" not in out
    assert json.loads(dream("collect", str(stray), "--json").output)["files"] == 0
