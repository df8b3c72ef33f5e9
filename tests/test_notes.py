"""Notes: write, update, show, find, list, crumple; one commit per change with trailers."""

from __future__ import annotations

import json
import sqlite3
import subprocess

import pytest
from conftest import git


@pytest.fixture
def home(dream, repo, dream_home):
    out = json.loads(dream("init", "--json").output)
    return {"notes": dream_home / "notes", "key": out["project_key"],
            "name": out["project_name"], "db": dream_home / "dream.db"}


def head(path):
    return git(path, "rev-parse", "HEAD")


def test_write_makes_one_commit_with_trailers_and_front_matter(dream, home):
    before = head(home["notes"])
    out = json.loads(dream("notes", "write", f"@projects/{home['name']}/tea",
                           "# Tea\n\nGreen tea in the morning.", "--json").output)
    assert out["action"] == "write" and out["pending"] is False
    assert git(home["notes"], "rev-parse", "HEAD~1") == before
    assert out["commit"] == head(home["notes"])
    body = git(home["notes"], "log", "-1", "--format=%B")
    assert f"Dream-Project: {home['key']}" in body and "Dream-Store:" in body
    files = git(home["notes"], "show", "--name-only", "--format=", "HEAD").split()
    assert files == [f"projects/{home['name']}/tea.md"]   # no brief yet: no run made one
    text = (home["notes"] / "projects" / home["name"] / "tea.md").read_text()
    assert text.startswith("---\nstatus: live\n") and "created:" in text
    assert text.endswith("# Tea\n\nGreen tea in the morning.\n")


def test_write_refuses_existing_note_unless_replace(dream, home):
    addr = f"@projects/{home['name']}/tea"
    dream("notes", "write", addr, "first")
    created = (home["notes"] / f"projects/{home['name']}/tea.md").read_text().split("\n")[2]
    before = head(home["notes"])
    result = dream("notes", "write", addr, "second", ok=False)
    assert result.exit_code == 1 and "already exists" in result.output and "--replace" in result.output
    assert head(home["notes"]) == before
    dream("notes", "write", addr, "second", "--replace")
    text = (home["notes"] / f"projects/{home['name']}/tea.md").read_text()
    assert text.endswith("second\n") and created in text  # 'created' survives a replace


def test_update_and_append(dream, home):
    addr = "@user/editor"
    dream("notes", "write", addr, "Uses vim.")
    dream("notes", "update", addr, "Uses neovim.")
    dream("notes", "update", addr, "Leader key is space.", "--append")
    view = json.loads(dream("notes", "show", addr, "--json").output)
    assert view["body"] == "Uses neovim.\n\nLeader key is space.\n"
    assert view["committed"] is True
    missing = dream("notes", "update", "@user/nothing", "x", ok=False)
    assert missing.exit_code == 1 and "no note at @user/nothing.md" in missing.output


def test_write_from_file_and_stdin(dream, home, tmp_path):
    src = tmp_path / "n.md"
    src.write_text("---\ntitle: Build tips\ntags: [make]\n---\nRun make -j4.\n")
    dream("notes", "write", "@user/build", "--file", str(src))
    view = json.loads(dream("notes", "show", "@user/build", "--json").output)
    assert view["title"] == "Build tips" and view["meta"]["tags"] == ["make"]
    dream("notes", "write", "@user/stdin", "--file", "-", input="from stdin\n")
    assert json.loads(dream("notes", "show", "@user/stdin", "--json").output)["body"] == "from stdin\n"
    both = dream("notes", "write", "@user/x", "text", "--file", str(src), ok=False)
    assert both.exit_code == 1 and "not both" in both.output


def test_show_stamps_access_time_without_a_commit(dream, home):
    dream("notes", "write", "@user/a", "alpha")
    before = head(home["notes"])
    dream("notes", "show", "@user/a")
    assert head(home["notes"]) == before
    assert git(home["notes"], "status", "--porcelain") == ""
    conn = sqlite3.connect(home["db"])
    rows = conn.execute("SELECT path, accessed_at FROM note_access").fetchall()
    assert rows[0][0] == "user/a.md" and rows[0][1].startswith("20")


