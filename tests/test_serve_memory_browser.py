"""The memory pages of a real 'dream serve' process in headless Chromium (Playwright, Debian's
chromium): from the front page to a record in two clicks, its evidence followed to the
session it was said in, the brief's links, a list's pages, and one search to a record."""

from __future__ import annotations

import re

import pytest
from test_serve_browser import page, served  # noqa: F401  (fixtures)
from test_serve_memory import DINNER, build_memory

from dream.app import App


@pytest.fixture
def app(repo, dream, tmp_path):
    build_memory(dream, tmp_path)
    app = App.from_env()
    yield app
    app.close()


def test_two_clicks_to_a_record_and_its_evidence_to_the_session(app, served, page):  # noqa: F811
    store = app.notes_store().id
    page.goto(served)
    assert page.locator("#scopes tr.scope").count() == 2
    # click 1: the personal scope's past events; click 2: the dinner
    page.locator(f'tr.scope[data-root="user"] a[href="/memory/{store}?scope=user&list=past"]'
                 ).click()
    assert page.locator("#list").get_attribute("data-list") == "past"
    page.locator(f'li.record[data-path="{DINNER}"] a').click()
    assert page.locator("#title").inner_text() == "Dinner at Nobu"
    date = page.locator("#field-date")
    assert date.locator("td.value").inner_text() == "2026-03-13"
    said = date.locator("blockquote.said", has_text="reservation at Nobu is confirmed")
    assert "Nobu Reservations" in said.locator("footer").inner_text()
    # the field's evidence, followed to the place in its session where it was said
    said.locator("a.session").click()
    assert re.search(r"/sessions/mail-nobu#item-1$", page.url)
    assert page.locator("#stream").inner_text() == "mail-nobu"
    target = page.locator(".item:target")
    assert target.count() == 1 and "party of 2 under Jordan" in target.inner_text()
    # the target item is highlighted by CSS alone (no script on any page)
    assert target.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 243, 205)"


def test_brief_history_and_people_pages(app, served, page):  # noqa: F811
    store = app.notes_store().id
    page.goto(served)
    page.locator('#nav-memory').click()
    page.locator('tr.scope[data-root="user"] td.l a').click()
    brief = page.locator("#brief")
    assert brief.inner_text().startswith("# Brief: user")
    brief.locator("a.ref", has_text="standing.md#allergies").click()
    assert page.url.endswith(f"/memory/{store}/user/standing.md#field-allergies")
    assert page.locator("#field-allergies td.value").inner_text() == "peanuts"
    page.go_back()
    page.locator('nav.kinds a[data-list="people"]').click()
    page.locator("li.record a", has_text="Jordan").click()
    assert page.locator("#fields tr.field").count() >= 1
    assert page.locator("section.version").count() >= 1
    # the corrected dinner shows two versions, the newest written by the correction
    page.goto(served.split("?")[0] + f"memory/{store}/{DINNER}")
    versions = page.locator("section.version")
    assert versions.count() == 2
    assert "Nobu Mayfair" in versions.first.locator("li[data-field=place]").inner_text()


def test_one_search_from_the_front_page_reaches_a_record(app, served, page):  # noqa: F811
    page.goto(served)
    box = page.locator("#nav-search input[name=q]")
    box.fill("passport")
    box.press("Enter")
    hit = page.locator("div.hit.memory a").first
    assert "passport" in hit.inner_text().lower()
    hit.click()
    assert page.locator("#title").inner_text().lower().startswith("renew my passport")
    assert page.locator("#field-title blockquote.said").count() >= 1
    # history search: a hit links into its session
    page.goto(served.split("?")[0] + "search?q=invoice&in=history")
    page.locator("div.hit.history a.session").first.click()
    assert page.locator(".item:target").count() == 1
    assert "invoice" in page.locator(".item:target").inner_text()
