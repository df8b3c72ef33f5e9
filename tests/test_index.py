"""The search index: sync, reindex by checksum, FTS-safe queries, primary store only."""

from __future__ import annotations

import json

import pytest
from conftest import git

from dream import db, index
from dream.home import Home
from dream.store.store import Store


@pytest.fixture
def home(dream, repo, dream_home):
    out = json.loads(dream("init", "--json").output)
    return {"notes": dream_home / "notes", "key": out["project_key"],
            "name": out["project_name"], "db": dream_home / "dream.db"}


def _write_many(dream, name, n):
    for i in range(n):
        dream("notes", "write", f"@projects/{name}/n{i}",
              f"# Note {i}\n\nThe deploy script needs token rotation step {i}.")


def test_sync_is_cheap_when_nothing_changed_and_incremental_after_a_commit(dream, home):
    _write_many(dream, home["name"], 3)
    conn = db.connect(home["db"])
    store = Store.load(home["notes"])
    first = index.sync(conn, store)
    assert first.up_to_date and first.total is None
    assert len([r for r in index.indexed_rows(conn) if len(r) > 2]) == 3
    dream("notes", "update", f"@projects/{home['name']}/n1", "changed body")
    # the CLI already synced; simulate a commit made behind the index's back
    (home["notes"] / "user").mkdir()
    (home["notes"] / "user/hand.md").write_text("# Hand\n\nwritten by hand\n")
    git(home["notes"], "add", "user/hand.md")
    git(home["notes"], "commit", "-q", "-m", "by hand")
    stats = index.sync(conn, store)
    assert (stats.indexed, stats.removed, stats.total) == (1, 0, 4)
    git(home["notes"], "rm", "-q", "user/hand.md")
    git(home["notes"], "commit", "-q", "-m", "remove")
    stats = index.sync(conn, store)
    assert (stats.indexed, stats.removed, stats.total) == (0, 1, 3)
    conn.close()


def test_reindex_gives_the_same_results_and_skips_unchanged_by_checksum(dream, home):
    _write_many(dream, home["name"], 6)
    before = json.loads(dream("search", "token rotation", "--json").output)["hits"]
    assert len(before) == 6
    again = json.loads(dream("reindex", "--json").output)
    assert again[0]["indexed"] == 0 and again[0]["skipped"] == 6
    forced = json.loads(dream("reindex", "--force", "--json").output)
    assert forced[0]["indexed"] == 6 and forced[0]["skipped"] == 0
    after = json.loads(dream("search", "token rotation", "--json").output)["hits"]
    assert after == before
    # the database is derived: delete it and rebuild from git
    (home["db"]).unlink()
    for suffix in ("-wal", "-shm"):
        home["db"].with_name("dream.db" + suffix).unlink(missing_ok=True)
    dream("reindex")
    assert json.loads(dream("search", "token rotation", "--json").output)["hits"] == before


@pytest.mark.parametrize("query", ['"', 'deploy"', "AND", "OR NOT", "deploy*", "title:deploy",
                                   "(deploy", "NEAR(deploy token)", "^deploy", "-deploy",
                                   "deploy + token", "{body}: x", "'", "", "   ", "日本語 deploy",
                                   "a" * 5000])
def test_fts_syntax_from_users_never_crashes(dream, home, query):
    _write_many(dream, home["name"], 2)
    if not any(ch.isalnum() for ch in query):     # no words: a one-line mistake, not a crash
        result = dream("search", "--json", "--", query, ok=False)
        assert result.exit_code == 1 and "no words" in result.output
        assert "Traceback" not in result.output
        return
    result = dream("search", "--json", "--", query)
    hits = json.loads(result.output)["hits"]
    if "deploy" in query and "a" * 100 not in query:
        assert len(hits) == 2


def test_search_hit_fields_and_limit(dream, home):
    _write_many(dream, home["name"], 12)
    out = json.loads(dream("search", "deploy", "--json").output)
    assert len(out["hits"]) == 8  # default limit
    assert {"store_id", "store_name", "scope", "commit", "path", "title", "score",
            "sha256"} <= set(out["hits"][0])
    assert out["hits"][0]["commit"] == git(home["notes"], "rev-parse", "HEAD")
    assert len(json.loads(dream("search", "deploy", "--limit", "3", "--json").output)["hits"]) == 3
    bad = dream("search", "deploy", "--limit", "0", ok=False)
    assert bad.exit_code == 1 and "limit" in bad.output