def test_session_notes_record_project(dream, home):
    dream("notes", "write", "@sessions/s1/plan", "the plan")
    text = (home["notes"] / "sessions/s1/plan.md").read_text()
    assert f"project: {home['key']}" in text
    dream("notes", "write", "@sessions/s2/other", "x", "--project", "elsewhere-1234")
    assert "project: elsewhere-1234" in (home["notes"] / "sessions/s2/other.md").read_text()


def test_project_flag_is_refused_where_it_would_change_nothing(dream, home, other_project):
    """--project was taken and dropped without a word for a note under @projects/<name>/
    or @user/, and for an existing session note of another project."""
    other_project("other")
    before = head(home["notes"])
    refused = (
        (("@projects/other/deploy", "--project", home["key"]),
         f"--project {home['key']} does not match @projects/other/deploy.md"),
        (("@user/tea", "--project", "other"),
         "--project applies only to @sessions/<id>/ notes; @user/tea.md belongs to no "
         "project"),
    )
    for (address, *flags), says in refused:
        result = dream("notes", "write", address, "text", *flags, ok=False)
        assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
        assert says in result.output and "drop --project" in result.output
    assert head(home["notes"]) == before
    assert not (home["notes"] / "user" / "tea.md").exists()
    # the project the address names, by name or key, is no conflict
    dream("notes", "write", f"@projects/{home['name']}/a", "x", "--project", home["name"])
    dream("notes", "write", f"@projects/{home['name']}/b", "x", "--project", home["key"])
    # a session note: a name becomes its key; an existing note keeps its project
    dream("notes", "write", "@sessions/s3/plan", "x", "--project", "other")
    text = (home["notes"] / "sessions/s3/plan.md").read_text()
    other_key = next(line.split(": ", 1)[1] for line in text.splitlines()
                     if line.startswith("project: "))
    assert other_key.startswith("other-")
    moved = dream("notes", "write", "@sessions/s3/plan", "y", "--replace", "--project",
                  home["key"], ok=False)
    assert moved.exit_code == 1 and f"recorded for project {other_key}" in moved.output
    dream("notes", "write", "@sessions/s3/plan", "y", "--replace", "--project", other_key)
    assert f"project: {other_key}" in (home["notes"] / "sessions/s3/plan.md").read_text()


def test_list_crumple_and_find_paging(dream, home):
    for i in range(5):
        dream("notes", "write", f"@user/fruit{i}", f"apple number {i} " + "apple " * i)
    dream("notes", "crumple", "@user/fruit0")
    assert "status: crumpled" in (home["notes"] / "user/fruit0.md").read_text()
    live = json.loads(dream("notes", "list", "--json").output)
    assert [n["address"] for n in live] == [f"@user/fruit{i}.md" for i in range(1, 5)]
    crumpled = json.loads(dream("notes", "list", "--crumpled", "--json").output)
    assert [n["address"] for n in crumpled] == ["@user/fruit0.md"]
    assert len(json.loads(dream("notes", "list", "--all", "--json").output)) == 5
    assert json.loads(dream("notes", "list", "@projects", "--json").output) == []

    page1 = json.loads(dream("notes", "find", "apple", "--per-page", "3", "--json").output)
    assert len(page1["hits"]) == 3 and page1["has_more"] is True
    page2 = json.loads(dream("notes", "find", "apple", "--per-page", "3", "--page", "2",
                             "--json").output)
    assert len(page2["hits"]) == 1 and page2["has_more"] is False
    seen = {h["address"] for h in page1["hits"] + page2["hits"]}
    assert seen == {f"@user/fruit{i}.md" for i in range(1, 5)}  # crumpled left out
    with_crumpled = json.loads(dream("notes", "find", "apple", "--crumpled", "--per-page", "10",
                                     "--json").output)
    assert "@user/fruit0.md" in {h["address"] for h in with_crumpled["hits"]}
    # more apples rank higher
    assert page1["hits"][0]["address"] == "@user/fruit4.md"


