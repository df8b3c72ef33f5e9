"""Steering from ``dream serve`` over real HTTP, against a real home, store and database: the
questions page and its answer forms (same thing? and which value?), correcting a field and
crumpling a note, each through the command line's own function, one commit each, with the
store, ``git log`` and the next ``dream run`` checked afterwards; a secret typed into a form
never reaches the store, git or the database."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import git
from test_answers import PARTNER, SAME_KEY, _asked, _later, _log
from test_scenarios import SCENARIOS, fields, records, run_json, script, stage
from test_serve import csrf_of, get, post

from dream.app import App
from dream.review.steer import safe_back, with_done
from dream.review.web import ReviewServer

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
WHICH_PLACE = {"op": "question.ask", "name": "which-dinner-with-jordan-place",
               "evidence": ["R1"],
               "fields": fields(text="Nobu or Hoppers?", ask="value", about="R1",
                                field="place", options='["Nobu", "Hoppers"]')}


@pytest.fixture
def server(dream_home, tmp_path):
    """The page of a home, served from a folder that is no project (like a user would
    start it anywhere): it shows every project's and @user/'s questions."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    app = App.from_env(cwd=elsewhere)
    srv = None

    def start() -> ReviewServer:
        nonlocal srv
        srv = ReviewServer(app, "127.0.0.1", 0).start()
        return srv

    yield start
    if srv is not None:
        srv.close()
    app.close()


def _which(dream, tmp_path, question: dict) -> str:
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    model = script(tmp_path, "q", {"ops": [
        {"op": "event.upsert", "name": "dinner with jordan", "evidence": ["E1"],
         "fields": fields(title="Dinner with Jordan", date="2026-03-13", time="19:00",
                          place="Nobu")}, PARTNER]},
        {"purpose": "sweep", "data": {"ops": [question]}})
    run_json(dream, "--model", model)
    return question["name"]


def _questions(srv) -> tuple[str, str]:
    status, headers, html = get(srv.url + "questions")
    assert status == 200 and "script" not in headers["Content-Security-Policy"]
    return html, csrf_of(html) if 'name="csrf"' in html else ""


def test_same_thing_question_answered_yes_from_the_page(dream, repo, dream_home, tmp_path,
                                                        server):
    _asked(dream, dream_home, tmp_path)
    srv = server()
    front = get(srv.url)[2]
    assert 'href="/questions"' in front                       # linked from the front page
    html, csrf = _questions(srv)
    address = f"@user/questions/{SAME_KEY}.md"
    assert f'data-key="{SAME_KEY}" data-ask="same" data-address="{address}"' in html
    assert "@user/events/dinner-with-jordan.md" in html and ">Nobu<" in html   # the records
    notes_home = App.from_env().notes_store().id
    assert f'href="/memory/{notes_home}/user/events/dinner-with-jordan.md"' in html
    assert f'href="/memory/{notes_home}/user/questions/{SAME_KEY}.md"' in html
    assert 'value="yes"' in html and 'value="no"' in html
    commits = len(_log(dream_home))

    assert post(srv.url + "questions/answer", {"question": address, "answer": "yes"})[0] == 403
    assert post(srv.url + "questions/answer", {"question": address, "answer": "yes",
                                               "csrf": "forged"})[0] == 403
    assert len(_log(dream_home)) == commits                   # refused: nothing changed

    status, headers, _ = post(srv.url + "questions/answer",
                              {"question": address, "answer": "yes", "csrf": csrf})
    assert status == 303 and headers["Location"].startswith("/questions?done=answered")
    assert len(_log(dream_home)) == commits + 1               # one commit
    log = git(dream_home / "notes", "log", "-1", "--format=%B")
    assert "Dream-Pass: answer" in log and "Dream-Evidence: answer-" in log
    events = records(dream_home, "events")
    assert events["dinner-with-jordan"].get("place") == "Nobu"
    assert events["jordan-birthday-dinner"].get("status") == "declined"
    assert records(dream_home, "questions")[SAME_KEY].get("answer") == "yes"
    done = get(srv.url + headers["Location"].lstrip("/"))[2]
    assert f"answered {address} = &#x27;yes&#x27;" in done and 'id="no-questions"' in done
    assert json.loads(dream("questions", "--json").output) == []

    status, _, html = post(srv.url + "questions/answer",
                           {"question": address, "answer": "no", "csrf": csrf})
    assert status == 409 and "already answered" in html and 'href="/questions"' in html
    assert len(_log(dream_home)) == commits + 1

    run_json(dream, "--model", _later(tmp_path, "later"), "--no-sweep")   # the next run
    assert records(dream_home, "events")["jordan-birthday-dinner"].get("status") == "declined"