def test_search_uses_only_the_primary_store_and_the_current_project(dream, home, make_repo,
                                                                    monkeypatch, other_project):
    other_project()
    dream("notes", "write", f"@projects/{home['name']}/mine", "kiwi harvest")
    dream("notes", "write", "@projects/other/theirs", "kiwi other project")
    dream("notes", "write", "@sessions/s1/sess", "kiwi session")
    dream("notes", "write", "@sessions/s2/sess", "kiwi foreign session", "--project", "x-1")
    dream("notes", "write", "@user/pref", "kiwi for breakfast")
    team = make_repo("team")
    (team / "kiwi.md").write_text("# Kiwi\n\nkiwi team memory\n")
    git(team, "add", "-A")
    git(team, "commit", "-q", "-m", "kiwi")
    dream("stores", "attach", str(team))
    paths = {h["path"] for h in json.loads(dream("search", "kiwi", "--json").output)["hits"]}
    assert paths == {f"projects/{home['name']}/mine.md", "sessions/s1/sess.md", "user/pref.md"}
    # make the team store primary: now only it is searched
    dream("init", "--store", "team")
    hits = json.loads(dream("search", "kiwi", "--json").output)["hits"]
    assert [h["path"] for h in hits] == ["kiwi.md"] and hits[0]["scope"] == "shared"
    # an unmanaged repository gets an error, not another store's results
    monkeypatch.chdir(make_repo("unmanaged"))
    result = dream("search", "kiwi", ok=False)
    assert result.exit_code == 1 and "dream init" in result.output


def test_migration_from_the_previous_schema(tmp_path):
    path = tmp_path / "old.db"
    import sqlite3
    conn = sqlite3.connect(path, isolation_level=None)
    saved = db.MIGRATIONS
    try:
        names = [m[0] for m in saved]
        db.MIGRATIONS = saved[:names.index("store_index_1")]    # the schema before it
        db.migrate(conn)
    finally:
        db.MIGRATIONS = saved
    assert "store_index_1" in db.migrate(conn)
    conn.execute("INSERT INTO documents (store_id, path, blob, sha256, commit_sha, title, body)"
                 " VALUES ('s', 'a.md', 'b', 'c', 'd', 'T', 'hello world')")
    assert conn.execute("SELECT rowid FROM documents_fts WHERE documents_fts MATCH 'hello'"
                        ).fetchall() == [(1,)]
    conn.close()
    assert Home  # the module imports cleanly


def test_filtered_candidates_fall_back_to_exact_ranking(dream, home, other_project):
    other_project()
    for i in range(45):
        dream("notes", "write", f"@projects/other/k{i}", "kiwi kiwi kiwi orchard")
    dream("notes", "write", f"@projects/{home['name']}/mine", "a kiwi")
    hits = json.loads(dream("search", "kiwi", "--limit", "1", "--json").output)["hits"]
    assert [h["path"] for h in hits] == [f"projects/{home['name']}/mine.md"]


def test_common_words_are_pruned_in_a_large_index(dream, home, monkeypatch):
    from dream.index import query
    for i in range(6):
        dream("notes", "write", f"@projects/{home['name']}/c{i}",
              "common words everywhere" + (" rareword" if i == 0 else ""))
    conn = db.connect(home["db"])
    assert query.plan_match(conn, "common rareword") == '"common" OR "rareword"'
    monkeypatch.setattr(query, "SCORE_BUDGET", 3)
    assert query.plan_match(conn, "common rareword") == '"rareword"'
    assert query.plan_match(conn, "common words") == '"common" AND "words"'
    assert query.plan_match(conn, "rareword missingword") == '"rareword"'
    assert query.plan_match(conn, "common rareword", budget=0) == '"common" OR "rareword"'
    store = Store.load(home["notes"])
    hits = index.search(conn, store, "common rareword", project_key=home["key"])
    assert [h.path for h in hits] == [f"projects/{home['name']}/c0.md"]
    conn.close()