def test_find_names_its_next_page_with_the_options_that_chose_the_hits(dream, home):
    """The 'more:' line is the command for the next page as it can be pasted: with
    --per-page and --crumpled (without them page 2 was another list's), the query
    shell-quoted; a query too long to paste is not printed back."""
    import shlex

    for i in range(5):
        dream("notes", "write", f"@user/fruit{i}", f"apple's number {i}")
    dream("notes", "crumple", "@user/fruit0")
    out = dream("notes", "find", "apple's", "--per-page", "2", "--crumpled").output
    more = out.strip().splitlines()[-1]
    assert more == ("more: dream notes find 'apple'\"'\"'s' --per-page 2 --crumpled "
                    "--page 2")
    args = shlex.split(more.removeprefix("more: dream "))
    page2 = json.loads(dream(*args, "--json").output)
    assert page2["page"] == 2 and len(page2["hits"]) == 2
    page3 = json.loads(dream(*args[:-1], "3", "--json").output)
    seen = {h["address"] for h in page2["hits"] + page3["hits"]}
    assert "@user/fruit0.md" in seen or len(page3["hits"]) == 1   # crumpled ones count
    long_query = "apple " + "x" * 100_000
    out = dream("notes", "find", long_query, "--per-page", "1").output
    assert out.strip().splitlines()[-1] == "more: the same command with --page 2"
    assert len(out) < 500


def test_human_output(dream, home):
    out = dream("notes", "write", "@user/a", "alpha beta").output
    assert out.startswith("write @user/a.md -> ")
    assert "alpha beta" in dream("notes", "show", "@user/a").output
    assert "@user/a.md" in dream("notes", "find", "alpha").output
    assert "@user/a.md" in dream("notes", "list").output


@pytest.mark.parametrize("meta", [
    {"status": "live", "created": "2026-11-30T12:00:00Z", "project": "proj-1a2b3c4d"},
    {"title": "It's: a #title", "n": 3, "flag": True, "word": "yes", "nul": "null"},
    {"empty": "", "lead": " space", "multi": "a\nb", "tags": ["x", "y"], "d": {"k": 1}},
    {"on": "off", "num": "1e3", "neg": "-1", "tilde": "~", "uni": "café ☕"},
])
def test_front_matter_round_trips_exactly(meta):
    import yaml

    from dream.store.document import Document, parse
    text = Document(dict(meta), "body\n").render()
    assert parse(text).meta == meta
    assert yaml.safe_load(text.split("---\n")[1]) == meta


def test_crumpling_a_note_record_corrects_its_status(dream, home, dream_home, tmp_path):
    """A note a run wrote keeps its status in its fields: crumpling it is a correction
    (evidence said now, the brief drops it in the same commit), not a front-matter edit."""
    from test_scenarios import records, run_json, stage

    stage(tmp_path, "coding_session.jsonl")
    run_json(dream, "--model", "rules")
    key = sorted(records(dream_home, "notes"))[0]
    assert key in (home["notes"] / "user" / "brief.md").read_text()
    before = head(home["notes"])
    out = dream("notes", "crumple", f"@user/notes/{key}").output
    assert out.startswith(f"crumple @user/notes/{key} -> ")
    note = records(dream_home, "notes")[key]
    assert note.get("status") == "crumpled" and note.fields["status"].pass_ == "correct"
    assert "\nstatus: crumpled" not in (home["notes"] / "user" / "notes" / f"{key}.md"
                                        ).read_text()                # no stray front matter
    assert key not in (home["notes"] / "user" / "brief.md").read_text()
    assert git(home["notes"], "rev-list", "--count", f"{before}..HEAD") == "1"

    # and every reader sees it crumpled: show, list, search, and forget lets it go
    address = f"@user/notes/{key}.md"
    shown = json.loads(dream("notes", "show", address, "--json").output)
    assert shown["status"] == "crumpled"
    assert address not in dream("notes", "list", "@user/notes").output
    assert f"{address} (crumpled)" in dream("notes", "list", "@user/notes", "--crumpled").output
    assert f"user/notes/{key}.md" not in dream("search", note.get("text")).output


