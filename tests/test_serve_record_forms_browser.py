"""Steering from a record's page of a real ``dream serve`` in headless Chromium: correct a
field, crumple a memory note and a plain note, and answer a question where it is shown;
the store, ``git log`` and the page checked after each."""

from __future__ import annotations

import pytest
import test_serve_browser as browser
from conftest import git
from test_scenarios import records
from test_serve_memory import DINNER, build_memory

from dream.app import App

page, served = browser.page, browser.served       # its fixtures
QUESTION = "same-preference-aisle-seats-long-flights-preference-window-seats"


@pytest.fixture
def app(repo, dream, tmp_path):
    build_memory(dream, tmp_path)
    app = App.from_env()
    yield app
    app.close()


def _open_list(page, served, name: str) -> None:
    page.goto(served)
    page.locator("#nav-memory").click()
    page.locator('tr.scope[data-root="user"] td.l a').first.click()
    page.locator(f'nav.kinds a[data-list="{name}"]').click()


def _subject_and_body(home) -> str:
    return git(home / "notes", "log", "-1", "--format=%s%n%b")


def test_correct_a_field_on_the_record_page(app, served, page, dream_home):
    store = app.notes_store()
    _open_list(page, served, "past")
    page.locator(f'li.record[data-path="{DINNER}"] a').click()
    steer = page.locator("#steer")
    head = store.repo.head()

    steer.locator("select[name=field]").select_option("date")     # a bad value first
    steer.locator("input[name=value]").fill("next Friday")
    steer.locator("button.correct").click()
    assert "is not a date" in page.locator("#error").inner_text()
    assert store.repo.head() == head                                # nothing changed
    page.locator("#back").click()

    steer = page.locator("#steer")
    steer.locator("select[name=field]").select_option("time")
    steer.locator("input[name=value]").fill("20:15")
    steer.locator("button.correct").click()
    assert page.locator("#done").inner_text().startswith(
        f"corrected @{DINNER} time = '20:15' (evidence correct-")
    assert page.locator("#field-time td.value").inner_text() == "20:15"
    assert page.url.endswith("#steer") and "/memory/" in page.url

    assert git(store.path, "rev-list", "--count", f"{head}..HEAD") == "1"   # one commit
    log = _subject_and_body(dream_home)
    assert "Dream-Pass: correct" in log and "Dream-Evidence: correct-" in log
    dinner = records(dream_home, "events")["dinner-nobu-2026-03-13"]
    assert dinner.get("time") == "20:15" and dinner.fields["time"].pass_ == "correct"


def test_crumple_a_memory_note_and_a_plain_note_on_their_pages(app, served, page,
                                                              dream_home):
    store = app.notes_store()
    note = "user/notes/preference-window-seats-flights.md"
    _open_list(page, served, "notes")
    page.locator(f'li.record[data-path="{note}"] a').click()
    head = store.repo.head()
    page.locator("#steer button.crumple").click()
    assert page.locator("#done").inner_text().startswith(f"crumpled @{note} -> ")
    assert page.locator("#steer button.crumple").count() == 0       # crumpled: no button
    assert page.locator("#field-status td.value").inner_text() == "crumpled"
    assert git(store.path, "rev-list", "--count", f"{head}..HEAD") == "1"
    assert "Dream-Pass: correct" in _subject_and_body(dream_home)
    assert records(dream_home, "notes")["preference-window-seats-flights"].get(
        "status") == "crumpled"
    assert f"[{note.removeprefix('user/')}]" not in (store.path / "user" / "brief.md"
                                                    ).read_text()   # gone from the brief

    page.goto(served.split("?")[0] + f"memory/{store.id}/user/hostile.md")
    assert page.locator("#steer select[name=field]").count() == 0   # a plain note: no fields
    page.locator("#steer button.crumple").click()
    assert page.locator("#done").inner_text().startswith("crumpled @user/hostile.md -> ")
    assert "status: crumpled" in (store.path / "user" / "hostile.md").read_text()
    assert _subject_and_body(dream_home).startswith("Crumple note @user/hostile.md")


def test_answer_a_question_on_its_record_page(app, served, page, dream_home):
    store = app.notes_store()
    _open_list(page, served, "questions")
    page.locator(f'li.record[data-path="user/questions/{QUESTION}.md"] a').click()
    head = store.repo.head()
    page.locator("#answer button.yes").click()
    assert page.locator("#done").inner_text().startswith(
        f"answered @user/questions/{QUESTION}.md = 'yes'")
    assert page.locator("#answer").count() == 0                     # answered: no form
    assert page.locator("#field-answer td.value").inner_text() == "yes"
    assert git(store.path, "rev-list", "--count", f"{head}..HEAD") == "1"
    assert "Dream-Pass: answer" in _subject_and_body(dream_home)
    notes = records(dream_home, "notes")
    assert notes["preference-aisle-seats-long-flights"].get("status") == "crumpled"
    assert notes["preference-window-seats-flights"].get("status") == "live"   # the newer
