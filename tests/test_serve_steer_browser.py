"""Steering from ``dream serve`` in headless Chromium (a real ``dream serve`` process with a
token): answer a *same thing?* question and a *which value?* question from the questions
page, and check the store, ``git log`` and the next run after each."""

from __future__ import annotations

import test_serve_browser as browser
from conftest import git
from test_answers import SAME_KEY, _asked, _later, _log
from test_scenarios import records, run_json
from test_serve_steer import WHICH_PLACE, _which

app, page, served = browser.app, browser.page, browser.served       # its fixtures


def test_answer_a_same_thing_question_in_the_browser(dream, repo, dream_home, tmp_path,
                                                     served, page):
    _asked(dream, dream_home, tmp_path)
    commits = len(_log(dream_home))
    page.goto(served)
    page.click("#nav-questions")
    assert page.locator("#open-count").inner_text() == "(1 open)"
    question = page.locator(f"section.question[data-key='{SAME_KEY}']")
    assert question.get_attribute("data-ask") == "same"
    assert "@user/events/jordan-birthday-dinner.md" in question.locator("table").inner_text()
    question.locator("a.record").last.click()                    # the record, one click away
    assert page.locator("#title").inner_text() == "Birthday dinner"
    page.go_back()
    question = page.locator(f"section.question[data-key='{SAME_KEY}']")

    question.locator("button.yes").click()
    assert page.locator("#done").inner_text().startswith(
        f"answered @user/questions/{SAME_KEY}.md = 'yes'")
    assert page.locator("section.question").count() == 0
    assert page.locator("#no-questions").is_visible()

    assert len(_log(dream_home)) == commits + 1
    assert "Dream-Pass: answer" in git(dream_home / "notes", "log", "-1", "--format=%B")
    events = records(dream_home, "events")
    assert events["jordan-birthday-dinner"].get("status") == "declined"
    assert events["jordan-birthday-dinner"].get("same_as") == "events/dinner-with-jordan.md"
    run_json(dream, "--model", _later(tmp_path, "later"), "--no-sweep")
    assert records(dream_home, "events")["jordan-birthday-dinner"].get("status") == "declined"


def test_answer_a_which_value_question_in_the_browser(dream, repo, dream_home, tmp_path,
                                                      served, page):
    key = _which(dream, tmp_path, WHICH_PLACE)
    commits = len(_log(dream_home))
    page.goto(served.split("?")[0].rstrip("/") + "/questions?" + served.split("?")[1])
    question = page.locator(f"section.question[data-key='{key}']")
    assert question.get_attribute("data-ask") == "value"
    assert question.locator("input[type=radio]").count() == 2

    assert question.locator("input[value='Nobu']").is_checked()     # the newest first
    question.locator("input[value='Hoppers']").check()
    question.locator("button.answer").click()
    assert page.locator("#done").inner_text().startswith(
        f"answered @user/questions/{key}.md = 'Hoppers'")

    assert len(_log(dream_home)) == commits + 1
    ev = records(dream_home, "events")["dinner-with-jordan"]
    assert ev.get("place") == "Hoppers" and ev.fields["place"].pass_ == "answer"
    assert records(dream_home, "questions")[key].get("answer") == "Hoppers"
    run_json(dream, "--model", _later(tmp_path, "later"), "--no-sweep")
    assert records(dream_home, "events")["dinner-with-jordan"].get("place") == "Hoppers"


def test_a_bad_typed_value_shows_the_cli_error_in_the_browser(dream, repo, dream_home,
                                                              tmp_path, served,
                                                              page):
    key = _which(dream, tmp_path, {
        "op": "question.ask", "name": "which-dinner-with-jordan-time", "evidence": ["R1"],
        "fields": [{"name": "text", "value": "Seven or eight?"},
                   {"name": "ask", "value": "value"}, {"name": "about", "value": "R1"},
                   {"name": "field", "value": "time"},
                   {"name": "options", "value": '["19:00", "20:00"]'}]})
    commits = _log(dream_home)
    page.goto(served)
    page.click("#nav-questions")
    question = page.locator(f"section.question[data-key='{key}']")
    question.locator("input[name='typed']").fill("half past")
    question.locator("button.answer").click()
    assert "'half past' is not a time" in page.locator("#error").inner_text()
    assert _log(dream_home) == commits
    page.click("#back")
    question = page.locator(f"section.question[data-key='{key}']")
    question.locator("input[name='typed']").fill("8:15")
    question.locator("button.answer").click()
    assert "= '08:15'" in page.locator("#done").inner_text()
    assert records(dream_home, "events")["dinner-with-jordan"].get("time") == "08:15"


def test_pictures_in_the_browser(dream, repo, dream_home, tmp_path, served, page):
    from datetime import UTC, datetime, timedelta

    from test_scenarios import fields, script, stage

    soon = (datetime.now(UTC).date() + timedelta(days=4)).isoformat()
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    run_json(dream, "--no-sweep", "--model", script(tmp_path, "ev", {"ops": [
        {"op": "event.upsert", "name": "dinner", "evidence": ["E1"],
         "fields": fields(title="Dinner at Nobu", date=soon, time="19:00")}]}))
    dream("correct", "@user/events/dinner", "time", "20:00")
    page.goto(served)
    page.click("#nav-pictures")
    event = page.locator("#timeline g.event")
    assert event.count() == 1 and event.get_attribute("data-date") == soon
    assert f"{soon} 20:00" in event.text_content()
    churn = page.locator("#chart-churn g.churn")
    assert churn.count() == 2
    assert churn.last.get_attribute("data-changed") == "1"        # the correction
    assert page.locator("#chart-growth circle.point").count() == 2
    assert page.locator("#chart-cost rect.bar").count() == 2
    event.locator("circle").click()                                # to the record's page
    assert page.locator("#title").inner_text() == "Dinner at Nobu"
    assert page.locator("#field-time td.value").inner_text() == "20:00"
