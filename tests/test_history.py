"""dream history search / show: the history tools, over redacted text only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SHARED_DATA

pytestmark = pytest.mark.shared_data


@pytest.fixture
def collected(dream, repo: Path, tmp_path: Path) -> Path:
    dream("init")
    for name in ("spotter__short.jsonl", "spotter__tool_heavy.jsonl"):
        dream("collect", str(SHARED_DATA / "claude_code" / name))
    chat = tmp_path / "chat.jsonl"
    chat.write_text("".join(json.dumps(
        {"text": f"note {i}: the deploy key is AKIAIOSFODNN7EXAMPL{i % 10} for phoenix",
         "stream": "ops", "time": f"2026-03-01T10:{i:02d}:00Z"}) + "\n" for i in range(45)))
    dream("collect", str(chat))
    return chat


def search(dream, *args: str) -> dict:
    return json.loads(dream("history", "search", *args, "--json").output)


def test_search_labels_hits_with_their_session_and_pages(dream, collected: Path) -> None:
    result = search(dream, "phoenix")
    # 45 notes + 4 items of tool_heavy mentioning Phoenix (lines 4, 12, 17 and 36)
    assert result["total"] == 45 + 4
    assert result["pages"] == 3 and len(result["hits"]) == 20
    streams = {s["stream"]: s["hits"] for s in result["streams"]}
    assert sum(streams.values()) == 20
    assert all(hit["stream"] and hit["ref"] and hit["kind"] for hit in result["hits"])
    cc = [h for h in search(dream, "phoenix", "--page", "3")["hits"]
          if h["source"] == "claude_code"]
    pages = [search(dream, "phoenix", "--page", str(p))["hits"] for p in (1, 2, 3)]
    ids = [h["id"] for page in pages for h in page]
    assert len(ids) == len(set(ids)) == 49
    assert search(dream, "phoenix", "--page", "4")["hits"] == []
    assert cc == [] or all(h["stream"] == "d6e0bada-1959-4eec-a9d2-0bfade768d8f" for h in cc)


def test_search_reads_redacted_text_only(dream, collected: Path) -> None:
    assert search(dream, "AKIAIOSFODNN7EXAMPL1")["total"] == 0
    result = search(dream, "deploy key")
    assert result["total"] >= 45  # any of the words; the 45 lines with both rank first
    assert all("REDACTED:aws-" in h["snippet"] for h in result["hits"])
    assert not any("AKIA" in h["snippet"] for h in result["hits"])


def test_search_survives_fts_syntax_and_reports_empty(dream, collected: Path) -> None:
    best = search(dream, 'phx.server "doesnt')["hits"][0]
    assert "phx.server" in best["snippet"]
    assert all("near" in h["snippet"].lower() for h in search(dream, "NEAR( AND OR -")["hits"])
    assert search(dream, "phoen*")["total"] == 49
    assert search(dream, "xyzzy OR phoenix")["total"] == 49
    result = dream("history", "search", "zzzqqq")
    assert "no matches" in result.output
    bad = dream("history", "search", "!!!", ok=False)
    assert bad.exit_code != 0 and "no words" in bad.output


def test_a_natural_question_finds_the_turn(dream, collected: Path) -> None:
    """Words are OR-ed and ranked: a question whose every word is not in one turn still
    finds the turns that share most of its words, best first."""
    result = search(dream, "What was the deploy key for phoenix?")
    assert result["total"] >= 49
    best = result["hits"][0]["snippet"]
    assert "[deploy] [key]" in best and "[phoenix]" in best


def test_show_pages_one_session_in_order(dream, collected: Path) -> None:
    first = json.loads(dream("history", "show", "ops", "--json").output)
    assert first["total"] == 45 and first["pages"] == 1
    assert [i["n"] for i in first["items"]] == list(range(1, 46))
    said = [i["said_at"] for i in first["items"]]
    assert said == sorted(said)
    # a unique prefix of a session id is enough
    sess = json.loads(dream("history", "show", "d6e0bada", "--json").output)
    assert sess["stream"] == "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
    assert sess["items"][0]["text"] == "start phoenix in background"
    assert sess["items"][0]["kind"] == "statement"
    text = dream("history", "show", "d6e0bada").output
    assert "#1 2026-02-10" in text and "start phoenix in background" in text
    page2 = json.loads(dream("history", "show", "ops", "--page", "2", "--json").output)
    assert page2["items"] == []
    missing = dream("history", "show", "nope", ok=False)
    assert missing.exit_code != 0 and "no collected session" in missing.output
    zero = dream("history", "show", "ops", "--page", "0", ok=False)
    assert zero.exit_code != 0 and "--page starts at 1" in zero.output


def _spool_row(seq_id: str, text: str) -> tuple:
    return (seq_id, "jsonl", "x.jsonl", f"x.jsonl:{seq_id}", "s1", None, "Sam", "user",
            "2026-03-01T10:00:00.000Z", text, None, None, "statement", 1, "[]",
            "2026-03-01T10:00:00.000Z")


def test_spool_index_upgrades_from_the_trigger_schema_and_catches_up(tmp_path):
    """A database made before the bulk index keeps every indexed item searchable after the
    migration, items spooled by any path are found, and deleting an item never indexed
    leaves the index consistent."""
    import sqlite3

    from dream import db
    from dream.spool import history

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    upto = [m for m in db.MIGRATIONS if m[0] != "spool_fts_bulk_1"]
    saved = db.MIGRATIONS[:]
    db.MIGRATIONS[:] = upto
    try:
        db.migrate(conn)
    finally:
        db.MIGRATIONS[:] = saved
    insert = ("INSERT INTO items(id, source, source_path, ref, stream, project_key, author, role,"
              " said_at, text, tool_name, is_error, kind, evidence, entities, collected_at)"
              " VALUES (" + ",".join("?" * 16) + ")")
    conn.execute(insert, _spool_row("old", "the heron nests by the lake"))  # old trigger indexes
    assert "spool_fts_bulk_1" in db.migrate(conn)
    conn.execute(insert, _spool_row("new", "a heron flew over the marsh"))  # no trigger now
    found = {h["id"] for h in history.search(conn, "heron")["hits"]}
    assert found == {"old", "new"}
    conn.execute(insert, _spool_row("gone", "heron"))
    conn.execute("DELETE FROM items WHERE id = 'gone'")                  # never indexed
    conn.execute("DELETE FROM items WHERE id = 'old'")                   # indexed
    assert {h["id"] for h in history.search(conn, "heron")["hits"]} == {"new"}
    conn.execute("INSERT INTO items_fts(items_fts) VALUES ('integrity-check')")


def test_a_page_past_any_there_can_be_is_one_line(dream, collected: Path) -> None:
    """'--page 99999999999999999999' reached SQLite's 64-bit OFFSET and was an internal
    error (OverflowError, exit 70) in history search, history show and notes find."""
    huge = "99999999999999999999"
    for args in (("history", "search", "phoenix", "--page", huge),
                 ("history", "show", "ops", "--page", huge),
                 ("history", "search", "phoenix", "--page", "1000001"),
                 ("notes", "find", "phoenix", "--page", huge)):
        result = dream(*args, ok=False)
        assert result.exit_code == 1 and "1,000,000" in result.output, result.output
        assert "internal error" not in result.output and result.output.count("\n") == 1
    last = search(dream, "phoenix", "--page", "1000000")       # the last page allowed
    assert last["hits"] == [] and last["pages"] == 3


def test_an_empty_session_id_is_refused_not_read_as_a_prefix_of_every_session(
        dream, repo: Path, tmp_path: Path) -> None:
    """'dream history show ""' paged whichever session there was (an empty prefix matches
    all), or said the empty id 'names several sessions'; it names none."""
    dream("init")
    chat = tmp_path / "one.jsonl"
    chat.write_text(json.dumps({"text": "we deploy on fridays", "stream": "only",
                                "time": "2026-03-01T10:00:00Z"}) + "\n")
    dream("collect", str(chat))
    for session in ("", "   "):
        result = dream("history", "show", session, ok=False)
        assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
        assert result.output.startswith("error: no session id given")
        assert "dream history search WORDS" in result.output
    assert json.loads(dream("history", "show", "on", "--json").output)["stream"] == "only"


def test_terminal_escapes_in_a_session_are_not_sent_to_the_terminal(
        dream, repo: Path, tmp_path: Path) -> None:
    """A tool result or message holding an OSC sequence (a fetched page, a pasted log) set
    the terminal's title or wrote its clipboard when 'dream history show' printed it; the
    text is shown without escape codes (the spool and --json keep it as collected)."""
    dream("init")
    chat = tmp_path / "esc.jsonl"
    said = "look: \x1b]52;c;cm0gLXJmIH4=\x07and \x1b]0;owned\x07done \x1b[31mred\x1b[0m"
    chat.write_text(json.dumps({"text": said, "stream": "esc", "author": "sam\x1b[2J",
                                "time": "2026-03-01T10:00:00Z"}) + "\n")
    dream("collect", str(chat))
    for args in (("history", "show", "esc"), ("history", "search", "look")):
        out = dream(*args).output
        assert not any(ch in out for ch in "\x1b\x07\x9b"), (args, out)
        assert "look" in out and "done red" in out and "sam" in out
    kept = json.loads(dream("history", "show", "esc", "--json").output)["items"][0]["text"]
    assert kept == said


def test_a_pasted_log_as_query_is_named_by_its_start(dream, repo, dream_home):
    """A whole pasted log searched for is repeated by its first 80 characters on one line,
    not printed back whole, and escape codes in it reach no terminal."""
    dream("init")
    query = "\x1b[31mERROR\x1b[0m worker crashed\n" + "at frame 0x7f " * 8000
    result = dream("history", "search", query)
    line = result.output.strip().splitlines()[0]
    assert line.startswith("no matches for 'ERROR worker crashed at frame")
    assert len(result.output) < 200 and "\x1b" not in result.output and "…" in line


def test_the_next_page_hint_keeps_project_and_quotes_for_a_shell(dream, collected: Path,
                                                                  repo: Path) -> None:
    """'more:' repeats --project (without it page 2 searched every project) and quotes the
    query as a shell reads it; a query with a line end or escape codes is not repeated."""
    import shlex

    session = collected.parent / "here.jsonl"
    session.write_text("".join(json.dumps(
        {"type": "user", "uuid": f"u{i}", "sessionId": "s-here", "cwd": str(repo),
         "timestamp": f"2026-03-02T10:{i:02d}:00Z",
         "message": {"role": "user", "content": f"deploy phoenix's key number {i}"}}) + "\n"
        for i in range(25)))
    dream("collect", "--source", "claude-code", str(session))
    out = dream("history", "search", "phoenix's key", "--project").output
    more = out.strip().splitlines()[-1]
    assert more.startswith("more: dream history search ") and more.endswith(
        " --project --page 2")
    assert shlex.split(more)[4] == "phoenix's key"
    out = dream("history", "search", "phoenix\n\x1b[2Jkey").output
    assert out.strip().splitlines()[-1] == "more: the same command with --page 2"
    assert "\x1b" not in out
