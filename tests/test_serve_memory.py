"""dream serve's memory pages over real HTTP: a real home whose memory was written by a real
'dream run' over the sample messages and transcripts, a correction, notes written and
crumpled through the CLI; every page kind, its escaping and its refusals."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from conftest import REPO_ROOT, git
from test_serve import get

from dream.app import App
from dream.core import memory
from dream.review.web import ReviewServer
from dream.spool import history

SAMPLES = REPO_ROOT / "src" / "dream" / "samples"
DINNER = "user/events/dinner-nobu-2026-03-13.md"
HOSTILE = "<script>alert(1)</script> & \"quotes\""


def build_memory(dream, tmp_path: Path) -> None:
    """Memory as a person has it after a few days: a dream run over messages and two coding
    sessions, a contradiction that became a question, a correction, a note written and one
    crumpled by hand."""
    dream("init")
    dream("collect", "--source", "jsonl", str(SAMPLES / "messages" / "personal.jsonl"))
    seats = tmp_path / "inbox" / "seats.jsonl"
    seats.parent.mkdir()
    seats.write_text("".join(json.dumps(x) + "\n" for x in [
        {"id": "p1", "time": "2026-03-01T10:00:00Z", "stream": "me", "role": "user",
         "text": "I prefer aisle seats on long flights."},
        {"id": "p2", "time": "2026-03-01T10:05:00Z", "stream": "me", "role": "user",
         "text": "I prefer window seats on flights."}]), encoding="utf-8")
    dream("collect", "--source", "jsonl", str(seats))
    dream("collect", "--project", "proj", *map(str, sorted(
        (SAMPLES / "claude_code").glob("*.jsonl"))))
    dream("run", "--model", "rules")
    dream("correct", "@" + DINNER.removesuffix(".md"), "place", "Nobu Mayfair")
    dream("notes", "write", "@user/hostile", HOSTILE)
    dream("notes", "write", "@user/old-idea", "Maybe learn the cello")
    dream("notes", "crumple", "@user/old-idea")


@pytest.fixture
def app(repo, dream, tmp_path):
    build_memory(dream, tmp_path)
    app = App.from_env()
    yield app
    app.close()


@pytest.fixture
def server(app):
    srv = ReviewServer(app, "127.0.0.1", 0).start()
    yield srv
    srv.close()


def notes_id(app: App) -> str:
    return app.notes_store().id


def links(html: str) -> list[str]:
    return [unescape(h) for h in re.findall(r'href="([^"]+)"', html)]


def test_front_page_links_every_scope_and_list(app, server):
    status, headers, html = get(server.url)
    assert status == 200 and "default-src 'none'" in headers["Content-Security-Policy"]
    store = notes_id(app)
    assert f'data-store="{store}" data-root="user"' in html
    assert 'data-root="projects/proj"' in html
    hrefs = links(html)
    # one click to each non-empty list of the personal scope
    for name in ("past", "open", "standing", "people", "notes", "crumpled", "questions"):
        assert f"/memory/{store}?scope=user&list={name}" in hrefs, name
    assert f"/memory/{store}?scope=projects%2Fproj&list=notes" in hrefs
    assert 'action="/search"' in html and "<script" not in html


def test_scope_page_shows_the_brief_with_links_to_records(app, server):
    store = notes_id(app)
    status, _, html = get(server.url + f"memory/{store}?scope=user")
    assert status == 200
    brief = (app.notes_store().path / "user" / "brief.md").read_text(encoding="utf-8")
    shown = unescape(re.sub(r"<[^>]+>", "", html.split('id="brief">')[1].split("</pre>")[0]))
    assert shown == brief                                     # as the agent reads it
    refs = re.findall(r"\[([a-z]+/[a-z0-9.-]+\.md)\]", brief)
    assert refs and all(f"/memory/{store}/user/{ref}" in links(html) for ref in refs)
    assert f"/memory/{store}/user/standing.md#field-allergies" in links(html)


def test_each_list_pages_through_its_records(app, server):
    store = notes_id(app)
    expected = {"past": "Dinner at Nobu", "open": "Renew my passport",
                "people": "Jordan", "notes": "hostile", "crumpled": "old-idea",
                "questions": "disagree", "standing": "standing", "done": "climbing gym"}
    for name, title in expected.items():
        status, _, html = get(server.url + f"memory/{store}?scope=user&list={name}")
        assert status == 200, name
        assert f'data-list="{name}"' in html and title.lower() in unescape(html).lower(), name
    status, _, html = get(server.url + f"memory/{store}?scope=user&list=past")
    days = re.findall(r'<li class="record"[^>]*><span class="muted">([0-9-]+)', html)
    assert days == sorted(days, reverse=True) and "2026-03-13" in days   # newest first
    status, _, html = get(server.url + f"memory/{store}?scope=user&list=crumpled")
    assert "user/old-idea.md" in html and "hostile" not in html


def test_lists_page_at_fifty_and_link_the_next_page(app):
    store = app.notes_store()
    for i in range(60):
        (store.path / "user" / f"n{i:03}.md").write_text(f"note {i}\n", encoding="utf-8")
    store.repo.commit_all("sixty notes")
    first = memory.list_records(app, store.id, "user", "notes", 1)
    second = memory.list_records(app, store.id, "user", "notes", 2)
    assert first.total == second.total >= 61 and first.pages == 2
    assert len(first.rows) == 50 and len(second.rows) == first.total - 50
    assert not {r.path for r in first.rows} & {r.path for r in second.rows}
    srv = ReviewServer(app, "127.0.0.1", 0).start()
    try:
        _, _, html = get(srv.url + f"memory/{store.id}?scope=user&list=notes")
        assert f"/memory/{store.id}?scope=user&list=notes&page=2" in links(html)
        assert html.count('<li class="record"') == 50
    finally:
        srv.close()


def test_record_page_quotes_the_evidence_of_each_field(app, server):
    store = notes_id(app)
    status, _, html = get(server.url + f"memory/{store}/{DINNER}")
    assert status == 200
    assert 'id="field-date"' in html and "2026-03-13" in html
    date_row = html.split('id="field-date"')[1].split("</tr>")[0]
    # the reservation mail, quoted with its author, time and source, linked to its session
    assert "Your reservation at Nobu is confirmed for Friday, March 13" in date_row
    assert "Nobu Reservations · 2026-03-10 08:30:00 · jsonl" in date_row
    assert "/sessions/mail-nobu#item-1" in links(date_row)
    run = re.search(r'href="/runs/([^"]+)" class="run"', date_row)
    assert run and app.db.execute("SELECT 1 FROM runs WHERE id=?", (run[1],)).fetchone()
    # the correction: typed now, by the person, the newest version of the place
    place_row = html.split('id="field-place"')[1].split("</tr>")[0]
    assert "Nobu Mayfair" in place_row and "correct" in place_row
    # the commit that wrote each field: the correction's for the place, the run's for the date
    shas = app.notes_store().repo.git("log", "--format=%H", "--", DINNER).split()
    assert f'<code class="commit">{shas[0][:12]}</code>' in place_row
    assert f'<code class="commit">{shas[1][:12]}</code>' in date_row


def test_record_history_comes_from_git_with_trailers_and_changes(app, server):
    store = app.notes_store()
    status, _, html = get(server.url + f"memory/{store.id}/{DINNER}")
    assert status == 200
    shas = store.repo.git("log", "--format=%H", "--", DINNER).split()
    assert len(shas) == 2
    found = re.findall(r'<section class="version" data-commit="([0-9a-f]+)"', html)
    assert found == shas                                         # newest first
    newest = html.split(f'data-commit="{shas[0]}"')[1].split("</section>")[0]
    assert "Dream-Run:" in newest and "Dream-Pass: correct" in newest
    assert re.search(r'data-field="place"><b>place</b>: Nobu → <b>Nobu Mayfair</b>', newest)
    oldest = html.split(f'data-commit="{shas[1]}"')[1].split("</section>")[0]
    assert "<b>date</b>: set to <b>2026-03-13</b>" in oldest and "propose" in oldest


def test_free_note_page_shows_its_text_escaped_and_its_history(app, server):
    store = notes_id(app)
    status, _, html = get(server.url + f"memory/{store}/user/hostile.md")
    assert status == 200
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    version = html.split('<section class="version"')[1].split("</section>")[0]
    assert "Write note @user/hostile.md" in version
    assert '<b>text</b>: set to <b>&lt;script&gt;' in version


def test_session_page_pages_like_history_show(app, server):
    store = notes_id(app)
    _, _, rec = get(server.url + f"memory/{store}/{DINNER}")
    target = next(h for h in links(rec) if h.startswith("/sessions/sms-jordan"))
    status, _, html = get(server.url + target.lstrip("/").split("#")[0])
    assert status == 200
    cli = history.show(app.db, "sms-jordan")
    assert html.count('<div class="item"') == len(cli["items"]) == cli["total"]
    for item in cli["items"]:
        assert f'id="item-{item["n"]}" data-id="{item["id"]}"' in html
    assert "Dinner on Friday at 7pm at Nobu?" in html


def test_session_page_of_a_long_session_has_pages(app):
    app.db.executemany(
        "INSERT INTO items(id, source, source_path, ref, stream, author, role, said_at, text,"
        " kind, evidence, entities, collected_at) VALUES (?, 'jsonl', 'x', ?, 'long', 'me',"
        " 'user', ?, ?, 'statement', 1, '[]', 'now')",
        [(f"long-{i}", f"x:{i}", f"2026-01-01T00:{i // 60:02}:{i % 60:02}Z", f"line {i}")
         for i in range(120)])
    places = history.items_by_id(app.db, ["long-0", "long-75", "long-119"])
    assert [places[k]["n"] for k in ("long-0", "long-75", "long-119")] == [1, 76, 120]
    srv = ReviewServer(app, "127.0.0.1", 0).start()
    try:
        status, _, html = get(srv.url + "sessions/long?page=2")
        assert status == 200 and 'id="item-51"' in html and 'id="item-100"' in html
        assert 'id="item-50"' not in html and "page 2 of 3" in html
    finally:
        srv.close()


def test_search_ranks_memory_like_the_cli_and_history_like_history_search(app, server):
    store = app.notes_store()
    cli = json.loads(_cli_search("nobu dinner"))
    status, _, html = get(server.url + "search?q=nobu+dinner")
    assert status == 200
    shown = re.findall(r'<div class="hit memory" data-path="([^"]+)"', html)
    assert shown[:len(cli)] == [h["path"] for h in cli]
    assert f"/memory/{store.id}/{DINNER}" in links(html)          # one search, one click
    status, _, html = get(server.url + "search?q=reservation&in=history")
    found = history.search(app.db, "reservation")
    ids = re.findall(r'<div class="hit history" data-id="([^"]+)"', html)
    assert ids == [h["id"] for h in found["hits"]] and ids
    assert any(h.startswith("/sessions/mail-nobu") and "#item-" in h for h in links(html))


def _cli_search(query: str) -> str:
    from click.testing import CliRunner

    from dream.cli import cli

    out = CliRunner().invoke(cli, ["search", query, "--json", "--limit", "20"],
                             catch_exceptions=False).output
    return json.dumps(json.loads(out)["hits"])


@pytest.mark.parametrize("path, status", [
    ("memory/{store}/..%2F..%2Fetc%2Fpasswd", 400),
    ("memory/{store}/user/%2e%2e/%2e%2e/x.md", 400),
    ("memory/{store}/%2Fetc%2Fpasswd", 400),
    ("memory/{store}/user/a%00b.md", 400),
    ("memory/{store}/user/nothing-here.md", 404),
    ("memory/{store}/.dream/store.toml", 404),
    ("memory/no-such-store?scope=user", 404),
    ("memory/bad%20store!?scope=user", 400),
    ("memory/{store}?scope=..%2F..", 400),
    ("memory/{store}?scope=user&list=nope", 400),
    ("memory/{store}?scope=user&list=notes&page=0", 400),
    ("memory/{store}?scope=user&list=notes&page=x", 400),
    ("sessions/no-such-session", 404),
    ("search?q=x&in=elsewhere", 400),
    ("search?q=%22%2A%3A&in=history", 400),
])
def test_hostile_addresses_get_a_clean_error(app, server, path, status):
    got, _, html = get(server.url + path.format(store=notes_id(app)))
    assert got == status, html
    assert "Traceback" not in html and 'id="error"' in html


def test_a_pasted_20_kb_query_is_refused_by_its_length_not_echoed(app, server):
    """/search echoed a 20 KB query back into the page whole, in the search box and the
    title (and each pager link). A query longer than the search boxes' maxlength is now a
    400 page naming its length; one of that length still searches."""
    for where in ("memory", "history"):
        got, _, html = get(server.url + "search?" + urlencode(
            {"q": "nobu dinner " + "z" * 20_000, "in": where}))
        assert got == 400 and 'id="error"' in html and "Traceback" not in html
        assert "20,012 characters" in html and "500 at most" in html
        assert "zzzzzzzzzz" not in html and len(html) < 5_000
    assert 'maxlength="500"' in get(server.url + "search")[2]
    got, _, html = get(server.url + "search?" + urlencode({"q": "nobu " + "z" * 495}))
    assert got == 200 and f"/memory/{notes_id(app)}/{DINNER}" in links(html)


def test_memory_pages_need_the_token(app):
    srv = ReviewServer(app, "127.0.0.1", 0, token="memory-token-1234567890").start()
    try:
        for path in ("memory", f"memory/{notes_id(app)}/{DINNER}", "search?q=nobu",
                     "sessions/sms-jordan"):
            assert get(srv.url + path)[0] == 401
            ok = get(srv.url + path, {"Authorization": "Bearer memory-token-1234567890"})
            assert ok[0] == 200, path
    finally:
        srv.close()


def test_index_columns_follow_the_records(app):
    store = app.notes_store()
    memory.scopes(app)
    rows = {r["path"]: (r["root"], r["kind"], r["state"], r["day"]) for r in app.db.execute(
        "SELECT path, root, kind, state, day FROM documents WHERE store_id=?", (store.id,))}
    assert rows[DINNER] == ("user", "event", "confirmed", "2026-03-13")
    assert rows["user/brief.md"][1] == "brief"
    assert rows["user/old-idea.md"][:3] == ("user", "note", "crumpled")
    assert rows["projects/proj/brief.md"][0] == "projects/proj"
    todo = next(v for p, v in rows.items() if "passport" in p)
    assert todo[1:3] == ("todo", "open")
    assert quote(DINNER) == DINNER


def test_history_reads_versions_by_blob_and_keeps_the_commit_graph(app):
    """A record's history names each version's blob from one 'git log --raw'; a merge that
    resolved the record to a third value (no diff of its own) is read at the merge; git's
    changed-path commit-graph is kept at HEAD."""
    store = app.notes_store()
    repo = store.repo
    path = store.path / DINNER
    text = path.read_text(encoding="utf-8")
    branch = repo.current_branch()
    repo.git("switch", "-q", "-c", "side")
    path.write_text(text.replace("Nobu Mayfair", "Nobu Soho"), encoding="utf-8")
    repo.commit_all("on a side branch")
    repo.git("switch", "-q", branch)
    path.write_text(text.replace("Nobu Mayfair", "Nobu Marylebone"), encoding="utf-8")
    repo.commit_all("meanwhile")
    repo.git("merge", "-q", "side", "-m", "merge side", check=False)     # a conflict
    path.write_text(text.replace("Nobu Mayfair", "Nobu Covent Garden"), encoding="utf-8")
    repo.git("add", DINNER)
    repo.git("commit", "-q", "--no-edit", env=repo.identity_env())
    view = memory.record(app, store.id, DINNER)
    assert [f.value for f in view.fields if f.name == "place"] == ["Nobu Covent Garden"]
    merge = view.history[0]
    assert merge.subject.startswith("Merge") or merge.subject == "merge side"
    assert [(c.name, c.new) for c in merge.changes] == [("place", "Nobu Covent Garden")]
    subjects = [v.subject for v in view.history]
    assert "on a side branch" in subjects and "meanwhile" in subjects
    chain = store.path / ".git" / "objects" / "info" / "commit-graphs" / "commit-graph-chain"
    assert chain.exists()
    repo.git("commit-graph", "verify")


def test_a_small_stores_best_hit_is_not_sorted_behind_a_big_stores_weak_ones(repo, dream,
                                                                              tmp_path):
    """Memory search over every store merges the stores' hits by their bm25 scores. One
    full-text index holds the documents of every store, so a word's rarity counts every
    store and a document scores the same whichever store holds it: a one-document team
    store's runbook, the only document naming the billing roll-back, ranks first over
    thirty notes in the notes home that share only the common words; and it scores the
    same searched alone (``store=``) as over every store."""
    dream("init")
    for i in range(30):
        dream("notes", "write", f"@user/n{i}", f"Deploy service {i} with helm charts.")
    team = tmp_path / "team"
    dream("stores", "attach", str(team), "--create", "--scope", "shared")
    (team / "notes").mkdir()
    (team / "notes" / "runbook.md").write_text(
        "---\ntitle: Billing runbook\n---\nDeploy billing with helm; roll back billing with "
        "helm rollback.\n", encoding="utf-8")
    git(team, "add", "-A")
    git(team, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "runbook")
    dream("reindex")
    app = App.from_env()
    srv = ReviewServer(app, "127.0.0.1", 0).start()
    try:
        html = get(srv.url + "search?q=" + quote("deploy billing rollback with helm"))[2]
        shown = re.findall(r'<div class="hit memory" data-path="([^"]+)"', html)
        assert shown[0] == "notes/runbook.md" and len(shown) > 1
        assert "team · <code>notes/runbook.md</code> · #1" in html
        both = memory.search_memory(app, "deploy billing rollback with helm").hits
        team_id = next(h["store_id"] for h in both if h["path"] == "notes/runbook.md")
        alone = memory.search_memory(app, "deploy billing rollback with helm", team_id).hits
        assert [h["score"] for h in alone] == [both[0]["score"]]
        # a query the notes match better puts the notes first
        html = get(srv.url + "search?q=" + quote("service 7 charts"))[2]
        assert re.findall(r'data-path="([^"]+)"', html)[0] == "user/n7.md"
    finally:
        srv.close()
        app.close()