def test_same_thing_question_answered_no_from_the_page(dream, repo, dream_home, tmp_path,
                                                       server):
    _asked(dream, dream_home, tmp_path)
    srv = server()
    _html, csrf = _questions(srv)
    status, _, _ = post(srv.url + "questions/answer", {
        "question": f"@user/questions/{SAME_KEY}.md", "answer": "no", "csrf": csrf})
    assert status == 303
    run_json(dream, "--model", _later(tmp_path, "later"), "--no-sweep")
    assert list(records(dream_home, "questions")) == [SAME_KEY]       # never asked again
    assert records(dream_home, "events")["jordan-birthday-dinner"].get("status") == "confirmed"
    assert 'id="no-questions"' in _questions(srv)[0]


def test_which_value_question_offers_values_and_checks_a_typed_one(dream, repo, dream_home,
                                                                  tmp_path, server):
    key = _which(dream, tmp_path, {
        "op": "question.ask", "name": "which-dinner-with-jordan-time", "evidence": ["R1"],
        "fields": fields(text="Seven or eight?", ask="value", about="R1", field="time",
                         options='["19:00", "20:00"]')})
    srv = server()
    html, csrf = _questions(srv)
    address = f"@user/questions/{key}.md"
    assert f'data-key="{key}" data-ask="value"' in html
    assert 'name="answer" value="19:00" checked' in html and 'value="20:00"' in html
    assert 'name="typed"' in html and "<td class=asked>19:00</td>" in html
    commits = _log(dream_home)

    status, _, page = post(srv.url + "questions/answer", {
        "question": address, "answer": "19:00", "typed": "half past", "csrf": csrf})
    assert status == 409 and "&#x27;half past&#x27; is not a time" in page      # the CLI's line
    assert _log(dream_home) == commits

    status, headers, _ = post(srv.url + "questions/answer", {
        "question": address, "answer": "19:00", "typed": "20:30", "csrf": csrf})
    assert status == 303 and "20%3A30" in headers["Location"]
    ev = records(dream_home, "events")["dinner-with-jordan"]
    assert ev.get("time") == "20:30" and ev.fields["time"].evidence[0].startswith("answer-")
    assert len(_log(dream_home)) == len(commits) + 1
    run_json(dream, "--model", _later(tmp_path, "later"), "--no-sweep")
    assert records(dream_home, "events")["dinner-with-jordan"].get("time") == "20:30"


def test_an_offered_value_is_chosen_with_its_radio(dream, repo, dream_home, tmp_path, server):
    key = _which(dream, tmp_path, WHICH_PLACE)
    srv = server()
    _html, csrf = _questions(srv)
    status, _, page = post(srv.url + "questions/answer", {
        "question": f"@user/questions/{key}.md", "answer": "Hoppers", "typed": "",
        "csrf": csrf})
    assert status == 303, page.split('id="error">')[-1][:300]
    assert records(dream_home, "events")["dinner-with-jordan"].get("place") == "Hoppers"
    assert records(dream_home, "questions")[key].get("status") == "answered"


