"""Answering questions (``dream questions``, ``dream questions answer``, MCP
``questions_list`` / ``questions_answer``): an answer is evidence said now, settles the
records it is about and closes the question in one commit, and the next run respects it."""

from __future__ import annotations

import json

import anyio
from conftest import git
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from test_mcp import call, ok, server_params
from test_scenarios import fields, records, run_json, script, stage

SAME_KEY = "same-dinner-with-jordan-jordan-birthday-dinner"
# another dinner a week later: the sweep is called only for a changed row with a partner (a
# shared word), and its rows are numbered in the order the run changed them (R1, then R2)
PARTNER = {"op": "event.upsert", "name": "dinner with sam", "evidence": ["E2"],
           "fields": [{"name": "title", "value": "Dinner with Sam"},
                      {"name": "date", "value": "2026-03-20"}]}
WHICH = {"op": "question.ask", "name": "which-dinner-with-jordan-time", "evidence": ["R1"],
         "fields": fields(text="Seven or eight?", ask="value", about="R1", field="time",
                          options='["19:00", "20:00"]')}


def _lookalikes(tmp_path, name: str, *extra_ops: dict) -> str:
    """Two look-alike dinners (and any extra ops) proposed; the merge question unanswered."""
    return script(tmp_path, name, {"ops": [
        {"op": "event.upsert", "name": "dinner with jordan", "evidence": ["E1"],
         "fields": fields(title="Dinner with Jordan", activity="dinner", date="2026-03-13",
                          participants="Jordan", status="proposed")},
        {"op": "event.upsert", "name": "jordan birthday dinner", "evidence": ["E2"],
         "fields": fields(title="Birthday dinner", activity="dinner", date="2026-03-13",
                          participants="Jordan", place="Nobu")}]})


def _later(tmp_path, name: str) -> str:
    """A later run hearing older news about both dinners again (said before the answer)."""
    stage(tmp_path, f"{name}-more", [{"id": f"{name}-1", "time": "2026-03-11T09:00:00Z",
                                      "stream": "sms-jordan", "role": "other",
                                      "author": "Jordan", "text": "Still on for Friday?"}])
    return script(tmp_path, name, {"ops": [
        {"op": "event.upsert", "name": "jordan birthday dinner", "evidence": ["E1"],
         "fields": fields(title="Birthday dinner", status="confirmed")},
        {"op": "event.upsert", "name": "dinner with jordan", "evidence": ["E1"],
         "fields": fields(time="18:30")}]})


def _asked(dream, dream_home, tmp_path) -> None:
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    run_json(dream, "--model", _lookalikes(tmp_path, "la"), "--no-sweep")
    listed = json.loads(dream("questions", "--json").output)
    assert [q["key"] for q in listed] == [SAME_KEY] and listed[0]["ask"] == "same"


def _log(dream_home) -> list[str]:
    return git(dream_home / "notes", "log", "--format=%s").splitlines()


def test_yes_merges_into_the_older_record_and_the_next_run_keeps_it(dream, repo, dream_home,
                                                                    tmp_path):
    _asked(dream, dream_home, tmp_path)
    commits = len(_log(dream_home))
    out = dream("questions", "answer", SAME_KEY, "yes").output
    assert out.startswith(f"answered {SAME_KEY} = 'yes'")
    assert len(_log(dream_home)) == commits + 1                       # one commit
    events = records(dream_home, "events")
    kept, dup = events["dinner-with-jordan"], events["jordan-birthday-dinner"]
    assert kept.get("place") == "Nobu"                    # taken from the duplicate
    assert dup.get("status") == "declined" and dup.get("same_as") == "events/dinner-with-jordan.md"
    assert dup.fields["status"].pass_ == "answer"
    q = records(dream_home, "questions")[SAME_KEY]
    assert q.get("status") == "answered" and q.get("answer") == "yes"
    assert json.loads(dream("questions", "--json").output) == []
    brief = (dream_home / "notes" / "user" / "brief.md").read_text()
    assert "## Open questions" not in brief
    run_json(dream, "--model", _later(tmp_path, "later"), "--no-sweep")
    events = records(dream_home, "events")
    assert events["jordan-birthday-dinner"].get("status") == "declined"    # not undone
    assert events["dinner-with-jordan"].get("time") == "18:30"             # still learns
    assert records(dream_home, "questions")[SAME_KEY].get("status") == "answered"


def test_no_keeps_them_apart_and_is_never_asked_again(dream, repo, dream_home, tmp_path):
    _asked(dream, dream_home, tmp_path)
    dream("questions", "answer", SAME_KEY, "No")
    events = records(dream_home, "events")
    assert events["jordan-birthday-dinner"].get("status") != "declined"
    assert "same_as" not in events["jordan-birthday-dinner"].fields
    run_json(dream, "--model", _later(tmp_path, "later"), "--no-sweep")
    qs = records(dream_home, "questions")
    assert list(qs) == [SAME_KEY] and qs[SAME_KEY].get("answer") == "no"
    assert records(dream_home, "events")["jordan-birthday-dinner"].get("status") == "confirmed"
    assert dream("questions").output.strip() == "no open questions"