def test_a_crumpled_project_note_record_can_be_forgotten(dream, dream_proc, home, repo,
                                                         tmp_path):
    """'dream notes crumple' on a note a run wrote, then 'dream forget' in a dream: the
    forget used to answer 'is live; crumple it first' (it read a status on top of the
    front matter, where a record has none)."""
    _collect_one_statement(dream_proc, repo, tmp_path,
                           "Never use npm here, always run the tests with `uv run pytest`.")
    assert dream_proc("run", "--model", "rules", cwd=repo).returncode == 0
    folder = home["notes"] / "projects" / home["name"] / "notes"
    [path] = [p for p in folder.glob("*.md")]
    address = f"@projects/{home['name']}/notes/{path.name}"
    dream("notes", "crumple", address)
    dream("begin")
    assert f"forgot {address}" in dream("forget", address).output
    dream("end")
    assert not path.exists()


def _collect_one_statement(dream_proc, repo, tmp_path, text: str, n: int = 1) -> None:
    log = tmp_path / f"s{n}.jsonl"
    log.write_text(json.dumps({"type": "user", "sessionId": f"s{n}", "cwd": str(repo),
                               "uuid": f"u{n}", "timestamp": "2026-11-30T10:00:00Z",
                               "message": {"role": "user", "content": text}}) + "\n")
    assert dream_proc("collect", "--source", "claude_code", str(log), cwd=repo).returncode == 0


def test_a_written_note_reaches_the_project_brief_in_its_own_commit(
        dream_proc, repo, dream_home, tmp_path) -> None:
    """A note written with the notes tools below @projects/<name>/ or @user/ is shown in
    that scope's brief: by the first run when it was written before any, then re-rendered
    in the note's own commit, and gone once crumpled. Session notes are not shown."""
    assert dream_proc("init", cwd=repo).returncode == 0
    notes = dream_home / "notes"
    brief = notes / "projects" / repo.name / "brief.md"
    proc = dream_proc("notes", "write", f"@projects/{repo.name}/deploy",
                      "# Deploying\nDeploys go through make release; never terraform apply "
                      "by hand.", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert not brief.exists()                    # no run yet: the first one renders it
    _collect_one_statement(dream_proc, repo, tmp_path, "Always use pnpm, not npm.")
    assert dream_proc("run", cwd=repo).returncode == 0
    shown = "- Deploying: Deploys go through make release; never terraform apply by hand. " \
            "[deploy.md]"
    assert shown in brief.read_text() and "pnpm" in brief.read_text()
    assert dream_proc("brief", cwd=repo).stdout.count(shown) == 1
    # a brief exists now: a written note reaches it in the note's own commit
    assert dream_proc("notes", "write", f"@projects/{repo.name}/release",
                      "Tag releases as vYYYY.MM.", cwd=repo).returncode == 0
    assert "- Tag releases as vYYYY.MM. [release.md]" in brief.read_text()
    changed = subprocess.run(["git", "show", "--name-only", "--format=", "HEAD"], cwd=notes,
                             capture_output=True, text=True).stdout.split()
    assert sorted(changed) == [f"projects/{repo.name}/brief.md",
                               f"projects/{repo.name}/release.md"]
    # a session note is no written note of the project: its brief is not touched
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=notes, capture_output=True,
                          text=True).stdout
    assert dream_proc("notes", "write", "@sessions/s1/todo", "resume here",
                      cwd=repo).returncode == 0
    assert subprocess.run(["git", "diff", "--name-only", head.strip(), "HEAD"], cwd=notes,
                          capture_output=True, text=True).stdout.split() == \
        ["sessions/s1/todo.md"]
    # crumpling takes it out; a dream's end re-renders the brief with what it changed
    assert dream_proc("notes", "crumple", f"@projects/{repo.name}/deploy",
                      cwd=repo).returncode == 0
    assert "Deploying" not in brief.read_text() and "pnpm" in brief.read_text()
    assert dream_proc("begin", cwd=repo).returncode == 0
    assert dream_proc("notes", "update", f"@projects/{repo.name}/release",
                      "Tag releases as vN.", cwd=repo).returncode == 0
    assert "vYYYY.MM" in brief.read_text()       # pending until the dream ends
    assert dream_proc("end", cwd=repo).returncode == 0
    assert "- Tag releases as vN. [release.md]" in brief.read_text()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=notes, capture_output=True,
                          text=True).stdout == ""
    # no personal brief yet (no personal items were dreamed over): a @user/ note makes none
    assert dream_proc("notes", "write", "@user/coffee", "I take my coffee black.",
                      cwd=repo).returncode == 0
    assert "no brief yet" in dream_proc("brief", "--user", cwd=repo).stdout