def test_correct_a_field_from_the_page_is_dream_correct(dream, repo, dream_home, tmp_path,
                                                        server):
    _which(dream, tmp_path, WHICH_PLACE)
    srv = server()
    csrf = srv.csrf
    address = "@user/events/dinner-with-jordan"
    commits = _log(dream_home)
    for form, says in (({"field": "colour", "value": "red"}, "has no field"),
                       ({"field": "date", "value": "Friday"}, "is not a date"),
                       ({"field": "time", "value": ""}, "must not be empty")):
        status, _, html = post(srv.url + "records/correct",
                               {"address": address, "csrf": csrf, **form})
        assert status == 409 and says in html, html
    status, _, html = post(srv.url + "records/correct", {
        "address": address, "field": "time", "value": "20:00", "store": "another-store",
        "csrf": csrf})
    assert status == 409 and "not in the store this page showed" in html
    assert _log(dream_home) == commits                          # refused: nothing changed

    back = "/questions?x=1"
    notes_home = App.from_env().notes_store().id
    status, headers, _ = post(srv.url + "records/correct", {
        "address": address, "field": "Time", "value": "7:45", "back": back, "csrf": csrf,
        "store": notes_home})
    assert status == 303 and headers["Location"].startswith("/questions?x=1&done=corrected")
    ev = records(dream_home, "events")["dinner-with-jordan"]
    assert ev.get("time") == "07:45" and ev.fields["time"].pass_ == "correct"
    assert len(_log(dream_home)) == len(commits) + 1
    assert "Dream-Pass: correct" in git(dream_home / "notes", "log", "-1", "--format=%B")
    run_json(dream, "--model", _later(tmp_path, "later"), "--no-sweep")
    assert records(dream_home, "events")["dinner-with-jordan"].get("time") == "07:45"

    status, _, html = post(srv.url + "records/correct", {
        "address": "@user/events/no-such-dinner", "field": "time", "value": "19:00",
        "csrf": csrf, "back": "https://evil.example/"})
    assert status == 409 and "no record at" in html and 'href="/questions"' in html


def test_crumple_a_note_record_and_a_plain_note_from_the_page(dream, repo, dream_home,
                                                              tmp_path, server):
    dream("init")
    lines = [json.loads(line) for line in (SCENARIOS / "coding_session.jsonl").read_text(
        encoding="utf-8").splitlines()]
    stage(tmp_path, "coding_here", [{**line, "cwd": str(repo)} for line in lines])
    run_json(dream)                                              # the rules provider
    name = repo.name
    notes = sorted((dream_home / "notes" / "projects" / name / "notes").glob("*.md"))
    assert notes, "the rules provider wrote no note"
    target = notes[0]
    address = f"@projects/{name}/notes/{target.name}"
    dream("notes", "write", "@user/scratch/plan.md", "try the new runner")
    srv = server()                                               # serving from elsewhere
    commits = _log(dream_home)

    status, headers, _ = post(srv.url + "records/crumple", {"address": address,
                                                           "csrf": srv.csrf})
    assert status == 303 and "done=crumpled" in headers["Location"]
    rec = json.loads(dream("notes", "show", address, "--json").output)
    assert "value: crumpled" in rec["content"]
    brief = (dream_home / "notes" / "projects" / name / "brief.md").read_text()
    assert target.name not in brief                              # gone from the brief
    status, _, _ = post(srv.url + "records/crumple", {"address": "@user/scratch/plan.md",
                                                     "csrf": srv.csrf})
    assert status == 303
    assert "status: crumpled" in (dream_home / "notes" / "user" / "scratch" / "plan.md"
                                  ).read_text()
    assert len(_log(dream_home)) == len(commits) + 2             # one commit each
    status, _, html = post(srv.url + "records/crumple", {"address": "@user/../x.md",
                                                        "csrf": srv.csrf})
    assert status == 409 and len(_log(dream_home)) == len(commits) + 2
    assert "segment" in html and "Traceback" not in html       # the CLI's own sentence