def test_a_sync_racing_another_process_plans_again(dream, home, monkeypatch):
    import importlib
    sync_module = importlib.import_module("dream.index.sync")
    _write_many(dream, home["name"], 2)
    (home["notes"] / "user").mkdir()
    (home["notes"] / "user/raced.md").write_text("# Raced\n\nraced note\n")
    git(home["notes"], "add", "user/raced.md")
    git(home["notes"], "commit", "-q", "-m", "behind the index's back")
    store = Store.load(home["notes"])
    ours, theirs = db.connect(home["db"]), db.connect(home["db"])
    real_plan, calls = sync_module._plan, []

    def racing_plan(conn, *args):
        calls.append(conn is ours)
        if len(calls) == 1:
            index.sync(theirs, store)  # another process finishes first
        return real_plan(conn, *args)

    monkeypatch.setattr(sync_module, "_plan", racing_plan)
    stats = index.sync(ours, store)
    assert calls == [True, False]  # our first plan was dropped; the second saw it done
    assert stats.up_to_date
    hits = index.search(ours, store, "raced")
    assert [h.path for h in hits] == ["user/raced.md"]
    ours.close()
    theirs.close()


def test_score_budget_from_config(dream, home, dream_home):
    _write_many(dream, home["name"], 2)
    config = dream_home / "config.toml"
    config.write_text(config.read_text() + "\n[search]\nscore_budget = 0\n")
    assert len(json.loads(dream("search", "deploy", "--json").output)["hits"]) == 2
    config.write_text(config.read_text().replace("score_budget = 0", "score_budget = -5"))
    bad = dream("search", "deploy", ok=False)
    assert bad.exit_code == 1 and "score_budget" in bad.output


def test_memory_columns_migration_rebuilds_the_index_from_git(dream, home):
    """The memory pages' columns arrive by dropping the derived rows: the next sync reads
    every document again and fills them."""
    import sqlite3

    dream("notes", "write", "@user/tea", "I drink green tea")
    dream("search", "tea")
    path = home["db"]
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("UPDATE documents SET kind = NULL, root = NULL")
    conn.execute("DELETE FROM _migrations WHERE name = 'documents_memory_1'")
    conn.execute("DROP INDEX documents_by_state")
    conn.execute("DROP INDEX documents_by_day")
    for column in ("root", "kind", "state", "day"):
        conn.execute(f"ALTER TABLE documents DROP COLUMN {column}")
    assert "documents_memory_1" in db.migrate(conn)
    assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 0
    conn.close()
    hits = json.loads(dream("search", "tea", "--json").output)["hits"]
    assert [h["path"] for h in hits] == ["user/tea.md"]
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT root, kind, state FROM documents WHERE path='user/tea.md'"
                        ).fetchone() == ("user", "note", "live")
    conn.close()


def test_search_returns_the_records_never_the_brief_rendered_from_them(dream, home, tmp_path):
    """A brief is derived from the records and notes (``dream brief`` prints it); a search
    hit is the record itself, in the CLI, the API (and so MCP and context) and the web
    page's memory search alike."""
    from test_scenarios import stage

    from dream import api
    from dream.app import App
    from dream.core.memory import search_memory

    stage(tmp_path, "dinner_three_streams.jsonl")
    dream("run", "--model", "rules")
    brief = home["notes"] / "user" / "brief.md"
    assert "Nobu" in brief.read_text(encoding="utf-8")        # the brief would match
    cli = [h["path"] for h in json.loads(dream("search", "Nobu", "--json").output)["hits"]]
    assert cli and all(p.startswith("user/events/") for p in cli), cli
    assert [h.path for h in api.search("Nobu")] == cli
    snap = api.snapshot("dinner at Nobu")
    assert snap.documents and not any(d.path.endswith("brief.md") for d in snap.documents)
    app = App.from_env()
    try:
        web = [h["path"] for h in search_memory(app, "Nobu").hits]
    finally:
        app.close()
    assert web == cli