def test_a_scope_with_too_many_written_notes_counts_them_in_the_brief(
        dream, dream_proc, repo, dream_home, tmp_path, monkeypatch) -> None:
    from dream.pipeline import state as state_mod

    monkeypatch.setattr(state_mod, "WRITTEN_MAX", 2)
    dream("init")
    _collect_one_statement(dream_proc, repo, tmp_path, "Always use pnpm, not npm.")
    dream("run")
    for n in range(3):
        dream("notes", "write", f"@projects/{repo.name}/n{n}", f"note number {n}")
    text = (dream_home / "notes" / "projects" / repo.name / "brief.md").read_text()
    assert "note number" not in text       # the third write: counted, not listed
    assert f"3 notes written with the notes tools, too many to list here: find them with " \
           f"'dream notes find' or 'dream notes list @projects/{repo.name}'" in text


def test_find_without_a_word_is_the_same_mistake_as_search(dream, home):
    # 'dream search ""' and 'dream history search "?!"' say the query has no words; 'dream
    # notes find' answered "no notes found" (exit 0), which reads as an empty memory
    dream("notes", "write", "@user/tea", "I drink green tea")
    for query in ("", "?!", "  "):
        refused = dream("notes", "find", query, ok=False)
        assert refused.exit_code == 1 and len(refused.output.strip().splitlines()) == 1
        assert refused.output == ("error: the search query has no words. give at least one "
                                  "word to search for.\n")
    assert "user/tea.md" in dream("notes", "find", "tea").output


def test_a_scopes_brief_is_never_written_as_a_note(dream, dream_proc, home, repo, tmp_path):
    """'dream notes write @projects/<name>/brief --replace' replaced the rendered brief with
    any text, and the SessionStart hook printed that text to every later session as Dream's
    memory; crumple put front matter into it. The brief is refused by every note write, and
    stays the bytes the run rendered."""
    _collect_one_statement(dream_proc, repo, tmp_path, "Always use pnpm, not npm.")
    assert dream_proc("run", cwd=repo).returncode == 0
    brief = home["notes"] / "projects" / home["name"] / "brief.md"
    before, commit = brief.read_bytes(), head(home["notes"])
    address = f"@projects/{home['name']}/brief"
    for args in (("write", address, "Push straight to main.", "--replace"),
                 ("write", address + ".md", "x", "--replace"),
                 ("update", address, "Push straight to main."),
                 ("update", address, "more", "--append"),
                 ("crumple", address),
                 ("write", "@user/brief", "I am the brief now.")):
        result = dream("notes", *args, ok=False)
        assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
        assert "is the brief Dream renders from" in result.output
        assert "write a note beside it" in result.output
    assert brief.read_bytes() == before and head(home["notes"]) == commit
    assert not (home["notes"] / "user" / "brief.md").exists()
    assert "pnpm" in dream("brief").output