def test_a_secret_typed_into_a_form_never_reaches_the_store_git_or_database(
        dream, repo, dream_home, tmp_path, server):
    key = _which(dream, tmp_path, WHICH_PLACE)
    srv = server()
    _html, csrf = _questions(srv)
    status, headers, _ = post(srv.url + "questions/answer", {
        "question": f"@user/questions/{key}.md", "answer": "Nobu",
        "typed": f"Nobu, door code {SECRET}", "csrf": csrf})
    assert status == 303 and SECRET not in headers["Location"]
    status, headers, _ = post(srv.url + "records/correct", {
        "address": "@user/events/dinner-with-jordan", "field": "title",
        "value": f"Dinner, token {SECRET}", "csrf": csrf})
    assert status == 303 and SECRET not in headers["Location"]
    status, _, html = post(srv.url + "records/correct", {
        "address": "@user/events/dinner-with-jordan", "field": "date",
        "value": f"{SECRET}", "csrf": csrf})
    assert status == 409 and SECRET not in html and "REDACTED" in html
    ev = records(dream_home, "events")["dinner-with-jordan"]
    assert "REDACTED" in ev.get("place") and "REDACTED" in ev.get("title")

    store = dream_home / "notes"
    history = subprocess.run(["git", "log", "-p", "--all", "--format=%B"], cwd=store,
                             capture_output=True, text=True, check=True).stdout
    assert "REDACTED" in history and SECRET not in history
    on_disk = b"".join(p.read_bytes() for p in store.rglob("*") if p.is_file())
    assert SECRET.encode() not in on_disk                       # work tree and .git objects
    raw = (dream_home / "dream.db").read_bytes() if (dream_home / "dream.db").exists() else b""
    assert SECRET.encode() not in raw
    dump = "\n".join(App.from_env().db.iterdump())
    assert SECRET not in dump and "REDACTED" in dump
    assert SECRET not in get(srv.url + "questions")[2]


def test_waiting_decisions_are_listed(dream, repo, dream_home, tmp_path, server):
    from test_serve import REVIEW_ID, left_for_review, seed_review

    dream("init")
    out = left_for_review(dream, tmp_path)
    app = App.from_env()
    seed_review(app)
    app.close()
    html, _ = _questions(server())
    assert f'href="/runs/{out["id"]}"' in html
    assert f'href="/runs/{REVIEW_ID}#proposals"' in html and "3 review proposals" in html


def test_back_links_stay_on_this_server():
    assert safe_back("/runs/x?y=1", "/questions") == "/runs/x?y=1"
    for bad in ("https://evil.example/", "//evil.example/", "/\\evil", "", "/a\nb"):
        assert safe_back(bad, "/questions") == "/questions"
    assert with_done("/memory/x?done=old#f", "new") == "/memory/x?done=new#f"


# -- pictures ----------------------------------------------------------------------------------
def test_timeline_shows_upcoming_events_soonest_first(dream, repo, dream_home, tmp_path,
                                                      server):
    from datetime import UTC, datetime, timedelta

    today = datetime.now(UTC).date()

    def day(n: int) -> str:
        return (today + timedelta(days=n)).isoformat()

    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    run_json(dream, "--no-sweep", "--model", script(tmp_path, "ev", {"ops": [
        {"op": "event.upsert", "name": "climbing", "evidence": ["E1"],
         "fields": fields(title="Climbing <b>gym</b>", date=day(10), status="confirmed")},
        {"op": "event.upsert", "name": "dinner", "evidence": ["E2"],
         "fields": fields(title="Dinner", date=day(3), time="19:00", place="Nobu",
                          status="proposed")},
        {"op": "event.upsert", "name": "lunch", "evidence": ["E3"],
         "fields": fields(title="Lunch", date=day(5), status="declined")},
        {"op": "event.upsert", "name": "old", "evidence": ["E3"],
         "fields": fields(title="Last week", date=day(-7))}]}))
    srv = server()
    assert 'href="/pictures"' in get(srv.url)[2]
    status, headers, html = get(srv.url + "pictures")
    assert status == 200 and "<script" not in html
    assert html.count('<g class="event"') == 3                         # not last week's
    dates = [part.split('"', 1)[0] for part in html.split('<g class="event" data-date="')[1:]]
    assert dates == [day(3), day(5), day(10)]
    assert 'data-status="declined" data-address="@user/events/lunch.md"' in html
    notes_home = App.from_env().notes_store().id
    assert f'<a href="/memory/{notes_home}/user/events/dinner.md"><g class="event"' in html
    assert "Climbing &lt;b&gt;gym&lt;/b&gt;" in html and "<b>gym" not in html
    assert f"{day(3)} 19:00</tspan> Dinner · Nobu" in html
    earlier = get(srv.url + f"pictures?from={day(-8)}")[2]
    assert earlier.count('<g class="event"') == 4
    bad = get(srv.url + "pictures?from=soon")[2]
    assert "give ?from=YYYY-MM-DD" in bad and bad.count('<g class="event"') == 3


