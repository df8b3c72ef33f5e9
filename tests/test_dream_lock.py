"""The interactive dream: lock, baseline, reach, forget, end, shutdown release, revert."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from conftest import REPO_ROOT, git

from dream import db
from dream.errors import LockHeld
from dream.notes.dreaming import acquire_lock, dream_lock, read_journal, release_lock


@pytest.fixture
def home(dream, repo, dream_home):
    out = json.loads(dream("init", "--json").output)
    return {"notes": dream_home / "notes", "key": out["project_key"],
            "name": out["project_name"], "repo": repo}


def head(path):
    return git(path, "rev-parse", "HEAD")


def test_begin_takes_lock_and_commits_baseline(dream, home):
    name = home["name"]
    dream("notes", "write", f"@projects/{name}/a", "alpha")
    (home["notes"] / f"projects/{name}/hand.md").write_text("edited by hand\n")
    out = json.loads(dream("begin", "--json").output)
    lock = home["notes"] / f".dream.lock.{name}"
    assert out["lock"] == str(lock) and lock.exists()
    content = json.loads(lock.read_text())
    assert {"pid", "host", "time", "owner"} <= set(content) and content["owner"] == "cli"
    assert content["run_id"] == out["run_id"] and content["baseline"] == out["baseline"]
    # the baseline commits the hand edit; the lock itself is never versioned
    assert out["baseline"] == head(home["notes"])
    msg = git(home["notes"], "log", "-1", "--format=%B")
    assert f"Dream-Run: {out['run_id']}" in msg and "Dream-Pass: baseline" in msg
    assert f"projects/{name}/hand.md" in git(home["notes"], "show", "--name-only", "HEAD")
    assert git(home["notes"], "status", "--porcelain") == ""
    assert {n["address"] for n in out["notes"]} == {f"@projects/{name}/a.md",
                                                    f"@projects/{name}/hand.md"}
    status = json.loads(dream("status", "--json").output)
    assert status["lock"]["path"] == str(lock)


def test_edits_are_committed_once_by_end(dream, home):
    name = home["name"]
    dream("notes", "write", f"@projects/{name}/a", "alpha")
    run = json.loads(dream("begin", "--json").output)["run_id"]
    baseline = head(home["notes"])
    dream("notes", "update", f"@projects/{name}/a", "alpha two")
    dream("notes", "write", f"@projects/{name}/b", "beta")
    dream("notes", "crumple", f"@projects/{name}/a")
    assert head(home["notes"]) == baseline  # nothing committed while the dream is open
    ended = json.loads(dream("end", "--json").output)
    assert git(home["notes"], "rev-parse", "HEAD~1") == baseline
    assert ended["commit"] == head(home["notes"])
    assert sorted(ended["files"]) == [f"projects/{name}/a.md", f"projects/{name}/b.md"]
    msg = git(home["notes"], "log", "-1", "--format=%B")
    assert f"Dream-Run: {run}" in msg and f"Dream-Project: {home['key']}" in msg
    assert not (home["notes"] / f".dream.lock.{name}").exists()
    assert git(home["notes"], "status", "--porcelain") == ""
    # the index follows the final commit
    hits = json.loads(dream("search", "beta", "--json").output)["hits"]
    assert [h["path"] for h in hits] == [f"projects/{name}/b.md"]


def test_reach_inside_a_dream(dream, home, other_project):
    other_project()
    dream("notes", "write", "@projects/other/x", "other project")
    dream("notes", "write", "@sessions/s1/mine", "session note of this project")
    dream("notes", "write", "@sessions/s2/theirs", "x", "--project", "other-00000000")
    dream("notes", "write", "@user/pref", "a preference")
    out = json.loads(dream("begin", "--json").output)
    assert "@sessions/s1/mine.md" in {n["address"] for n in out["notes"]}
    assert "@sessions/s2/theirs.md" not in {n["address"] for n in out["notes"]}
    dream("notes", "update", "@sessions/s1/mine", "edited in the dream")
    for args in (("notes", "update", "@projects/other/x", "no"),
                 ("notes", "update", "@sessions/s2/theirs", "no"),
                 ("notes", "update", "@user/pref", "no"),
                 ("notes", "write", "@sessions/s3/new", "no")):
        result = dream(*args, ok=False)
        assert result.exit_code == 1 and "outside the open dream" in result.output, args
    # reads inside a dream leave no access stamp
    dream("notes", "show", "@projects/other/x")
    conn = db.connect(home["notes"].parent / "dream.db")
    assert conn.execute("SELECT count(*) FROM note_access").fetchone()[0] == 0
    conn.close()
    files = json.loads(dream("end", "--json").output)["files"]
    assert files == ["sessions/s1/mine.md"]


def test_session_given_to_begin_may_create_its_notes(dream, home):
    dream("begin", "--session", "s9")
    dream("notes", "write", "@sessions/s9/new", "made in the dream")
    assert f"project: {home['key']}" in (home["notes"] / "sessions/s9/new.md").read_text()
    assert json.loads(dream("end", "--json").output)["files"] == ["sessions/s9/new.md"]


def test_a_session_no_address_can_hold_opens_no_dream(dream, home):
    """'dream begin --session ../x' opened a dream whose every new session note was then
    refused (no @sessions/ address holds '../x'); now it opens nothing."""
    for session in ("../x", "", "a/b", "s 1\x00"):
        result = dream("begin", "--session", session, ok=False)
        assert result.exit_code == 1 and "cannot be a session id" in result.output
        assert result.output.count("\n") == 1
    assert not list(home["notes"].glob(".dream.lock.*"))
    assert "lock:    none" in dream("status").output


def test_forget_only_crumpled_and_only_in_a_dream(dream, home):
    name = home["name"]
    dream("notes", "write", f"@projects/{name}/old", "stale fact")
    no_dream = dream("forget", f"@projects/{name}/old", ok=False)
    assert no_dream.exit_code == 1 and "dream begin" in no_dream.output
    dream("begin")
    live = dream("forget", f"@projects/{name}/old", ok=False)
    assert live.exit_code == 1 and "is live" in live.output and "crumple" in live.output
    dream("notes", "crumple", f"@projects/{name}/old")
    dream("forget", f"@projects/{name}/old")
    assert not (home["notes"] / f"projects/{name}/old.md").exists()
    dream("end")
    assert git(home["notes"], "show", "--name-status", "--format=", "HEAD") == \
        f"D\tprojects/{name}/old.md"


def test_second_begin_and_stale_lock_are_refused(dream, home):
    name = home["name"]
    dream("begin")
    before = head(home["notes"])
    second = dream("begin", ok=False)
    lock = home["notes"] / f".dream.lock.{name}"
    assert second.exit_code == 1 and str(lock) in second.output and f'rm "{lock}"' in second.output
    assert head(home["notes"]) == before
    # a stale lock: a dead process, a year old; still refused
    lock.write_text(json.dumps({"pid": 999999, "host": "gone", "time": "2025-01-01T00:00:00Z",
                                "owner": "crashed"}))
    stale = dream("begin", ok=False)
    assert stale.exit_code == 1 and "rm " in stale.output and "crashed" in stale.output


def test_a_folder_where_the_lock_belongs_is_refused_clearly(dream, home):
    # something made a folder by the lock's name (a sync tool, a mistaken mkdir): a
    # lock is a lock whatever it is, refused with the way to clear it, never an internal
    # error, and doctor names it too
    lock = home["notes"] / f".dream.lock.{home['name']}"
    lock.mkdir()
    before = head(home["notes"])
    for args in (["begin"], ["notes", "write", f"@projects/{home['name']}/a", "x"]):
        refused = dream(*args, ok=False)
        assert refused.exit_code == 1 and "internal error" not in refused.output, args
        assert f'rmdir "{lock}"' in refused.output, refused.output
    assert head(home["notes"]) == before
    doctor = json.loads(dream("doctor", "--json", ok=False).output)
    found = [c for c in doctor["checks"] if c["name"] == "lock"]
    assert found and found[0]["status"] != "ok" and found[0]["fix"].endswith(f'rmdir "{lock}"')



def test_writes_from_outside_a_dream_do_not_mix(dream, home, tmp_path):
    name = home["name"]
    dream("notes", "write", f"@projects/{name}/a", "alpha")
    # a long-lived process (not the CLI) dreams over the project
    from dream.app import App
    from dream.home import Home
    from dream.notes.dreaming import DreamSession
    from dream.notes.service import NotesService
    app = App(Home.from_env(), home["repo"])
    store = app.notes_store()
    session = DreamSession.begin(store, app.db, home["key"], name, "mcp:test")
    NotesService(store, app.db, dream=session).update(f"@projects/{name}/a", "dream edit")
    refused = dream("notes", "update", f"@projects/{name}/a", "cli edit", ok=False)
    assert refused.exit_code == 1 and "already open" in refused.output
    # a note elsewhere is committed alone: the dream's edit is not swept in
    dream("notes", "write", "@user/elsewhere", "fine")
    assert git(home["notes"], "show", "--name-only", "--format=", "HEAD") == "user/elsewhere.md"
    assert f"projects/{name}/a.md" in git(home["notes"], "status", "--porcelain")
    ended = session.end()
    assert git(home["notes"], "show", "--name-only", "--format=", ended) == f"projects/{name}/a.md"
    app.close()


def test_lock_api_for_the_batch_run(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    path = acquire_lock(notes, "proj", "run:r1")
    assert json.loads(path.read_text())["owner"] == "run:r1"
    with pytest.raises(LockHeld) as err:
        acquire_lock(notes, "proj", "run:r2")
    assert str(path) in err.value.one_line()
    assert release_lock(path) is True and release_lock(path) is False
    with dream_lock(notes, "proj", "run:r3") as held:
        assert held.exists()
    assert not held.exists()


SCRIPT = textwrap.dedent("""
    import signal, sys, time
    from pathlib import Path
    if sys.argv[5:] == ["foreground"]:
        # as started from a terminal: a test run in a shell's background job starts its
        # children with SIGINT ignored, and that ignoring is kept (see the test below)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    from dream.app import App
    from dream.home import Home
    from dream.notes.dreaming import DreamSession, release_on_shutdown
    from dream.notes.service import NotesService
    app = App(Home.from_env(), Path(sys.argv[1]))
    store = app.notes_store()
    session = DreamSession.begin(store, app.db, sys.argv[2], sys.argv[3], "mcp:child")
    release_on_shutdown(session)
    NotesService(store, app.db, dream=session).update(sys.argv[4], "edited, never committed")
    print("ready", flush=True)
    time.sleep(60)
