"""Projects users can steer: transcripts recorded on another machine land in the
repository they belong to, collect says what it could not place, 'dream projects' lists
keys with folders and counts, and items move between projects without a wipe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FOREIGN = "/home/dev/webapp"        # another machine's folder: missing here


def transcript(path: Path, cwd: str, session: str = "s1") -> Path:
    """A real-format Claude Code session recorded in ``cwd``: a meta line and statements
    a review can read (a preference, a command that fails, then the fix)."""
    lines = [
        {"type": "system", "content": "<system-reminder>context</system-reminder>",
         "isMeta": True},
        {"type": "user", "message": {"role": "user", "content":
            "Always run the tests with pytest -q before committing, we prefer that."}},
        {"type": "user", "message": {"role": "user", "content":
            "Never push to main directly; we use pull requests in this project."}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Understood, I will use pull requests."}]}},
        {"type": "user", "message": {"role": "user", "content":
            "Remember that the webapp deploys with make deploy from the ops folder."}},
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for n, line in enumerate(lines):
            fh.write(json.dumps({**line, "uuid": f"u{n}", "sessionId": session, "cwd": cwd,
                                 "timestamp": f"2026-11-20T10:0{n}:00.000Z"}) + "\n")
    return path


@pytest.fixture
def webapp(make_repo, monkeypatch, dream):
    repo = make_repo("webapp")
    monkeypatch.chdir(repo)
    dream("init")
    return repo


def here_key() -> str:
    from dream.store.project import identify

    return identify(Path.cwd()).key


def spool(dream_home: Path) -> dict[str | None, int]:
    import sqlite3

    conn = sqlite3.connect(dream_home / "dream.db")
    try:
        return dict(conn.execute("SELECT project_key, count(*) FROM items"
                                 " GROUP BY project_key").fetchall())
    finally:
        conn.close()


def test_foreign_folder_named_like_this_repository_is_placed_here(webapp, dream, tmp_path,
                                                                   dream_home):
    file = transcript(tmp_path / "copied" / "s1.jsonl", FOREIGN)
    out = dream("collect", str(file)).output
    assert f"recorded in {FOREIGN} (not on this machine) in this repository's project" in out
    assert set(spool(dream_home)) == {here_key()}
    review = json.loads(dream("review", "start", "--json").output)
    assert review["run"]["items"] > 0 and review["run"]["project_key"] == here_key()


def test_issue_scenario_items_under_a_foreign_key_move_here_without_a_wipe(
        make_repo, monkeypatch, dream, tmp_path, dream_home):
    # collected outside the repository first: the folder cannot be placed, collect says so
    file = transcript(tmp_path / "copied" / "s1.jsonl", FOREIGN)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    monkeypatch.chdir(outside)
    dream("init")
    out = dream("collect", str(file)).output
    assert f"could not place items recorded in folders missing on this machine: {FOREIGN}" \
        in out and "--project" in out
    foreign = next(k for k in spool(dream_home) if k and k.startswith("webapp-"))

    repo = make_repo("webapp")
    monkeypatch.chdir(repo)
    dream("init")
    # a run and a review here take nothing, and say where the items went (meta not counted)
    run_out = dream("run").output
    assert "nothing new in the spool since the last run" not in run_out
    pending = spool(dream_home)[foreign] - 1            # the meta line is never claimable
    assert f"belong to other projects: {foreign} ({pending})" in run_out
    assert "dream projects move" in run_out
    review_out = dream("review", "start").output
    assert f"{foreign} ({pending})" in review_out
    # collecting again adds nothing: the items are already there
    assert "0 new items" in dream("collect", str(file)).output
    # 'dream projects' lists the key with its folder and counts
    listed = json.loads(dream("projects", "--json").output)
    row = next(r for r in listed if r["key"] == foreign)
    assert row["folders"] == [FOREIGN] and row["items"] == pending + 1
    assert row["pending"] == pending and row["stores"] == []
    # move them here, by name and key; nothing is wiped
    moved = json.loads(dream("projects", "move", foreign, "webapp", "--json").output)
    assert moved == {"from": foreign, "to": here_key(), "moved": pending + 1}
    assert spool(dream_home) == {here_key(): pending + 1}
    review = json.loads(dream("review", "start", "--json").output)
    assert review["run"]["items"] == pending + 1 and review["run"]["project_key"] == here_key()
    listed = json.loads(dream("projects", "--json").output)
    assert [r["folders"] for r in listed if r["key"] == here_key()] == [[FOREIGN]]


def test_collect_project_places_files_and_re_keys_what_was_collected(
        webapp, dream, tmp_path, dream_home):
    other = transcript(tmp_path / "copied" / "s2.jsonl", "/srv/somewhere/api", "s2")
    out = dream("collect", str(other)).output
    assert "could not place" in out and "/srv/somewhere/api" in out
    # naming the project moves what was collected before from the same files
    out = dream("collect", "--project", "webapp", str(other)).output
    assert "0 new items" in out and "moved 5 items collected before" in out
    assert spool(dream_home) == {here_key(): 5}
    # an unknown project is a one-line error listing the known ones
    bad = dream("collect", "--project", "nope", str(other), ok=False)
    assert bad.exit_code == 1 and len(bad.output.strip().splitlines()) == 1
    assert "known: webapp" in bad.output


def test_a_run_without_any_earlier_run_does_not_say_since_the_last_run(webapp, dream):
    out = dream("run").output
    assert "since the last run" not in out and "collect first" in out
    again = dream("run").output
    assert "nothing new in the spool since the last run" in again


def test_source_spellings_match_install(webapp, dream, tmp_path, dream_home):
    file = transcript(tmp_path / "copied" / "s1.jsonl", str(webapp))
    one = json.loads(dream("collect", "--source", "claude-code", str(file), "--json").output)
    two = json.loads(dream("collect", "--source", "claude_code", str(file), "--json").output)
    assert one["new_items"] == 5 and two["files_unchanged"] == 1
    plan = json.loads(dream("install", "claude_code", "--dry-run", "--json").output)
    assert plan["agent"] == "claude-code"


def test_collect_without_paths_finds_sessions_copied_from_another_machine(
        webapp, dream, tmp_path, monkeypatch, dream_home):
    claude = tmp_path / "claude-projects"
    transcript(claude / "-home-dev-webapp" / "s1.jsonl", FOREIGN)
    transcript(claude / "-home-dev-other" / "s9.jsonl", "/home/dev/other", "s9")
    monkeypatch.setenv("DREAM_CLAUDE_DIR", str(claude))
    monkeypatch.setenv("DREAM_PI_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("DREAM_CODEX_DIR", str(tmp_path / "none"))
    out = json.loads(dream("collect", "--json").output)
    assert out["files"] == 1 and out["new_items"] == 5
    assert out["projects"]["attributed"] == {FOREIGN: 5} and out["projects"]["unplaced"] == {}
    assert spool(dream_home) == {here_key(): 5}


def test_hook_takes_both_spellings_of_the_agent(webapp, dream_proc):
    payload = json.dumps({"session_id": "s", "cwd": str(webapp),
                          "hook_event_name": "UserPromptSubmit"})
    for spelling in ("claude_code", "claude-code"):
        proc = dream_proc("hook", "--agent", spelling, "--json", cwd=webapp, input=payload)
        assert proc.returncode == 0 and json.loads(proc.stdout)["agent"] == "claude-code"