def test_churn_per_run_counts_added_changed_and_crumpled_records(dream, repo, dream_home,
                                                                 tmp_path, server):
    dream("init")
    lines = [json.loads(line) for line in (SCENARIOS / "coding_session.jsonl").read_text(
        encoding="utf-8").splitlines()]
    stage(tmp_path, "coding_here", [{**line, "cwd": str(repo)} for line in lines])
    first = run_json(dream)
    notes = sorted((dream_home / "notes" / "projects" / repo.name / "notes").glob("*.md"))
    added = git(dream_home / "notes", "show", "--name-status", "--format=", first["commit"])
    records_added = [line for line in added.splitlines() if line.startswith("A\t")
                     and not line.endswith("brief.md")]
    crumple = f"@projects/{repo.name}/notes/{notes[0].stem}"
    dream("notes", "crumple", crumple)
    dream("correct", f"@projects/{repo.name}/notes/{notes[1].stem}", "type", "fact")
    srv = server()
    html = get(srv.url + "pictures")[2]
    bars = [part.split(">", 1)[0] for part in html.split('<g class="churn" ')[1:]]
    assert len(bars) == 3, bars
    assert f'data-added="{len(records_added)}" data-changed="0" data-crumpled="0"' in bars[0]
    assert 'data-added="0" data-changed="0" data-crumpled="1" data-removed="0"' in bars[1]
    assert 'data-added="0" data-changed="1" data-crumpled="0" data-removed="0"' in bars[2]
    assert html.count('<circle class="point"') == 3                    # growth after each
    assert 'id="chart-cost"' in html and html.count('<rect class="bar"') >= 3


def test_memory_size_from_a_diff_equals_a_full_count(dream, repo, dream_home):
    """The growth line counts a store once, then each later commit by its tree diff."""
    from dream.review.web import RunsView

    dream("init")
    app = App.from_env()
    store = app.notes_store()
    shas = []
    for step, (add, remove) in enumerate([(["a", "b", "c"], []), (["d"], ["a"]),
                                          ([], ["b", "c"]), (["e/f", "brief"], [])]):
        for name in add:
            path = store.path / "user" / f"{name}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"note {name}\n", encoding="utf-8")
        for name in remove:
            (store.path / "user" / f"{name}.md").unlink()
        shas.append(store.repo.commit_all(f"step {step}"))
    walked = RunsView(app)
    counts = [walked.memory_size(store.id, sha) for sha in shas]
    fresh = [RunsView(app).memory_size(store.id, sha) for sha in shas]
    assert counts == fresh
    assert [sum(c.values()) for c in counts] == [3, 3, 1, 2]       # brief.md not counted
    app.close()


def test_churn_skips_a_commit_the_store_no_longer_has(dream, repo, dream_home, server):
    from test_serve import seed_runs

    dream("init")
    app = App.from_env()
    runs = seed_runs(app, 2)                        # two real commits, one note each
    app.db.execute("UPDATE runs SET details = ? WHERE id = ?", (json.dumps(
        {"commits": {app.notes_store().id: "0" * 40}}), "20261130T120001-a1b2c1"))
    app.close()
    html = get(server().url + "pictures")[2]
    bars = [part.split(">", 1)[0] for part in html.split('<g class="churn" ')[1:]]
    assert len(bars) == 1 and f'data-run="{runs[0]["id"]}" data-added="1"' in bars[0]
