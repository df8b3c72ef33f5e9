"""dream serve end to end in headless Chromium (Debian's chromium, driven by Playwright):
open the page, read the runs and their plots, open a review, accept one proposal, reject
one, and check the store and the database; promote a dream run left for review and check the
store's git and the runs table."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys

import pytest
from conftest import REPO_ROOT
from test_serve import EVENT, REVIEW_ID, left_for_review, seed_review, seed_runs

from dream.app import App

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# On a developer's machine without them the browser tests skip; in CI (CI=true, where
# scripts/test installs both) a missing browser is a failure, never a silent skip.
if os.environ.get("CI"):
    import playwright.sync_api as sync_api
    assert os.path.exists(CHROMIUM), "CI must install Debian's chromium (see scripts/test)"
else:
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="pip install playwright (the test extra)")
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)",
                    allow_module_level=True)


@pytest.fixture
def app(repo, dream):
    dream("init")
    app = App.from_env()
    yield app
    app.close()


@pytest.fixture
def served(app, repo):
    """A real 'dream serve' process with a token, as a user would start it."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "dream", "serve", "--port", "0",
                             "--token", "browser-test-token-123456"], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("Dream review page: "), proc.stderr.read() if proc.poll() else line
    yield line.split()[3]
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=10)


@pytest.fixture
def page():
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            context = browser.new_context()
            yield context.new_page()
        finally:
            browser.close()


def test_review_in_the_browser(app, served, page):
    seed_runs(app, 3)
    seed_review(app)
    store = app.notes_store()

    page.goto(served)                                   # ?token= -> cookie -> clean URL
    assert "token=" not in page.url
    assert page.locator("tr.run").count() == 4          # three dream runs and the review
    assert page.locator("#chart-cost rect.bar").count() == 4
    assert page.locator("#chart-memory circle.point").count() == 2
    assert page.locator("#chart-memory circle.point").last.get_attribute("data-value") == "2"

    page.click(f"a[href='/runs/{REVIEW_ID}']")
    assert page.locator("#run-id").inner_text() == REVIEW_ID
    assert page.locator("section.proposal").count() == 3
    update = page.locator("section.proposal[data-slug='memory-update-deploy']")
    assert "+Deploy with make deploy ENV=prod, never by hand." in update.locator(
        "pre.diff").inner_text()
    assert "session:s-it-2" in update.locator("ul.evidence").inner_text()

    update.locator("button.accept").click()
    assert page.locator("#done").inner_text() == "accepted memory-update-deploy"
    work = page.locator("section.proposal[data-slug='failures-pytest-timeout']")
    work.locator("input[name='why']").fill("the timeout is right")
    work.locator("button.reject").click()
    assert page.locator("#done").inner_text() == "rejected failures-pytest-timeout"
    assert page.locator("section.proposal[data-status='accepted']").count() == 1
    assert page.locator("section.proposal[data-status='rejected']").count() == 1
    assert page.locator("button.accept").count() == 1   # only the undecided proposal

    # the store and the database say the same as the page
    text = (store.path / "user" / "deploy.md").read_text(encoding="utf-8")
    assert "ENV=prod" in text
    log = store.repo.git("log", "-1", "--format=%B")
    assert f"Dream-Run: {REVIEW_ID}" in log and "Dream-Evidence: it-3" in log
    assert not (store.path / "user" / "prefs-tabs.md").exists()
    app.db.execute("SELECT 1").fetchone()
    statuses = dict(app.db.execute("SELECT slug, status FROM review_proposals").fetchall())
    assert statuses == {"memory-prefer-tabs": "proposed", "memory-update-deploy": "accepted",
                        "failures-pytest-timeout": "rejected"}

    page.goto(served.split("?")[0])                     # the cookie keeps the session
    assert page.locator("tr.run").count() == 4


def test_promote_a_run_left_for_review_in_the_browser(app, served, page, dream, tmp_path):
    out = left_for_review(dream, tmp_path)
    store = app.notes_store()
    before = store.repo.head()
    assert before != out["commit"]

    page.goto(served)
    row = page.locator(f"tr.run[data-run='{out['id']}']")
    assert "awaits review" in row.inner_text()
    row.locator("a").click()
    assert page.locator("#run-id").inner_text() == out["id"]
    assert page.locator("#decision").get_attribute("data-decision") == "waiting"
    assert EVENT in page.locator("section.store-diff ul.files").inner_text()

    page.locator("#decision button.promote").click()
    assert page.locator("#done").inner_text() == \
        f"run {out['id']} promoted: the store is now at {out['commit'][:12]}"
    assert page.locator("#decision").get_attribute("data-decision") == "promoted"
    assert page.locator("#decision-value").inner_text() == "promoted"
    assert page.locator("button.promote").count() == 0
    assert page.locator("button.discard").count() == 0

    # the store's git and the runs table say the same as the page
    assert store.repo.head() == out["commit"]
    assert store.repo.git("merge-base", "--is-ancestor", before, "HEAD", check=False) == ""
    assert (store.path / EVENT).exists() and store.repo.git("status", "--porcelain") == ""
    assert "Dream-Run: " + out["id"] in store.repo.git("log", "-1", "--format=%B")
    details = json.loads(app.db.execute("SELECT details FROM runs WHERE id = ?",
                                        (out["id"],)).fetchone()[0])
    assert details["decision"] == "promoted" and details["promoted_heads"] == {
        store.id: out["commit"]}

    page.goto(served.split("?")[0])
    assert "promoted" in page.locator(f"tr.run[data-run='{out['id']}']").inner_text()