def test_a_question_is_searched_by_what_it_is_about_not_its_question_words(dream, home):
    """"How should the notice be shown?": the words a question is built from (how,
    should) match every note written as a question ("How should failures be handled?"),
    so they are dropped like other stopwords and the note about the notice ranks first."""
    name = home["name"]
    dream("notes", "write", f"@projects/{name}/a", "How should failures be handled? "
          "How should they be logged? Chosen: log them and go on.")
    dream("notes", "write", f"@projects/{name}/b", "How should the key be named? Chosen: "
          "nested, so we can do more later; how would we do otherwise?")
    dream("notes", "write", f"@projects/{name}/c", "Inform about the notice only once.")
    hits = json.loads(dream("search", "how should the notice be shown?", "--json").output)
    assert [h["path"] for h in hits["hits"]] == [f"projects/{name}/c.md"]
    # a query of nothing but such words still searches them
    assert json.loads(dream("search", "how should", "--json").output)["hits"]


def test_hits_in_a_store_of_two_notes_are_ranked_not_shown_as_zero(dream, home):
    """In a store of one or two notes every query word is in half the documents or more,
    and FTS5 floors its idf at 1e-6: every bm25 score is near 0. The text output used to
    print '0.000' for each hit (as if nothing matched); it prints the rank, and --json
    keeps the scores to six significant digits so they still order the hits."""
    dream("notes", "write", "@user/tea", "I like green tea in the morning, tea tea tea.")
    one = dream("search", "tea").output.splitlines()
    assert one == [f"  1. user/tea.md  tea  [{one[0].rsplit('[', 1)[1]}"]
    dream("notes", "write", "@user/coffee", "Coffee after lunch, never tea.")
    lines = dream("search", "tea").output.splitlines()
    assert [line.split()[:2] for line in lines] == [["1.", "user/tea.md"],
                                                    ["2.", "user/coffee.md"]]
    assert "0.000" not in "".join(lines)
    hits = json.loads(dream("search", "tea", "--json").output)["hits"]
    assert [h["path"] for h in hits] == ["user/tea.md", "user/coffee.md"]
    assert hits[0]["score"] > hits[1]["score"] > 0
    found = dream("notes", "find", "tea", "--per-page", "1", "--page", "2").output
    assert found.splitlines()[0] == "  2. @user/coffee.md  coffee"
    page = json.loads(dream("notes", "find", "tea", "--json").output)
    assert [h["rank"] for h in page["hits"]] == [1, 2]


def test_a_huge_file_committed_by_hand_is_indexed_by_its_start_in_little_memory(
        dream, home, repo):
    """A 100 MB file committed into a store took about 700 MB and 11 s to index (the whole
    blob, its decoded text and its body held at once). The index keeps its first
    INDEXED_BYTES; the document's sha256 is still the whole content's, so a snapshot
    reads it as the same document."""
    import hashlib
    import os
    import subprocess
    import sys

    from conftest import REPO_ROOT

    from dream.index.sync import INDEXED_BYTES

    notes = home["notes"]
    (notes / "user").mkdir()
    big = notes / "user" / "huge-log.md"
    line = b"kernel harbor staging lantern delta gamma beta alpha deploy step\n"
    with big.open("wb") as fh:
        fh.write(b"# Huge log\n\nopening words: pelicanstart\n")
        fh.write(line * (30_000_000 // len(line)))
        fh.write(b"closing words: zebrafinish\n")
    git(notes, "add", "user/huge-log.md")
    git(notes, "commit", "-q", "-m", "a log committed by hand")
    # the peak of this process's own memory (VmHWM: ru_maxrss also counts the pytest
    # process this one was forked from)
    probe = ("import re, sys\nfrom dream.cli import main\n"
             "sys.argv = ['dream', 'reindex', '--force']\n"
             "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
             "status = open('/proc/self/status').read()\n"
             "print(int(re.search(r'VmHWM:\\s+(\\d+)', status).group(1)) // 1024)\n")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=repo, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")})
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.strip().splitlines()[-1]) < 100, proc.stdout   # MB; was ~230
    conn = db.connect(home["db"])
    body, digest = conn.execute("SELECT body, sha256 FROM documents WHERE path=?",
                                ("user/huge-log.md",)).fetchone()
    assert len(body.encode()) <= INDEXED_BYTES
    assert digest == hashlib.sha256(big.read_bytes()).hexdigest()
    hits = json.loads(dream("notes", "find", "pelicanstart", "--json").output)["hits"]
    assert [h["address"] for h in hits] == ["@user/huge-log.md"]
    assert json.loads(dream("notes", "find", "zebrafinish", "--json").output)["hits"] == []
