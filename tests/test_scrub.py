"""``dream scrub``: a value no rule knows slipped through; scrub removes it from everywhere.

The value is said as a directive, collected, dreamed into memory (notes, brief, git
history, the database and its index), then scrubbed: first the database, then, confirmed,
the history of the store (which has a remote: nothing is pushed). Every byte under
DREAM_HOME and every git object is scanned afterwards; the other notes are untouched and
old commits still resolve.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

from conftest import git
from secret_corpus import Plant
from test_secret_corpus import _everything, leaks

VALUE = "zebra-Quartz-9341-lantern"  # no rule knows it: it reaches the store


def _spool(dream, tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    chat.write_text("".join(json.dumps({"text": t, "role": "user", "stream": "me"}) + "\n"
                            for t in [f"From now on, remember the staging door code {VALUE}",
                                      "From now on, remember to run the linter first"]))
    dream("collect", str(chat))


def test_scrub_removes_a_value_from_the_database_then_from_history(
        dream, repo: Path, tmp_path: Path, dream_home: Path) -> None:
    dream("init")
    dream("notes", "write", "@user/other.md", "# Other\n\nkept exactly as it is\n")
    _spool(dream, tmp_path)
    run = json.loads(dream("run", "--model", "rules", "--json").output)
    notes = dream_home / "notes"
    other = (notes / "user" / "other.md").read_bytes()
    assert leaks([Plant("value", VALUE, VALUE)], _everything(dream_home))  # it did slip in
    old_head = git(notes, "rev-parse", "HEAD")
    # a remote: the rewrite must never be pushed to it
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(notes, "remote", "add", "origin", str(remote))
    git(notes, "push", "-q", "origin", "HEAD:refs/heads/main")

    first = json.loads(dream("scrub", VALUE, "--json").output)
    assert first["rows"]["items.text"] == 1 and str(notes) in first["stores_holding"]
    assert "rotate" in first["rotate"]
    db = b"".join(p.read_bytes() for p in dream_home.glob("dream.db*"))
    assert VALUE.encode() not in db and b"[REDACTED:scrubbed:" in db

    refused = dream("scrub", VALUE, "--history", ok=False)
    assert refused.exit_code != 0 and "--yes" in refused.output

    out = dream("scrub", VALUE, "--history", "--yes")
    assert "commits rewritten" in out.output and "->" in out.output
    assert "git -C" in out.output and "push --force-with-lease origin" in out.output
    assert "Dream did not push" in out.output and "rotate the secret" in out.output
    assert VALUE not in out.output
    # gone from every file, file name and git object under DREAM_HOME
    found = leaks([Plant("value", VALUE, VALUE)], _everything(dream_home))
    assert found == [], found
    # the remote still has the old history: nothing was pushed
    assert git(remote, "rev-parse", "main") == old_head
    # the other note is untouched; the rewritten note holds the placeholder
    assert (notes / "user" / "other.md").read_bytes() == other
    assert git(notes, "status", "--porcelain") == ""
    # old commits still resolve, run rows name commits that exist
    shown = dream("show", "user/other.md", "--at", old_head[:12])
    assert shown.output.encode() == other
    conn = sqlite3.connect(dream_home / "dream.db")
    sha = conn.execute("SELECT commit_sha FROM runs WHERE id=?", (run["id"],)).fetchone()[0]
    conn.close()
    assert sha and git(notes, "cat-file", "-t", sha) == "commit"
    assert sha != run.get("commit")


def test_scrub_refuses_short_values_and_bad_patterns(dream, repo: Path) -> None:
    dream("init")
    assert "shorter" in dream("scrub", "abc", ok=False).output
    assert "regular expression" in dream("scrub", "--pattern", "(", ok=False).output
    assert "nothing to scrub" in dream("scrub", ok=False).output
    assert "not both" in dream("scrub", "abcdefghijkl", "--pattern", "x+", ok=False).output


def test_scrub_by_pattern(dream, repo: Path, tmp_path: Path, dream_home: Path) -> None:
    dream("init")
    _spool(dream, tmp_path)
    out = json.loads(dream("scrub", "--pattern", r"zebra-Quartz-\d+", "--json").output)
    assert out["rows"]["items.text"] == 1
    db = b"".join(p.read_bytes() for p in dream_home.glob("dream.db*"))
    assert b"zebra-Quartz-9341" not in db


def test_scrub_after_history_search_rebuilds_the_spool_index(dream, repo: Path, tmp_path: Path,
                                                             dream_home: Path) -> None:
    """Once 'dream history search' has indexed the spool, scrubbing a value of ordinary
    letters rebuilds the index without reading it: emptying the external-content FTS5 index
    with DELETE after its rows changed failed with an internal error ('database disk image
    is malformed'). Search then finds the placeholder, never the value."""
    dream("init")
    _spool(dream, tmp_path)
    assert "lantern" in dream("history", "search", "staging door code").output
    out = json.loads(dream("scrub", "lantern", "--json").output)
    assert out["rows"]["items.text"] == 1
    after = dream("history", "search", "staging door code").output
    assert "lantern" not in after and "REDACTED" in after
    assert "linter" in dream("history", "search", "linter").output     # the rest still found
    conn = sqlite3.connect(dream_home / "dream.db")
    conn.execute("INSERT INTO items_fts(items_fts) VALUES ('integrity-check')")   # raises if not
    conn.close()


def test_a_scrub_that_would_break_the_database_changes_nothing(
        dream, repo: Path, tmp_path: Path, dream_home: Path) -> None:
    """'dream scrub --pattern "[a-z]+"' replaced every word of every text column, Dream's own
    included: _migrations.name went, and every later command failed ('cannot apply
    migration 0001_spool'). A pattern or value that would change Dream's ids, hashes or
    fixed words, or a match shorter than a value may be, is refused with nothing changed;
    the secret itself is still scrubbed by a pattern that matches only it."""
    dream("init")
    _spool(dream, tmp_path)
    before = {p.name: p.read_bytes() for p in dream_home.glob("dream.db*")}
    for args, words in ((["--pattern", "[a-z]+"], "shorter than 6 characters"),
                        (["--pattern", "[0-9a-f]{32}"], "also matches Dream's own ids and "
                                                       "names (items.id"),
                        (["--pattern", r"20\d\d-\d\d-\d\dT"], "also matches Dream's own ids"),
                        (["jsonl"], "shorter than 6"),
                        (["statement"], "the value also appears in Dream's own ids and names "
                                        "(items.kind")):
        result = dream("scrub", *args, ok=False)
        assert result.exit_code == 1 and words in result.output, (args, result.output)
        assert result.output.count("\n") == 1 and "internal error" not in result.output
    assert {p.name: p.read_bytes() for p in dream_home.glob("dream.db*")} == before
    assert "staging door code" in dream("history", "search", "staging door code").output
    assert dream("doctor").exit_code == 0
    out = json.loads(dream("scrub", "--pattern", r"zebra-Quartz-\d+-[a-z]+", "--json").output)
    assert out["rows"] == {"items.text": 1}


def test_a_scrub_of_a_word_the_documents_use_as_a_key_changes_nothing(
        dream, repo: Path, dream_home: Path) -> None:
    """'dream scrub --history --yes updated' rewrote every note's 'updated:' line into
    '[REDACTED:...]:' and every later read of those notes failed on malformed YAML (a key
    of store.toml, 'projects', would have broken the store). A value or pattern that would
    change a key of a note's front matter, store.toml or a JSON file is refused before
    the database or any commit changes; a secret in a front-matter value is still
    scrubbed from history."""
    dream("init")
    dream("notes", "write", "@user/door", "--", "---\ntitle: door code pelican-7731\n---\n"
          "the side door opens with it\n")
    notes = dream_home / "notes"
    head = git(notes, "rev-parse", "HEAD")
    db = {p.name: p.read_bytes() for p in dream_home.glob("dream.db*")}
    for args, words in ((["updated"], "the value also appears in the keys of documents "
                                      "Dream writes (the key 'updated' of a document in "
                                      f"store {notes})"),
                        (["projects"], "(the key 'projects' of a document"),
                        (["updated: '20"], "(the structure of a document"),
                        (["--pattern", "crea[a-z]+"], "--pattern also matches the keys of "
                                                      "documents Dream writes")):
        result = dream("scrub", *args, "--history", "--yes", ok=False)
        assert result.exit_code == 1 and words in result.output, (args, result.output)
        assert result.output.count("\n") == 1 and "nothing was changed" in result.output
    assert git(notes, "rev-parse", "HEAD") == head
    assert {p.name: p.read_bytes() for p in dream_home.glob("dream.db*")} == db
    assert "door code pelican-7731" in dream("notes", "show", "@user/door").output
    # the secret in the title is scrubbed, and the note still reads
    dream("scrub", "pelican-7731", "--history", "--yes")
    shown = dream("notes", "show", "@user/door").output
    assert "pelican-7731" not in shown and "door code [REDACTED:scrubbed:" in shown
    assert "pelican-7731" not in git(notes, "log", "--all", "-p")
    assert dream("doctor").exit_code == 0


def test_a_history_scrub_waits_for_writers_and_refuses_an_open_dream(
        dream, repo: Path, dream_home: Path) -> None:
    """scrub --history rewrote a store's commits without the store's write lock and while
    a dream (a run, or one begun by hand) worked on them: a note written meanwhile, or the
    dream's own commits, were lost or left on commits that no longer exist. It takes the
    write lock every writer takes, and refuses while a dream holds its lock."""
    import fcntl
    import os

    dream("init")
    dream("notes", "write", "@user/door", "the side door code is heron-5521")
    notes = dream_home / "notes"
    dream("begin")
    head = git(notes, "rev-parse", "HEAD")
    refused = dream("scrub", "heron-5521", "--history", "--yes", ok=False)
    assert refused.exit_code == 1 and refused.output.count("\n") == 1, refused.output
    assert "--history would rewrite commits a dream is working on (a dream is already " \
        "open from the command line" in refused.output
    assert "end it with 'dream end'" in refused.output and "nothing was changed" in \
        refused.output
    assert git(notes, "rev-parse", "HEAD") == head
    dream("end")
    # another writer holds the store's write lock: the rewrite waits, then names it
    fd = os.open(notes / ".git" / "dream-write.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        os.environ["DREAM_LOCK_WAIT"] = "0.3"
        busy = dream("scrub", "heron-5521", "--history", "--yes", ok=False)
    finally:
        del os.environ["DREAM_LOCK_WAIT"]
        os.close(fd)
    assert busy.exit_code == 1 and "dream scrub --history" in busy.output, busy.output
    assert "heron-5521" in git(notes, "log", "--all", "-p")
    dream("scrub", "heron-5521", "--history", "--yes")
    assert "heron-5521" not in git(notes, "log", "--all", "-p")


def test_a_history_scrub_holds_the_write_lock_from_its_first_look_at_the_blobs(
        dream, repo: Path, dream_home: Path, monkeypatch) -> None:
    """The lock was taken only around the rewrite, after the blobs holding the value had
    been looked up: a note written in between kept the value in history. And a busy store
    was named only after the database and the logs had been scrubbed."""
    import fcntl
    import os

    import dream.scrub as scrub_mod

    dream("init")
    dream("notes", "write", "@user/door", "the side door code is heron-5521")
    lock = dream_home / "notes" / ".git" / "dream-write.lock"
    looked: list[bool] = []
    first_look = scrub_mod._scrubbed_blobs

    def look(*args, **kwargs):
        fd = os.open(lock, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            looked.append(False)
        except BlockingIOError:
            looked.append(True)
        finally:
            os.close(fd)
        return first_look(*args, **kwargs)

    monkeypatch.setattr(scrub_mod, "_scrubbed_blobs", look)
    dream("scrub", "heron-5521", "--history", "--yes")
    assert looked == [True]
    assert "heron-5521" not in git(dream_home / "notes", "log", "--all", "-p")


def test_a_secret_that_was_a_whole_front_matter_value_stays_a_string(
        dream, repo: Path, dream_home: Path) -> None:
    """'title: pelican-7731' became 'title: [REDACTED:scrubbed:...]', which YAML reads as a
    list: the note lost its title (its file name was shown) and the next update wrote it
    back as '- REDACTED:scrubbed:...'. The value is scrubbed inside the string it was."""
    dream("init")
    dream("notes", "write", "@user/door", "--", "---\ntitle: pelican-7731\nkind: code\n---\n"
          "the side door opens with it\n")
    dream("scrub", "pelican-7731", "--history", "--yes")
    shown = json.loads(dream("notes", "show", "@user/door", "--json").output)
    assert shown["meta"]["title"].startswith("[REDACTED:scrubbed:"), shown["meta"]
    assert shown["title"] == shown["meta"]["title"] and shown["meta"]["kind"] == "code"
    assert shown["body"] == "the side door opens with it\n"
    assert "pelican-7731" not in git(dream_home / "notes", "log", "--all", "-p")
    dream("notes", "update", "@user/door", "--append", "and the back door")
    again = json.loads(dream("notes", "show", "@user/door", "--json").output)
    assert again["meta"]["title"] == shown["meta"]["title"]


# a 'dream scrub' process killed (exit 137, as by SIGKILL) at the first git command named
# on its command line, and one of its arguments when given
_KILLED_AT = """
import os, sys
from dream.store import git as g
orig = g.Repo.git
at = sys.argv[1:]
def git(self, *args, **kw):
    if args[:1] == tuple(at[:1]) and all(a in args for a in at[1:]):
        os._exit(137)
    return orig(self, *args, **kw)
g.Repo.git = git
from dream.cli import main
sys.argv = ["dream", "scrub", "heron-5521", "--history", "--yes"]
main()
"""


def _killed_scrub(tmp_path: Path, repo: Path, *at: str) -> None:
    import os
    import sys

    from conftest import REPO_ROOT

    script = tmp_path / "killed_scrub.py"
    script.write_text(_KILLED_AT)
    proc = subprocess.run([sys.executable, str(script), *at], cwd=repo, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")})
    assert proc.returncode == 137, proc.stderr


def _objects(store: Path) -> bytes:
    return subprocess.run(["git", "-C", str(store), "cat-file", "--batch-all-objects",
                           "--batch"], capture_output=True, check=True).stdout


def test_a_history_scrub_killed_after_moving_refs_is_finished_by_the_next(
        dream, repo: Path, dream_home: Path, tmp_path: Path) -> None:
    """Killed between moving the refs (one by one) and resetting the work tree, a history
    scrub left the value staged in the work tree: the next run's baseline committed it
    back, and the next scrub refused with 'uncommitted changes, commit them'. The refs now
    move in one transaction, writers are refused until the scrub is run again, and running
    it again finishes it: work tree clean, no object holds the value."""
    dream("init")
    dream("notes", "write", "@user/door", "the side door code is heron-5521")
    dream("notes", "write", "@user/other", "kept exactly as it is")
    notes = dream_home / "notes"
    git(notes, "branch", "keep")            # a second ref on the history holding the value
    _killed_scrub(tmp_path, repo, "reset")
    main, keep = git(notes, "rev-parse", "main", "keep").split()
    assert main == keep                      # both refs moved, together
    assert "heron-5521" not in git(notes, "log", "--all", "-p")
    assert "heron-5521" in git(notes, "diff", "--cached")   # the reset had not run

    refused = dream("notes", "write", "@user/new", "a note", ok=False)
    assert refused.exit_code == 1 and refused.output.count("\n") == 1, refused.output
    assert "a history scrub of store" in refused.output and \
        "run the same 'dream scrub ... --history --yes' again" in refused.output
    doctor = dream("doctor", ok=False).output
    assert "a history scrub was interrupted before it finished" in doctor

    out = dream("scrub", "heron-5521", "--history", "--yes").output
    assert "(an interrupted scrub, finished)" in out, out
    assert git(notes, "status", "--porcelain") == ""
    assert b"heron-5521" not in _objects(notes)
    assert "kept exactly as it is" in (notes / "user" / "other.md").read_text()
    assert git(notes, "rev-parse", "HEAD") == main
    dream("notes", "write", "@user/new", "a note")
    assert "a history scrub" not in dream("doctor", ok=False).output


def test_a_history_scrub_killed_before_moving_refs_changed_nothing_and_runs_again(
        dream, repo: Path, dream_home: Path, tmp_path: Path) -> None:
    """Killed as the refs were about to move, the scrub moved none of them: the next
    scrub starts over and rewrites the history."""
    dream("init")
    dream("notes", "write", "@user/door", "the side door code is heron-5521")
    notes = dream_home / "notes"
    head = git(notes, "rev-parse", "HEAD")
    _killed_scrub(tmp_path, repo, "update-ref", "--stdin")
    assert git(notes, "rev-parse", "HEAD") == head and git(notes, "status", "--porcelain") == ""
    assert "heron-5521" in git(notes, "log", "--all", "-p")
    out = dream("scrub", "heron-5521", "--history", "--yes").output
    assert "1 commits rewritten" in out or "commits rewritten" in out
    assert "interrupted" not in out
    assert "heron-5521" not in git(notes, "log", "--all", "-p")
    assert git(notes, "status", "--porcelain") == ""
    dream("notes", "write", "@user/new", "a note")