def test_bad_answers_are_refused_with_one_line_and_change_nothing(dream, repo, dream_home,
                                                                  tmp_path):
    _asked(dream, dream_home, tmp_path)
    commits = _log(dream_home)
    for args, says in ((("maybe",), "does not answer a same-thing question"),
                       (("yes",), "no question 'nope'")):
        key = "nope" if args == ("yes",) else SAME_KEY
        result = dream("questions", "answer", key, *args, ok=False)
        lines = result.output.strip().splitlines()
        assert result.exit_code != 0 and len(lines) == 1 and says in lines[0], result.output
    git(dream_home / "notes", "rm", "-q", "user/events/jordan-birthday-dinner.md")
    git(dream_home / "notes", "commit", "-qm", "gone")
    gone = dream("questions", "answer", SAME_KEY, "no", ok=False)
    assert gone.exit_code != 0 and "which is gone" in gone.output
    assert _log(dream_home)[1:] == commits
    git(dream_home / "notes", "revert", "--no-edit", "HEAD")
    dream("questions", "answer", SAME_KEY, "yes")
    again = dream("questions", "answer", SAME_KEY, "no", ok=False)
    assert again.exit_code != 0 and "already answered" in again.output


def test_which_value_over_mcp_sets_the_field_and_the_next_run_respects_it(
        dream, repo, dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    model = script(tmp_path, "q", {"ops": [
        {"op": "event.upsert", "name": "dinner with jordan", "evidence": ["E1"],
         "fields": fields(title="Dinner with Jordan", date="2026-03-13", time="19:00")},
        PARTNER]}, {"purpose": "sweep", "data": {"ops": [WHICH]}})
    run_json(dream, "--model", model)
    key = "which-dinner-with-jordan-time"

    async def scenario():
        async with stdio_client(server_params(repo, dream_home)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {t.name: t for t in (await session.list_tools()).tools}
                assert tools["questions_list"].annotations.read_only_hint
                assert tools["questions_answer"].annotations.destructive_hint
                listed = (await ok(session, "questions_list"))["questions"]
                bad = await call(session, "questions_answer", key=key, answer="half past")
                answered = await ok(session, "questions_answer", key=key, answer="20:00")
                after = (await ok(session, "questions_list"))["questions"]
                return listed, bad, answered, after

    listed, bad, answered, after = anyio.run(scenario)
    assert [(q["key"], q["ask"], q["options"]) for q in listed] == \
        [(key, "value", ["19:00", "20:00"])]
    assert bad[0] is None and "'half past' is not a time" in bad[1] and "\n" not in bad[1]
    assert answered["status"] == "ok" and answered["answer"] == "20:00" and after == []
    ev = records(dream_home, "events")["dinner-with-jordan"]
    assert ev.get("time") == "20:00" and ev.fields["time"].evidence == [answered["item"]]
    run_json(dream, "--model", _later(tmp_path, "later"), "--no-sweep")
    ev = records(dream_home, "events")["dinner-with-jordan"]
    assert ev.get("time") == "20:00"                  # older news does not undo the answer


def test_a_question_is_answered_by_its_address_from_anywhere(dream, repo, dream_home,
                                                             tmp_path, monkeypatch):
    _asked(dream, dream_home, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)                          # not the project: @user/ still is
    out = dream("questions", "answer", f"@user/questions/{SAME_KEY}.md", "no").output
    assert out.startswith(f"answered @user/questions/{SAME_KEY}.md = 'no'")
    assert records(dream_home, "questions")[SAME_KEY].get("answer") == "no"
    wrong = dream("questions", "answer", f"@projects/nope/questions/{SAME_KEY}", "no", ok=False)
    assert wrong.exit_code != 0 and "no store knows a project named 'nope'" in wrong.output


def test_yes_to_two_disagreeing_notes_keeps_the_newer_one(dream, repo, dream_home, tmp_path):
    """The sweep asks 'is one a change of the other (yes: keep only the newer)?': yes keeps
    the later statement and crumples the earlier one."""
    dream("init")
    stage(tmp_path, "seats", [
        {"id": "p1", "time": "2026-03-01T10:00:00Z", "stream": "me", "role": "user",
         "text": "I prefer aisle seats on long flights."},
        {"id": "p2", "time": "2026-03-01T10:05:00Z", "stream": "me", "role": "user",
         "text": "I prefer window seats on flights."}])
    run_json(dream, "--model", "rules")
    [asked] = json.loads(dream("questions", "--json").output)
    assert "keep only the newer" in asked["text"]
    dream("questions", "answer", asked["key"], "yes")
    notes = records(dream_home, "notes")
    older = notes["preference-aisle-seats-long-flights"]
    assert notes["preference-window-seats-flights"].get("status") == "live"
    assert older.get("status") == "crumpled"
    assert older.get("same_as") == "notes/preference-window-seats-flights.md"
    brief = (dream_home / "notes" / "user" / "brief.md").read_text()
    assert "window seats" in brief and "aisle seats" not in brief