""")


def _start_holder(dream, home, tmp_path, *extra: str, **popen) -> subprocess.Popen:
    """A process holding an open dream over the project, with one note edited in it."""
    name = home["name"]
    dream("notes", "write", f"@projects/{name}/a", "alpha")
    script = tmp_path / "holder.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    return subprocess.Popen([sys.executable, str(script), str(home["repo"]), home["key"], name,
                             f"@projects/{name}/a", *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, **popen)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_shutdown_releases_lock_without_final_commit(dream, home, tmp_path, sig):
    name = home["name"]
    proc = _start_holder(dream, home, tmp_path, "foreground")
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        lock = home["notes"] / f".dream.lock.{name}"
        assert lock.exists()
        baseline = head(home["notes"])
        proc.send_signal(sig)
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not lock.exists()
    assert head(home["notes"]) == baseline  # no final commit
    assert "edited, never committed" in (home["notes"] / f"projects/{name}/a.md").read_text()
    # the next dream's baseline picks the edit up
    dream("begin")
    assert "edited, never committed" in git(home["notes"], "show", "HEAD")


def test_an_ignored_sigint_stays_ignored_and_keeps_the_lock(dream, home, tmp_path):
    """A dream started with SIGINT ignored (a shell's background job) goes on after a
    SIGINT, holding its lock; SIGTERM still releases it."""
    name = home["name"]
    proc = _start_holder(dream, home, tmp_path,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    lock = home["notes"] / f".dream.lock.{name}"
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        proc.send_signal(signal.SIGINT)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=2)
        assert lock.exists()                     # still its lock: the dream goes on
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not lock.exists()


def test_revert_a_dream_by_run_and_a_commit_by_sha(dream, home):
    name = home["name"]
    dream("notes", "write", f"@projects/{name}/a", "original apple")
    run = json.loads(dream("begin", "--json").output)["run_id"]
    dream("notes", "update", f"@projects/{name}/a", "dreamt banana")
    dream("end")
    out = json.loads(dream("revert", run, "--json").output)
    assert len(out["reverts"]) == 1  # the baseline is not reverted
    text = (home["notes"] / f"projects/{name}/a.md").read_text()
    assert "original apple" in text and "banana" not in text
    assert json.loads(dream("search", "banana", "--json").output)["hits"] == []
    assert len(json.loads(dream("search", "apple", "--json").output)["hits"]) == 1
    sha = json.loads(dream("notes", "write", "@user/z", "zebra", "--json").output)["commit"]
    dream("revert", sha[:10])
    assert not (home["notes"] / "user/z.md").exists()
    unknown = dream("revert", "no-such-run", ok=False)
    assert unknown.exit_code == 1 and "neither a run" in unknown.output
    assert "give a run id from 'dream runs'" in unknown.output     # a command to run


def test_dream_from_a_linked_worktree_uses_the_same_lock(dream, home, tmp_path, monkeypatch):
    wt = tmp_path / "wt"
    git(home["repo"], "worktree", "add", "-q", str(wt), "-b", "feature")
    monkeypatch.chdir(wt)
    out = json.loads(dream("begin", "--json").output)
    assert out["project_key"] == home["key"]
    monkeypatch.chdir(home["repo"])
    assert dream("begin", ok=False).exit_code == 1
    dream("end")


def test_store_settings_commits_leave_dream_edits_alone(dream, home, make_repo, monkeypatch):
    name = home["name"]
    dream("notes", "write", f"@projects/{name}/a", "alpha")
    dream("begin")
    dream("notes", "update", f"@projects/{name}/a", "pending dream edit")
    monkeypatch.chdir(make_repo("second"))
    dream("init")  # records the project in the notes home's store.toml
    assert git(home["notes"], "show", "--name-only", "--format=", "HEAD") == ".dream/store.toml"
    assert f"projects/{name}/a.md" in git(home["notes"], "status", "--porcelain")
    monkeypatch.chdir(home["repo"])
    assert json.loads(dream("end", "--json").output)["files"] == [f"projects/{name}/a.md"]


def test_attaching_a_repository_keeps_its_uncommitted_work_out(dream, home, make_repo):
    team = make_repo("team")
    (team / "draft.md").write_text("work in progress\n")
    dream("stores", "attach", str(team))
    assert sorted(git(team, "show", "--name-only", "--format=", "HEAD").split()) == \
        [".dream/store.toml", ".gitignore"]
    assert "draft.md" in git(team, "status", "--porcelain")


def test_end_names_the_project_from_another_folder(dream, home, make_repo, monkeypatch):
    name = home["name"]
    dream("begin")
    dream("notes", "write", f"@projects/{name}/n", "from the dream")
    monkeypatch.chdir(make_repo("elsewhere"))
    assert "no dream is open" in dream("end", ok=False).output
    ended = json.loads(dream("end", name, "--json").output)
    assert ended["files"] == [f"projects/{name}/n.md"]
    assert "no store knows" in dream("end", "nonexistent", ok=False).output


def test_revert_refuses_a_store_with_uncommitted_work(dream, home):
    name = home["name"]
    sha = json.loads(dream("notes", "write", f"@projects/{name}/a", "alpha", "--json")
                     .output)["commit"]
    leftover = home["notes"] / f"projects/{name}/left.md"
    leftover.write_text("left by a dream that was shut down\n")
    before = head(home["notes"])
    result = dream("revert", sha, ok=False)
    assert result.exit_code == 1 and "uncommitted" in result.output
    assert head(home["notes"]) == before and leftover.exists()
    assert (home["notes"] / f"projects/{name}/a.md").exists()


def test_only_one_of_many_racing_lock_takers_wins(tmp_path):
    import threading
    notes = tmp_path / "notes"
    notes.mkdir()
    won, lost = [], []
    start = threading.Barrier(8)

    def take(i):
        start.wait()
        try:
            won.append(acquire_lock(notes, "proj", f"racer-{i}"))
        except LockHeld:
            lost.append(i)

    threads = [threading.Thread(target=take, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1 and len(lost) == 7


# -- cost follows the files a dream changed ------------------------------------------------
@pytest.fixture
def git_log(tmp_path, monkeypatch):
    """Every git command Dream runs from now on, as argument lists (a logging shim in
    front of the real git on PATH)."""
    import shutil

    real = shutil.which("git")
    shim = tmp_path / "shim"
    shim.mkdir()
    log = tmp_path / "git.log"
    (shim / "git").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}:{os.environ['PATH']}")

    def calls() -> list[str]:
        lines = log.read_text().splitlines() if log.exists() else []
        log.unlink(missing_ok=True)
        return lines
    return calls


WORK_TREE_SCANS = ("status", "add ", "commit ", "diff-files", "ls-files", "diff-index")


def test_end_commits_the_journal_and_reads_nothing_else_of_the_work_tree(dream, home,
                                                                         git_log):
    name = home["name"]
    notes = home["notes"]
    dream("notes", "write", f"@projects/{name}/a", "alpha")
    dream("begin")
    dream("notes", "write", f"@projects/{name}/b", "beta")
    dream("notes", "update", f"@projects/{name}/a", "alpha two")
    (notes / f"projects/{name}/by-hand.md").write_text("made by hand during the dream\n")
    assert sorted(read_journal(notes, name)) == [f"projects/{name}/a.md",
                                                  f"projects/{name}/b.md"]
    git_log()
    ended = json.loads(dream("end", "--json").output)
    calls = git_log()
    assert not [c for c in calls if c.startswith(WORK_TREE_SCANS)], calls
    assert sorted(ended["files"]) == [f"projects/{name}/a.md", f"projects/{name}/b.md"]
    shown = git(notes, "show", "--name-only", "--format=", "HEAD").splitlines()
    assert sorted(shown) == [f"projects/{name}/a.md", f"projects/{name}/b.md"]
    assert read_journal(notes, name) == []
    # the hand edit is not the dream's; the next baseline commits it
    assert git(notes, "status", "--porcelain") == f"?? projects/{name}/by-hand.md"
    out = json.loads(dream("begin", "--json").output)
    assert f"projects/{name}/by-hand.md" in git(notes, "show", "--name-only", out["baseline"])
    dream("end")


def test_a_killed_dreams_edits_are_the_next_baseline(dream, home):
    name = home["name"]
    notes = home["notes"]
    dream("begin")
    dream("notes", "write", f"@projects/{name}/kept", "written before the kill")
    (notes / f".dream.lock.{name}").unlink()          # the dream's process is gone
    assert read_journal(notes, name) == [f"projects/{name}/kept.md"]
    out = json.loads(dream("begin", "--json").output)
    assert f"projects/{name}/kept.md" in git(notes, "show", "--name-only", out["baseline"])
    assert read_journal(notes, name) == []
    ended = json.loads(dream("end", "--json").output)
    assert ended["commit"] is None and ended["files"] == []


def test_a_run_baseline_reads_only_its_scopes_and_leaves_an_open_dream_alone(
        dream, home, git_log, tmp_path, make_repo, monkeypatch):
    notes = home["notes"]
    name = home["name"]
    # another project's dream is open with a pending edit
    monkeypatch.chdir(make_repo("other"))
    dream("init")
    dream("notes", "write", "@projects/other/x", "other project")
    dream("begin")
    dream("notes", "write", "@projects/other/y", "pending in the other dream")
    monkeypatch.chdir(home["repo"])
    # a hand edit in this project's scope, and personal streams to run over
    (notes / f"projects/{name}").mkdir(parents=True, exist_ok=True)
    (notes / f"projects/{name}/mine.md").write_text("a note written by hand\n")
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"id": "m1", "time": "2026-03-09T18:00:00Z", "stream": "s",
                                "role": "user", "text": "I prefer tea over coffee."}) + "\n")
    dream("collect", "--source", "jsonl", str(chat))
    git_log()
    dream("run", "--model", "rules")
    calls = git_log()
    assert not [c for c in calls if c.startswith(("status", "add "))], calls
    scans = [c for c in calls if c.startswith(("diff-index", "ls-files"))]
    assert scans and all(c.endswith(f"-- projects/{name} user") for c in scans), scans
    baseline = git(notes, "log", "--format=%H", "--grep", "Baseline before dream run")
    assert f"projects/{name}/mine.md" in git(notes, "show", "--name-only", baseline)
    # the open dream's pending edit was swept into nothing
    assert git(notes, "status", "--porcelain", "--", "projects/other") == \
        "?? projects/other/y.md"
    dream("end", "other")
    assert "projects/other/y.md" in git(notes, "show", "--name-only", "HEAD")


def test_a_lock_being_written_is_named_by_its_holder(home):
    """Another process has just created the lock and not yet written who it is: the
    refusal waits for the content and names the holder (in use), never 'unknown'."""
    import threading

    path = home["notes"] / f".dream.lock.{home['name']}"
    path.write_text("")
    content = json.dumps({"pid": os.getpid(), "host": os.uname().nodename, "owner": "run",
                          "command": "dream run", "project": home["name"],
                          "time": "2026-12-01T00:00:00Z"})
    writer = threading.Timer(0.2, path.write_text, (content,))
    writer.start()
    try:
        with pytest.raises(LockHeld) as refused:
            acquire_lock(home["notes"], home["name"], owner="run")
    finally:
        writer.join()
    assert "in use" in refused.value.message and "unknown" not in refused.value.message