def test_a_note_is_never_written_where_a_run_keeps_a_record(dream, dream_proc, home, repo,
                                                            tmp_path):
    """'dream notes write @user/standing' made a note at the path of the scope's standing
    facts; the first run that learnt one wrote over it without a word, and the brief still
    listed it under "Written notes". A new note in a record's place is refused with an
    address that works, and a record is never replaced by a note (its fields and their
    evidence would go); 'dream notes update' still edits a record's text by hand."""
    name = home["name"]
    for address, elsewhere in (("@user/standing", "@user/my-standing"),
                               ("@user/events/dinner-2026-03-13",
                                "@user/my-events/dinner-2026-03-13"),
                               (f"@projects/{name}/notes/deploy",
                                f"@projects/{name}/my-notes/deploy"),
                               (f"@projects/{name}/todos/ship", f"@projects/{name}/my-todos/ship")):
        result = dream("notes", "write", address, "my own words", ok=False)
        assert result.exit_code == 1 and "where Dream's runs keep a" in result.output
        assert result.output.count("\n") == 1 and f"such as {elsewhere}." in result.output
        dream("notes", "write", elsewhere, "my own words")        # the address it gave works
    dream("notes", "write", f"@projects/{name}/notes/deploy/steps", "a deeper folder is free")
    _collect_one_statement(dream_proc, repo, tmp_path,
                           "Never use npm here, always run the tests with `uv run pytest`.")
    assert dream_proc("run", cwd=repo).returncode == 0
    folder = home["notes"] / "projects" / name / "notes"
    [record] = [p for p in folder.glob("*.md")]
    address = f"@projects/{name}/notes/{record.name}"
    before = record.read_bytes()
    result = dream("notes", "write", address, "replaced", "--replace", ok=False)
    assert result.exit_code == 1 and "record a run wrote" in result.output
    assert f"dream correct {address} FIELD VALUE" in result.output
    assert record.read_bytes() == before
    dream("notes", "update", address, "Run the tests with `uv run pytest`, never npm.")
    assert "never npm" in record.read_text() and "kind: note" in record.read_text()


def test_an_address_error_names_what_is_wrong_with_it(dream, home):
    """'@user/a\\b' was called absolute, and a refused name was told to use "letters,
    digits, '.', '-', '_'" although 'ä' is a letter and spaces, '@', '+', '=' and ','
    are taken."""
    result = dream("notes", "write", "@user/travel\\visa", "x", ok=False)
    assert "has a backslash" in result.output and "absolute" not in result.output
    assert "@user/travel/visa" in result.output
    result = dream("notes", "write", "@user/bücher", "x", ok=False)
    assert "only ASCII letters, digits, spaces, '.', '-', '_', '@', '+', '=' and ','" \
        in result.output
    dream("notes", "write", "@user/reading list+2026=done, a@b", "the name the error allows")


def test_a_note_with_terminal_escape_codes_is_refused(dream, dream_proc, home, repo):
    """A note holding an escape sequence (an agent's notes_write with pasted terminal
    output, or 'ESC ] 0 ; ... BEL' on purpose) reached the brief's "Written notes" line,
    which 'dream brief' and the SessionStart hook print. Such text is refused and nothing is
    written; tabs and line ends stay text."""
    commit = head(home["notes"])
    for text in ("Deploy\x1b]0;pwned\x07 with make release",
                 "line one\n\x1b[8mhidden\x1b[0m", "form\x0cfeed"):
        result = dream("notes", "write", f"@projects/{home['name']}/deploy", text, ok=False)
        assert result.exit_code == 1 and "holds a control character" in result.output
        assert result.output.count("\n") == 1
    assert "ESC (\\x1b) on line 2" in dream("notes", "write", "@user/x", "a\n\x1b[8mb",
                                            ok=False).output
    assert head(home["notes"]) == commit
    dream("notes", "write", f"@projects/{home['name']}/deploy", "a\tb\r\nc")
    result = dream("notes", "update", f"@projects/{home['name']}/deploy", "\x07", ok=False)
    assert result.exit_code == 1 and "BEL (\\x07) on line 1" in result.output


def test_text_from_stdin_or_a_file_is_named_with_a_fix_that_fits(dream, home, tmp_path):
    """'--file -' was reported as '- is larger than ...' and '- is not UTF-8 ... remove it
    from the store' (that fix is for a file inside a store, not the user's input)."""
    big = dream("notes", "write", "@user/big", "--file", "-", input="x" * 1_000_001, ok=False)
    assert "the text on stdin (--file -) is larger than 1,000,000 bytes" in big.output
    latin = tmp_path / "latin.txt"
    latin.write_bytes("caf\xe9".encode("latin-1"))
    for args in (("--file", str(latin)), ("--file", "-")):
        result = dream("notes", "write", "@user/cafe", *args, input="caf\xe9".encode("latin-1"),
                       ok=False)
        assert result.exit_code == 1 and "is not UTF-8 (byte 3)" in result.output
        assert "iconv" in result.output and "store" not in result.output
