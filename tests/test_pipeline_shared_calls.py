"""One run, one set of calls across its scopes (a provider billed per call): two real
projects dreamed in one run share one prefix, one propose call and at most one sweep call;
evidence routes every op to its own project's store, and an op that mixes the projects is
dropped (``cross_scope``). Real git, real SQLite, the real ``openai`` provider against a
real local HTTP server (tests/fake_servers.py)."""

from __future__ import annotations

import json
from pathlib import Path

from fake_servers import FakeOpenAIServer
from test_scenarios import fields, run_json, stage

from dream.kinds.records import Record


def transcript(path: Path, cwd: str, session: str, day: str, texts: list[str]) -> Path:
    """A real-format Claude Code session in ``cwd``: the user's statements, in order."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for n, text in enumerate(texts):
            fh.write(json.dumps({
                "type": "user", "message": {"role": "user", "content": text},
                "uuid": f"{session}-u{n}", "sessionId": session, "cwd": cwd,
                "timestamp": f"{day}T10:0{n}:00.000Z"}) + "\n")
    return path


def note(name: str, text: str, *evidence: str, row: str | None = None) -> dict:
    return {"op": "note.add", "name": name, "row": row, "evidence": list(evidence),
            "fields": fields(text=text, type="directive")}


def project_records(home: Path, project: str, folder: str) -> dict[str, Record]:
    found = {}
    for path in home.rglob(f"projects/{project}/{folder}/*.md"):
        if ".git" not in path.parts:
            rec = Record.loads(path.read_text(encoding="utf-8"))
            found[rec.key] = rec
    return found


def all_text(home: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in home.rglob("*.md")
                     if ".git" not in p.parts)


def test_two_projects_share_calls_and_evidence_routes_each_op(make_repo, monkeypatch, dream,
                                                              dream_home, tmp_path):
    webapp, api = make_repo("webapp"), make_repo("api")
    for repo in (webapp, api):
        monkeypatch.chdir(repo)
        dream("init")
    inbox = tmp_path / "inbox"
    dream("collect", str(transcript(inbox / "w1.jsonl", str(webapp), "w1", "2026-11-20", [
        "Always run the tests with tox -e py311 before committing.",
        "Never push to main directly; we use pull requests here."])))
    dream("collect", str(transcript(inbox / "a1.jsonl", str(api), "a1", "2026-11-20", [
        "The api deploys with make deploy from the ops folder.",
        "Never push to main directly; we use pull requests here."])))
    run = ("--project", "webapp", "--project", "api", "--model", "openai:gpt-4o-mini")
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        # the dry run prices what the run sends: one shared propose call, at most a sweep
        dry = run_json(dream, *run, "--dry-run")
        assert dry["status"] == "priced" and dry["calls"] == 2 and server.count() == 0
        server.enqueue(server.answer({"ops": [
            note("tox before commit", "Run tox -e py311 before committing", "E1"),
            note("webapp pull requests", "Never push to main directly; use pull requests",
                 "E2"),
            note("api deploy", "The api deploys with make deploy from the ops folder", "E3"),
            note("api pull requests", "Never push the api to main directly; use pull requests",
                 "E4"),
            # mixes the two projects' evidence: neither store may get it
            note("shared review habit", "Both codebases merge through reviewed changes",
                 "E2", "E4"),
            # cites the api's items but carries a name only the webapp's items said
            note("api tests", "Run tox -e py311 before deploying", "E3")]}))
        first = run_json(dream, *run)
        assert server.count() == 1                   # one propose call, nothing to sweep
        (propose,) = server.requests
        night_one = (set(project_records(dream_home, "webapp", "notes")),
                     set(project_records(dream_home, "api", "notes")))
        system = propose.body["messages"][0]["content"]
        user = propose.body["messages"][-1]["content"]

        # night two: each project says something new; the api's words touch its deploy
        # note, so that row is in the prefix; the webapp's touch none of its rows
        dream("collect", str(transcript(inbox / "w2.jsonl", str(webapp), "w2", "2026-11-21",
                                        ["Remember the staging host is called kiwi."])))
        dream("collect", str(transcript(inbox / "a2.jsonl", str(api), "a2", "2026-11-21", [
            "Deploys go from the ops folder with make deploy, never by hand."])))
        server.enqueue(
            server.answer({"ops": [
                # the api's row with the webapp's evidence: dropped, never written
                note("", "Staging host kiwi serves the deploys", "E1", row="R1"),
                # a partner of an older note the call was not shown: the sweep compares
                note("kiwi pull request previews",
                     "Pull request previews deploy to the staging host kiwi", "E1"),
                note("api deploys not by hand",
                     "Never deploy the api by hand; pull requests trigger the deploy", "E2")]}),
            server.answer({"ops": [
                {"op": "question.ask", "name": "", "row": None, "evidence": ["R2", "R5"],
                 "fields": fields(text="Same rule?", about="R2, R5")},
                {"op": "question.ask", "name": "", "row": None, "evidence": ["R4", "R5"],
                 "fields": fields(text="Is the hand-deploy rule the pull-request rule?",
                                  about="R4, R5")}]}))
        second = run_json(dream, *run)
        assert server.count() == 3
        prefix2 = server.requests[1].body["messages"][0]["content"]
        sweep = server.requests[2].body["messages"]

    # night one: one prefix with both projects' (empty) state under their headings, one
    # call with each project's items under its heading
    assert first["status"] == "ok" and first["calls"] == 1
    assert "SCOPE projects/webapp: CURRENT STATE" in system
    assert "SCOPE projects/api: CURRENT STATE" in system
    assert user.index("SCOPE projects/webapp:") < user.index("E1 ") < user.index("E2 ") \
        < user.index("SCOPE projects/api:") < user.index("E3 ")
    assert first["details"]["dropped"] == {"cross_scope": 2}
    assert night_one == ({"tox-before-commit", "webapp-pull-requests"},
                         {"api-deploy", "api-pull-requests"})

    # night two: the api's deploy note is shown under its heading; the op that aimed the
    # webapp's evidence at it is dropped; ONE sweep call holds both projects' candidates
    assert second["status"] == "ok" and second["calls"] == 2
    api_part = prefix2.split("SCOPE projects/api:", 1)[1]
    assert "R1 note api-deploy" in api_part
    assert sweep[0] == server.requests[1].body["messages"][0]      # the same prefix
    body = sweep[-1]["content"]
    assert body.startswith("TASK SWEEP")
    webapp_part, api_sweep = body.split("SCOPE projects/api:", 1)
    assert "SCOPE projects/webapp:" in webapp_part and "webapp-pull-requests" in webapp_part
    # the api's new rule was judged beside its deploy note (R1) by the call that wrote it:
    # only the older pull-request note, which that call was not shown, is compared
    assert "api-pull-requests" in api_sweep and "R1" not in api_sweep
    assert second["details"]["dropped"] == {"cross_scope": 2}
    assert second["details"]["scopes"]["projects/webapp"]["sweep"] == "called"
    assert second["details"]["scopes"]["projects/api"]["sweep"] == "called"
    assert project_records(dream_home, "webapp", "questions") == {}
    (question,) = project_records(dream_home, "api", "questions").values()
    assert question.get("about") == ("notes/api-deploys-not-by-hand.md, "
                                     "notes/api-pull-requests.md")
    assert "reviewed changes" not in all_text(dream_home)
    assert "deploying" not in all_text(dream_home)
    assert "kiwi" not in "".join(r.dumps() for r in
                                 project_records(dream_home, "api", "notes").values())


def test_rows_one_answer_wrote_together_need_no_sweep_others_do(dream, repo, dream_home,
                                                                 tmp_path, monkeypatch):
    """A billed run sweeps only what a propose call could not see: two look-alike notes one
    answer wrote were judged together; the same two from two calls are swept."""
    dream("init")
    big = " ".join(f"word{n}" for n in range(400))       # each bundle over 500 tokens
    stage(tmp_path, "two_threads.jsonl", [
        {"id": "a1", "time": "2026-03-09T08:00:00Z", "stream": "sms-kim", "author": "Kim",
         "role": "other", "to": ["me"], "text": "About the weekend. " + big},
        {"id": "b1", "time": "2026-03-12T20:00:00Z", "stream": "mail-lee", "author": "Lee",
         "role": "other", "to": ["me"], "text": "Re: the offsite. " + big}])
    with FakeOpenAIServer() as server:      # one call writes two look-alikes
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        server.enqueue(server.answer({"ops": [
            note("nobu groups", "Nobu takes group bookings for six people", "E1"),
            note("nobu booked", "The table at Nobu is booked for six people", "E2")]}))
        together = run_json(dream, "--model", "openai:gpt-4o-mini")
        assert server.count() == 1 and together["calls"] == 1
    assert together["details"]["scopes"]["user"]["sweep"] == "nothing to sweep"

    # the same items again, each bundle in a call of its own: each answer writes one of
    # two look-alikes, which no call saw together, so the sweep compares them
    one = note("nobu group bookings", "Nobu takes bookings for groups of six", "E1")
    two = note("nobu table", "The table at Nobu is booked for six", "E1")
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        server.enqueue(server.answer({"ops": [one]}), server.answer({"ops": [two]}),
                       server.answer({"ops": []}))
        apart = run_json(dream, "--model", "openai:gpt-4o-mini", "--pack-tokens", "500",
                         "--redo")
        assert server.count() == 3 and apart["calls"] == 3     # two calls, then a sweep
        body = server.requests[2].body["messages"][-1]["content"]
        assert body.startswith("TASK SWEEP") and "nobu-group-bookings" in body \
            and "nobu-table" in body and "SCOPE" not in body   # one scope: no headings
    assert apart["details"]["scopes"]["user"]["sweep"] == "called"
