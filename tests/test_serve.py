"""dream serve: the review web page, over real HTTP against a real home, store and database."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from dream.app import App
from dream.review.charts import nice_ceiling
from dream.review.web import ReviewServer, is_loopback


def seed_runs(app: App, count: int = 3) -> list[dict]:
    """Real commits in the notes home (one more note per run) and a runs row for each."""
    store = app.notes_store()
    runs = []
    statuses = ["ok", "partial", "priced", "failed", "ok"]
    for i in range(count):
        status = statuses[i % len(statuses)]
        sha = None
        if status in ("ok", "partial"):
            note = store.path / "notes" / f"dinner-{i}.md"
            note.parent.mkdir(parents=True, exist_ok=True)
            note.write_text(f"---\nkey: dinner-{i}\n---\nDinner with Jordan, week {i}.\n",
                            encoding="utf-8")
            (store.path / "brief.md").write_text(f"brief {i}\n", encoding="utf-8")
            sha = store.repo.commit_all(f"Dream run {i}", trailers={"Dream-Run": f"run-{i}"})
        run = {"id": f"20261130T12000{i}-a1b2c{i}", "status": status, "sha": sha,
               "cost": 0.0125 * (i + 1), "input": 1000 * (i + 1), "cached": 512 * i,
               "output": 90 + i}
        app.db.execute(
            "INSERT INTO runs(id, kind, mode, status, model, started_at, finished_at, items,"
            " bundles, calls, input_tokens, output_tokens, cached_tokens, cost_usd,"
            " duration_s, commit_sha, branch, error, details) VALUES (?, 'dream', 'ondemand',"
            " ?, 'openai:gpt-4o-mini', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run["id"], status, f"2026-11-30T12:00:0{i}Z", f"2026-11-30T12:00:0{i}Z",
             10 * (i + 1), i + 1, i + 2, run["input"], run["output"], run["cached"],
             run["cost"], 1.25 * (i + 1), sha, f"dream/run/{run['id']}" if sha else None,
             "<script>alert(1)</script> model failed" if status == "failed" else None,
             json.dumps({"commits": {store.id: sha} if sha else {},
                         "dropped": {"assistant_prose": i}})))
        runs.append(run)
    return runs


@pytest.fixture
def app(repo, dream) -> App:
    dream("init")
    app = App.from_env()
    yield app
    app.close()


@pytest.fixture
def server(app):
    srv = ReviewServer(app, "127.0.0.1", 0).start()
    yield srv
    srv.close()


def get(url: str, headers: dict | None = None) -> tuple[int, dict, str]:
    request = urllib.request.Request(url, headers=headers or {})

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, dict(err.headers), err.read().decode()


def test_runs_page_shows_figures_and_plots(app, server):
    runs = seed_runs(app, 3)
    status, headers, html = get(server.url)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "script-src" not in headers["Content-Security-Policy"]     # no scripts at all
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    for run in runs:
        assert f'data-run="{run["id"]}" data-status="{run["status"]}"' in html
        assert f'{run["input"]:,}' in html
    assert "$0.0125" in html and "$0.0375" in html and "3.8s" in html
    assert html.count('<rect class="bar"') == 3                       # cost per run
    assert html.count('<circle class="point"') == 2                   # runs that committed
    assert 'data-value="1"' in html and 'data-value="2"' in html      # 1 then 2 notes
    assert "<script>" not in html and "http://" not in html.split("<main>")[1].replace(
        'xmlns="http://www.w3.org/2000/svg"', "")                      # no network assets


def test_api_runs_counts_memory_documents(app, server):
    seed_runs(app, 5)
    status, _, body = get(server.url + "api/runs")
    assert status == 200
    runs = json.loads(body)["runs"]
    by_status = [(r["status"], r["memory_docs"]) for r in reversed(runs)]
    # ok 1 note, partial 2 notes, priced/failed no commit, ok 3 notes; brief.md not counted
    assert by_status == [("ok", 1), ("partial", 2), ("priced", None), ("failed", None),
                         ("ok", 3)]


def test_run_page_shows_the_diff_and_escapes_text(app, server):
    runs = seed_runs(app, 4)
    status, _, html = get(server.url + "runs/" + runs[1]["id"])
    assert status == 200
    assert "notes/dinner-1.md" in html
    assert '<span class="add">+Dinner with Jordan, week 1.</span>' in html
    assert "Dream-Run: run-1" in html
    assert "documents after this run: notes: 2" in html
    assert "assistant_prose" in html
    failed = get(server.url + "runs/" + runs[3]["id"])[2]
    assert "&lt;script&gt;alert(1)&lt;/script&gt; model failed" in failed
    assert "<script>" not in failed and 'id="no-changes"' in failed
    assert get(server.url + "runs/nope")[0] == 404
    assert get(server.url + "nothing-here")[0] == 404


def test_run_page_says_a_reverted_run_was_reverted(app, server, dream):
    runs = seed_runs(app, 1)
    assert 'id="run-decision">promoted<' in get(server.url + "runs/" + runs[0]["id"])[2]
    dream("revert", runs[0]["sha"])                 # by its commit: the run is marked too
    back = app.notes_store().repo.head()
    html = get(server.url + "runs/" + runs[0]["id"])[2]
    assert f'id="run-decision">reverted</span> by <code>{back[:12]}</code>' in html
    assert ">promoted<" not in html


def test_empty_home_shows_no_runs(server):
    status, _, html = get(server.url)
    assert status == 200 and 'id="no-runs"' in html and "no runs yet" in html


def test_foreign_host_header_is_refused(server):
    status, _, html = get(server.url, {"Host": "evil.example:8765"})
    assert status == 421 and "localhost" in html
    assert get(server.url, {"Host": "localhost:1"})[0] == 200


def test_only_decisions_are_posted(app, server):
    for method, path, code in (("POST", "", 404), ("PUT", "", 405),
                               ("POST", "runs/x/delete", 404)):
        request = urllib.request.Request(server.url + path, data=b"x", method=method)
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(request, timeout=10)
        assert err.value.code == code
        err.value.close()


def test_token_guards_every_request(app):
    seed_runs(app, 1)
    token = "s3cret-token-0123456789"
    srv = ReviewServer(app, "127.0.0.1", 0, token=token).start()
    try:
        assert get(srv.url)[0] == 401
        assert get(srv.url + "api/runs")[0] == 401
        assert get(srv.url, {"Authorization": "Bearer wrong-token-0123456789"})[0] == 401
        assert get(srv.url, {"Authorization": f"Bearer {token}"})[0] == 200
        status, headers, _ = get(srv.login_url)
        assert status == 303 and headers["Location"] == "/"
        assert headers["Set-Cookie"].startswith(f"dream_token={token};")
        assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
        assert headers["Referrer-Policy"] == "no-referrer"
        assert get(srv.url, {"Cookie": f"dream_token={token}"})[0] == 200
        # with a token, the Host check is not needed (the page may sit behind a name)
        assert get(srv.url, {"Host": "dream.lan", "Authorization": f"Bearer {token}"})[0] == 200
    finally:
        srv.close()


def test_bind_rules(app, dream):
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    result = dream("serve", "--host", "0.0.0.0", "--port", "0", ok=False)
    assert result.exit_code != 0
    assert "refusing to serve on 0.0.0.0 without a token" in result.output
    assert "Traceback" not in result.output
    result = dream("serve", "--host", "0.0.0.0", "--port", "0", "--token", "short", ok=False)
    assert result.exit_code != 0 and "too short" in result.output
    srv = ReviewServer(app, "0.0.0.0", 0, token="auto")
    try:
        assert len(srv.token) >= 16 and "?token=" in srv.login_url
    finally:
        srv.close()


def test_ipv6_loopback(app):
    seed_runs(app, 1)
    srv = ReviewServer(app, "::1", 0).start()
    try:
        assert srv.url.startswith("http://[::1]:")
        status, _, html = get(srv.url)
        assert status == 200 and 'class="run"' in html
    finally:
        srv.close()


def test_port_in_use_is_a_clear_error(app, server, dream):
    result = dream("serve", "--port", str(server.port), ok=False)
    assert result.exit_code != 0 and "choose another --port" in result.output


def test_nice_ceiling():
    assert [nice_ceiling(v) for v in (0, 0.013, 0.5, 3, 7, 99, 101)] == \
        [1.0, 0.02, 0.5, 5, 10, 100, 200]


def test_dream_serve_process_serves_and_stops_on_ctrl_c(app, repo: Path):
    seed_runs(app, 2)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "dream", "serve", "--port", "0"],
                            cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("Dream review page: http://127.0.0.1:")
        url = line.split()[3]
        status, _, html = get(url)
        assert status == 200 and html.count('class="run"') == 2
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "stopped." in out and "Traceback" not in err


# -- review proposals ----------------------------------------------------------------------
REVIEW_ID = "20261130T130000-rev001"


def seed_review(app: App) -> dict[str, str]:
    """A review run with three proposals stored through dream.review.proposals: a new note,
    an update of an existing (committed) note, and a code work item."""
    proposals = pytest.importorskip("dream.review.proposals")
    from dream.passes.notes import content_hash

    store = app.notes_store()
    key = app.project().key
    old = "---\nkind: directive\n---\nDeploy with make deploy.\n"
    note = store.path / "user" / "deploy.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text(old, encoding="utf-8")
    store.repo.commit_all("a note written by hand", trailers={"Dream-Run": "by-hand"})
    app.db.execute(
        "INSERT INTO runs(id, kind, mode, status, project_key, model, started_at, items, calls,"
        " details) VALUES (?, 'review', 'review', 'running', ?, 'rules', ?, 12, 0, ?)",
        (REVIEW_ID, key, "2026-11-30T13:00:00Z", json.dumps({"learned": ["a", "b", "c"]})))

    def add(slug, pass_name, kind, title, change, items):
        proposals.insert(app.db, proposals.Proposal(
            run_id=REVIEW_ID, slug=slug, pass_name=pass_name, kind=kind, title=title,
            size="S", risk="low", project_key=key,
            evidence=[f"session:s-{i}" for i in items], items=items, change=change,
            fingerprint=proposals.fingerprint(pass_name, slug, items),
            created_at="2026-11-30T13:00:01Z"))

    add("memory-prefer-tabs", "memory", "memory", "Remember: I prefer tabs",
        {"type": "note", "op": "create", "address": "@user/prefs-tabs.md",
         "path": "user/prefs-tabs.md", "content": "---\nkind: preference\n---\nTabs.\n",
         "base": None, "replaces": [], "scope_root": None}, ["it-1"])
    new = "---\nkind: directive\n---\nDeploy with make deploy ENV=prod, never by hand.\n"
    add("memory-update-deploy", "corrections", "memory", "Correct: deploy with ENV=prod",
        {"type": "note", "op": "update", "address": "@user/deploy.md", "path": "user/deploy.md",
         "content": new, "base": content_hash(old.encode()), "replaces": [],
         "scope_root": None}, ["it-2", "it-3"])
    add("failures-pytest-timeout", "failures", "code", "Raise the pytest timeout for slow IO",
        {"type": "work_item", "text": "pytest timed out 3 times in tests/test_io.py"}, ["it-4"])
    return {"old": old, "new": new}


def csrf_of(html: str) -> str:
    return html.split('name="csrf" value="', 1)[1].split('"', 1)[0]


def post(url: str, fields: dict[str, str]) -> tuple[int, dict, str]:
    from urllib.parse import urlencode

    request = urllib.request.Request(url, data=urlencode(fields).encode(), method="POST")

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, dict(err.headers), err.read().decode()


def test_review_run_shows_proposals_with_evidence_and_diffs(app, server):
    seed_review(app)
    status, _, html = get(server.url + "runs/" + REVIEW_ID)
    assert status == 200
    assert html.count('class="proposal"') == 3
    assert '<code>session:s-it-2</code>' in html and '<code>session:s-it-3</code>' in html
    assert '<span class="del">-Deploy with make deploy.</span>' in html
    assert '<span class="add">+Deploy with make deploy ENV=prod, never by hand.</span>' in html
    assert '<span class="add">+Tabs.</span>' in html
    assert "pytest timed out 3 times" in html
    assert html.count('class="accept"') == 3 and html.count('class="reject"') == 3


def test_accept_and_reject_do_what_the_cli_does(app, server, repo):
    texts = seed_review(app)
    store = app.notes_store()
    page = get(server.url + "runs/" + REVIEW_ID)[2]
    token = csrf_of(page)
    base = server.url + "runs/" + REVIEW_ID

    assert post(base + "/accept", {"slug": "memory-update-deploy"})[0] == 403   # no csrf
    status, headers, _ = post(base + "/accept", {"slug": "memory-update-deploy", "csrf": token})
    assert status == 303 and headers["Location"].startswith(f"/runs/{REVIEW_ID}?done=")
    status, _, _ = post(base + "/reject", {"slug": "failures-pytest-timeout", "csrf": token,
                                           "why": "the timeout is right"})
    assert status == 303

    # the store: one promotion commit with the review's trailers, the new content on disk
    assert (store.path / "user" / "deploy.md").read_text(encoding="utf-8") == texts["new"]
    message = store.repo.git("log", "-1", "--format=%B")
    assert f"Dream-Run: {REVIEW_ID}" in message and "Dream-Pass: review:corrections" in message
    assert "Dream-Evidence: it-2" in message and "Dream-Evidence: it-3" in message
    assert store.repo.git("status", "--porcelain") == ""
    rows = dict(app.db.execute("SELECT slug, status FROM review_proposals").fetchall())
    assert rows == {"memory-prefer-tabs": "proposed", "memory-update-deploy": "accepted",
                    "failures-pytest-timeout": "rejected"}
    why = app.db.execute("SELECT why FROM review_rejections").fetchone()[0]
    assert why == "the timeout is right"

    page = get(server.url + "runs/" + REVIEW_ID + "?done=accepted+x")[2]
    assert page.count('class="accept"') == 1                         # only the open one
    assert 'data-slug="memory-update-deploy" data-status="accepted"' in page
    assert "why: the timeout is right" in page
    # deciding twice is refused with the CLI's own sentence, and nothing changes
    status, _, html = post(base + "/accept", {"slug": "failures-pytest-timeout", "csrf": token})
    assert status == 409 and "was rejected in review" in html and 'id="back"' in html
    assert "Dream-Pass: review:corrections" in store.repo.git("log", "-1", "--format=%B")


# -- dream runs left for review (--apply review) ----------------------------------------------
def left_for_review(dream, tmp_path: Path) -> dict:
    """A real 'dream run --apply review' over a staged scenario: a run branch, not promoted."""
    from test_scenarios import run_json, stage

    stage(tmp_path, "dinner_three_streams.jsonl")
    out = run_json(dream, "--model", "rules", "--apply", "review")
    assert out["status"] == "ok" and out["branch"] == f"dream/run/{out['id']}"
    return out


def details_of(app: App, run_id: str) -> dict:
    return json.loads(app.db.execute("SELECT details FROM runs WHERE id = ?",
                                     (run_id,)).fetchone()[0])


EVENT = "user/events/dinner-nobu-2026-03-13.md"


def test_a_run_left_for_review_is_promoted_from_the_page(app, server, dream, tmp_path):
    out = left_for_review(dream, tmp_path)
    store = app.notes_store()
    head = store.repo.head()
    url = server.url + "runs/" + out["id"]
    page = get(url)[2]
    assert 'id="decision" data-decision="waiting"' in page
    assert page.count('class="promote"') == 1 and page.count('class="discard"') == 1
    assert f'action="/runs/{out["id"]}/promote"' in page
    assert "awaits review" in get(server.url)[2]

    # without the page's CSRF token nothing happens
    assert post(url + "/promote", {})[0] == 403
    assert post(url + "/discard", {"csrf": "forged"})[0] == 403
    assert store.repo.head() == head and "decision" not in details_of(app, out["id"])

    status, headers, _ = post(url + "/promote", {"csrf": csrf_of(page)})
    assert status == 303 and headers["Location"].startswith(f"/runs/{out['id']}?done=")
    # the store: fast-forwarded to the run's commit, as 'dream runs promote' does
    assert store.repo.head() == out["commit"]
    assert (store.path / EVENT).exists()
    assert store.repo.git("status", "--porcelain") == ""
    details = details_of(app, out["id"])
    assert details["decision"] == "promoted"
    assert details["promoted_heads"] == {store.id: out["commit"]}

    page = get(server.url + headers["Location"].lstrip("/"))[2]
    assert f"run {out['id']} promoted: the store is now at {out['commit'][:12]}" in page
    assert 'data-decision="promoted"' in page and 'class="promote"' not in page
    assert f"<code>{out['commit'][:12]}</code>" in page
    # deciding twice (say from a tab opened before) is refused with the CLI's own sentence
    status, _, html = post(url + "/discard", {"csrf": server.csrf})
    assert status == 409 and "already promoted" in html and 'id="back"' in html
    assert details_of(app, out["id"])["decision"] == "promoted"


def test_a_run_left_for_review_is_discarded_from_the_page(app, server, dream, tmp_path):
    out = left_for_review(dream, tmp_path)
    store = app.notes_store()
    head = store.repo.head()
    url = server.url + "runs/" + out["id"]
    status, headers, _ = post(url + "/discard", {"csrf": csrf_of(get(url)[2])})
    assert status == 303
    assert store.repo.head() == head and not (store.path / EVENT).exists()
    assert store.repo.git("rev-parse", out["branch"]).strip() == out["commit"]
    assert details_of(app, out["id"])["decision"] == "discarded"
    page = get(server.url + headers["Location"].lstrip("/"))[2]
    assert f"run {out['id']} discarded; its branch {out['branch']} stays in git" in page
    assert 'data-decision="discarded"' in page and 'class="discard"' not in page
    assert "discarded" in json.loads(dream("runs", "show", out["id"], "--json").output)[
        "details"]["decision"]


def test_a_conflicting_promotion_shows_the_error_and_changes_nothing(app, server, dream,
                                                                    tmp_path):
    out = left_for_review(dream, tmp_path)
    store = app.notes_store()
    mine = store.path / EVENT                         # the store moved: a hand-written version
    mine.parent.mkdir(parents=True)
    mine.write_text("---\ntitle: my own version\n---\nwritten by hand\n", encoding="utf-8")
    head = store.repo.commit_all("hand edit")
    url = server.url + "runs/" + out["id"]
    status, _, html = post(url + "/promote", {"csrf": csrf_of(get(url)[2])})
    assert status == 409 and "newer content is never overwritten" in html
    assert f'href="/runs/{out["id"]}" id="back"' in html
    assert store.repo.head() == head and store.repo.git("status", "--porcelain") == ""
    assert mine.read_text(encoding="utf-8").endswith("written by hand\n")
    assert not list(store.path.glob(".dream.lock.*"))
    assert "decision" not in details_of(app, out["id"])
    assert 'data-decision="waiting"' in get(url)[2]  # still waiting: discard or dream again


def test_only_runs_left_for_review_offer_promote(app, server):
    runs = seed_runs(app, 1)
    page = get(server.url + "runs/" + runs[0]["id"])[2]
    assert 'id="decision"' not in page and 'class="promote"' not in page
    status, _, html = post(server.url + "runs/" + runs[0]["id"] + "/promote",
                           {"csrf": server.csrf})      # no form here: the server's own token
    assert status == 409 and "not waiting for review" in html


def test_an_open_review_reads_open_not_running(app, server):
    """A review waiting for decisions (its run row 'running') is shown as open on the runs
    page and on its own page."""
    seed_review(app)
    front = get(server.url)[2]
    row = front.split(f'<tr class="run" data-run="{REVIEW_ID}"', 1)[1].split("</tr>", 1)[0]
    assert '<span class="status running">open</span>' in row
    page = get(server.url + "runs/" + REVIEW_ID)[2]
    assert '<dt>status</dt><dd><span class="status running">open</span></dd>' in page


def test_a_post_with_a_bad_content_length_is_answered_400(app, server, capfd):
    """'Content-Length: abc' (or '-5') raised ValueError inside the handler: a traceback in
    the terminal running 'dream serve' and a connection closed without an answer."""
    import socket
    from urllib.parse import urlsplit

    where = urlsplit(server.url)
    for length in (b"abc", b"-5"):
        with socket.create_connection((where.hostname, where.port), timeout=10) as sock:
            sock.sendall(b"POST /questions HTTP/1.1\r\nHost: " + where.netloc.encode()
                         + b"\r\nContent-Length: " + length + b"\r\n\r\nanswer=yes")
            reply = b""
            while chunk := sock.recv(4096):          # headers and body may come apart
                reply += chunk
        assert reply.startswith(b"HTTP/1.0 400") and b"bad Content-Length" in reply
    assert "Traceback" not in capfd.readouterr().err
    assert get(server.url)[0] == 200                 # the server still answers
