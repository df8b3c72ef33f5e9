"""Bad input: each case is a one-line error saying what to do, a non-zero exit, and the
store's git history, work tree and the index are exactly as before."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from conftest import git

from dream import db, index


def state(home):
    notes = home / "notes"
    conn = db.connect(home / "dream.db")
    rows = index.indexed_rows(conn)
    access = conn.execute("SELECT * FROM note_access ORDER BY path").fetchall()
    conn.close()
    return (git(notes, "rev-parse", "HEAD"), git(notes, "status", "--porcelain", "--ignored"),
            git(notes, "log", "--format=%H"), rows, [tuple(r) for r in access],
            sorted(p.name for p in notes.glob(".dream.lock.*")))


@pytest.fixture
def setup(dream, repo, dream_home, tmp_path):
    info = json.loads(dream("init", "--json").output)
    dream("notes", "write", f"@projects/{info['project_name']}/a", "alpha note")
    dream("notes", "write", "@user/pref", "a preference")
    notes = dream_home / "notes"
    # a note that is not UTF-8, committed behind Dream's back
    (notes / "user" / "latin1.md").write_bytes("caf\xe9 cr\xe8me\n".encode("latin-1"))
    git(notes, "add", "user/latin1.md")
    git(notes, "commit", "-q", "-m", "latin-1 note")
    dream("reindex")
    # a symlink leading out of the store
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("outside the store\n")
    os.symlink(outside, notes / "user" / "link")
    (tmp_path / "bad.bin").write_bytes(b"\xff\xfe\x00 not text")
    return {"home": dream_home, "notes": notes, "name": info["project_name"], "tmp": tmp_path}


def _lock(s):
    return s["notes"] / f".dream.lock.{s['name']}"


CASES = {
    "dotdot": (["notes", "write", "@projects/x/../../../etc/evil", "x"], "'..' segment"),
    "dotdot-show": (["show", "../outside/secret.md"], "'..' segment"),
    "absolute": (["notes", "write", "@/etc/passwd", "x"], "absolute"),
    "absolute-show": (["show", "/etc/passwd"], "absolute"),
    "no-at": (["notes", "show", "/etc/passwd"], "must start with '@'"),
    "symlink-write": (["notes", "write", "@user/link/evil", "x"], "outside the store"),
    "symlink-show": (["notes", "show", "@user/link/secret"], "outside the store"),
    "nul": (["notes", "write", "@user/a\x00b", "x"], "NUL"),
    "nul-show": (["show", "user/a\x00.md"], "NUL"),
    "over-long-name": (["notes", "write", "@user/" + "a" * 200, "x"], "longer than 128"),
    "over-long-address": (["notes", "write", "@user/" + "/".join(["abcdefgh"] * 80), "x"],
                          "longer than 512"),
    "hidden-segment": (["notes", "write", "@user/.git/config", "x"], "forbidden name"),
    "not-utf8-show": (["notes", "show", "@user/latin1"], "not UTF-8"),
    "not-utf8-update": (["notes", "update", "@user/latin1", "x"], "not UTF-8"),
    "not-utf8-file": (["notes", "write", "@user/new", "--file", "{tmp}/bad.bin"], "not UTF-8"),
    "not-utf8-show-json": (["show", "user/latin1.md", "--json"], "not UTF-8"),
    "unknown-commit": (["show", "user/pref.md", "--at", "0123456789abcdef"], "unknown commit"),
    "option-like-commit": (["show", "user/pref.md", "--at", "--all"], "is not a commit"),
    "unknown-revert": (["revert", "0123456789abcdef"], "neither a run"),
    "missing-doc": (["show", "user/none.md"], "no document"),
    # an unset shell variable ('dream collect "$DIR"') must not walk the current folder
    "empty-collect-path": (["collect", ""], "an empty path names no file"),
    # likewise 'dream stores attach "$TEAM"' attached the repository it ran in
    "empty-stores-attach": (["stores", "attach", ""], "an empty path names no store"),
    "forget-live": (["forget", "@user/pref"], "no dream is open"),
    "bad-status": (["notes", "write", "@user/b", "--", "---\nstatus: gone\n---\nx"], "status 'gone'"),
    "bad-yaml": (["notes", "write", "@user/b", "--", "---\n: [\n---\nx"], "malformed YAML"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_changes_nothing(dream, setup, case):
    args, expected = CASES[case]
    args = [a.replace("{tmp}", str(setup["tmp"])) for a in args]
    before = state(setup["home"])
    result = dream(*args, ok=False)
    assert result.exit_code not in (0, 70), result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert expected in lines[0], lines[0]
    assert "Traceback" not in result.output
    assert state(setup["home"]) == before


def test_second_begin_and_stale_lock(dream, setup):
    dream("begin")
    before = state(setup["home"])
    second = dream("begin", ok=False)
    assert second.exit_code == 1 and f'rm "{_lock(setup)}"' in second.output
    assert state(setup["home"]) == before
    dream("end")
    _lock(setup).write_text("pid 4242 host crashed-box 2024-01-01\n")  # stale, not even JSON
    before = state(setup["home"])
    stale = dream("begin", ok=False)
    assert stale.exit_code == 1 and str(_lock(setup)) in stale.output
    assert len(stale.output.strip().splitlines()) == 1
    assert state(setup["home"]) == before


def test_revert_is_refused_while_a_dream_is_open(dream, setup):
    sha = git(setup["notes"], "rev-parse", "HEAD")
    dream("begin")
    before = state(setup["home"])
    result = dream("revert", sha, ok=False)
    assert result.exit_code == 1 and "dream end" in result.output
    assert state(setup["home"]) == before


def test_missing_home(dream, setup, monkeypatch, tmp_path):
    before = state(setup["home"])
    missing = tmp_path / "no-such-home"
    monkeypatch.setenv("DREAM_HOME", str(missing))
    for args in (["notes", "list"], ["search", "x"], ["begin"], ["show", "a.md"],
                 ["context", "--objective", "x"], ["reindex"], ["revert", "abc1234"]):
        result = dream(*args, ok=False)
        assert result.exit_code == 1 and "no Dream home" in result.output, args
        assert "dream init" in result.output
    assert not missing.exists()
    monkeypatch.setenv("DREAM_HOME", str(setup["home"]))
    assert state(setup["home"]) == before


def test_store_with_no_commits(dream, setup, make_repo):
    team = make_repo("team")
    dream("stores", "attach", str(team), "--name", "team")
    shutil.rmtree(team / ".git")
    git(team, "init", "-q", "-b", "main")  # store.toml still there, history gone
    before = state(setup["home"])
    result = dream("show", "README.md", "--store", "team", ok=False)
    assert result.exit_code == 1 and "has no commits" in result.output
    assert state(setup["home"]) == before


def test_init_in_a_repository_with_no_commits(dream, make_repo, monkeypatch):
    empty = make_repo("fresh", commit=False)
    monkeypatch.chdir(empty)
    out = json.loads(dream("init", "--json").output)
    assert out["in_git"] is True and out["project_key"].startswith("fresh-")
    dream("notes", "write", "@projects/fresh/first", "works before the first commit")


def test_real_process_exit_codes(dream_proc, setup, repo):
    before = state(setup["home"])
    proc = dream_proc("notes", "write", "@projects/x/../../etc", "x", cwd=repo)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("error: ") and len(proc.stderr.strip().splitlines()) == 1
    proc = dream_proc("show", "user/pref.md", "--at", "deadbeefdeadbeef", cwd=repo)
    assert proc.returncode == 1 and "unknown commit" in proc.stderr
    # the hint is a command to copy: the store's own path, no placeholder
    notes = setup["home"] / "notes"
    assert f"list commits with 'git -C {notes} log --oneline'" in proc.stderr
    assert state(setup["home"]) == before
    assert isinstance(subprocess.CompletedProcess, type)


def test_listing_never_follows_a_symlink_out(dream, setup):
    before = state(setup["home"])
    listed = json.loads(dream("notes", "list", "--all", "--json").output)
    assert all("secret" not in n["path"] and "link" not in n["path"] for n in listed)
    result = dream("notes", "list", "@user/link", ok=False)
    assert result.exit_code == 1 and "outside the store" in result.output
    assert state(setup["home"]) == before


def test_files_this_user_may_not_touch_are_one_line_errors(dream, setup, monkeypatch):
    # a config.toml or note left owned by another user (a 'sudo dream ...' once), a
    # database on a read-only disk: each is one line naming the file and the fix, exit 1,
    # never "internal error". The operating system's refusal is simulated (the suite may
    # run as root, whom chmod does not stop).
    import pathlib
    import sqlite3

    from dream import db as dream_db

    before = state(setup["home"])
    config = setup["home"] / "config.toml"
    real_read_text = pathlib.Path.read_text

    def read_text(self, *args, **kwargs):
        if self == config:
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "read_text", read_text)
    result = dream("status", ok=False)
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert result.output.startswith(f"error: permission denied on {config}. ")
    assert "chown" in result.output and "internal error" not in result.output
    monkeypatch.setattr(pathlib.Path, "read_text", real_read_text)

    real_connect = dream_db.connect

    def read_only(path, *args, **kwargs):
        conn = real_connect(path, *args, **kwargs)
        conn.close()
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(dream_db, "connect", read_only)
    result = dream("notes", "write", "@user/new", "x", ok=False)
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert f"the database {setup['home'] / 'dream.db'} cannot be written" in result.output
    assert "internal error" not in result.output
    monkeypatch.setattr(dream_db, "connect", real_connect)
    assert state(setup["home"]) == before


def test_bytes_that_are_not_utf8_on_the_command_line_or_in_file_names(dream_proc, setup, repo,
                                                                         tmp_path):
    # a terminal in Latin-1 sends 'café' as b'caf\xe9', and an old archive has file names
    # in it: text typed that way is one line saying so (nothing written), and such a file
    # is collected like any other, its name kept with U+FFFD where the byte was
    before = state(setup["home"])
    latin = "caf\udce9"                  # how Python (and subprocess) spell byte 0xe9
    for args in (["notes", "write", "@user/drink", f"{latin} au lait"],
                 ["show", f"user/{latin}.md"]):
        proc = dream_proc(*args, cwd=repo)
        assert proc.returncode == 1 and proc.stdout == "", proc.stderr
        shown = args[-1].replace(latin, "caf" + chr(92) + "xe9")
        assert proc.stderr == (f"error: '{shown}' on the "
                               "command line is not UTF-8 text (the terminal sends another "
                               "encoding). set a UTF-8 locale (export LANG=C.UTF-8) or convert "
                               "the text, and rerun.\n")
    assert state(setup["home"]) == before
    folder = tmp_path / "archive"
    folder.mkdir()
    name = os.fsencode(folder) + b"/caf\xe9.jsonl"
    with open(name, "wb") as fh:
        fh.write(json.dumps({"text": "from an old archive"}).encode() + b"\n")
    proc = dream_proc("collect", "--json", str(folder), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["new_items"] == 1
    proc = dream_proc("collect", "--json", os.fsdecode(name), cwd=repo)
    assert proc.returncode == 0 and json.loads(proc.stdout)["new_items"] == 0, proc.stderr
    proc = dream_proc("history", "search", "archive", "--json", cwd=repo)
    refs = [h["ref"] for h in json.loads(proc.stdout)["hits"]]
    assert refs == [f"{folder}/caf\ufffd.jsonl:1"]


def test_a_damaged_database_is_one_line_with_the_way_out(dream, setup):
    # a disk that filled up or a bad copy leaves dream.db unreadable: every command said
    # "internal error (DatabaseError: file is not a database)"; now one line says it is
    # damaged, that it is derived, and how to rebuild it. The stores are not touched.
    home = setup["home"]
    notes_head = git(setup["notes"], "rev-parse", "HEAD")
    for extra in ("-wal", "-shm"):
        (home / f"dream.db{extra}").unlink(missing_ok=True)
    (home / "dream.db").write_bytes(b"this is not a database, it was overwritten\n" * 200)
    for args in (["search", "alpha"], ["notes", "list"], ["collect", str(setup["tmp"])]):
        result = dream(*args, ok=False)
        assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
        assert result.output.startswith(f"error: the database {home / 'dream.db'} is damaged")
        assert "dream reindex" in result.output and "internal error" not in result.output
    assert git(setup["notes"], "rev-parse", "HEAD") == notes_head


def test_paths_the_system_refuses_are_one_line(dream, setup, tmp_path):
    # found by sweeping every command with odd values: an empty or over-long path, a
    # folder or an endless device as the handoff were internal errors (or read forever)
    before = state(setup["home"])
    learned = ["--learned", "one", "--learned", "two", "--learned", "three"]
    long_path = str(tmp_path / ("a" * 3000))
    for args, needle in (
            (["prepare", *learned, "--handoff", ""], "cannot read the handoff file"),
            (["prepare", *learned, "--handoff", long_path], "file name too long"),
            (["prepare", *learned, "--handoff", "/dev/zero"], "is larger than 1 mb"),
            (["stores", "attach", long_path], "file name too long")):
        result = dream(*args, ok=False)
        assert result.exit_code == 1, (args[:3], result.output)
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert needle in result.output.lower() and "internal error" not in result.output
    assert state(setup["home"]) == before
