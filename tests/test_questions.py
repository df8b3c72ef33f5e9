"""Questions (``dream.kinds.questions``): the two shapes a run writes when evidence is
unclear, how an answer is checked, that the sweep asks when two live preferences
contradict, and that a run never reopens a question a person answered."""

from __future__ import annotations

import json

import pytest
from test_scenarios import records, run_json, script, stage

from dream.detect.preferences import contradict, stance
from dream.errors import BadInput
from dream.kinds.questions import (
    ASK_SAME,
    ASK_VALUE,
    check_answer,
    parse,
    same_question,
    value_question,
)
from dream.kinds.records import FieldValue, Record
from dream.pipeline.apply import apply_writes
from dream.pipeline.merge import FieldWrite, RowWrite
from dream.pipeline.state import Scope, State


def test_same_thing_question_round_trips_and_takes_yes_or_no():
    key, q = same_question("events/b.md", "events/a.md", "Are A and B one dinner?")
    assert key == "same-a-b" and q.about == ["events/a.md", "events/b.md"]
    back = parse(q.fields())
    assert back is not None and back.ask == ASK_SAME and back.about == q.about
    assert check_answer(back, " Yes ") == "yes" and check_answer(back, "no") == "no"
    with pytest.raises(BadInput) as err:
        check_answer(back, "maybe")
    assert "answer yes" in err.value.one_line()


def test_which_value_question_offers_options_and_checks_a_typed_value():
    key, q = value_question("events/dinner.md", "date", ["2026-03-14", "2026-03-13", ""],
                            "Is the dinner on the 13th or the 14th?")
    assert key == "which-dinner-date"
    stored = q.fields()
    assert json.loads(stored["options"]) == ["2026-03-14", "2026-03-13"]
    back = parse(stored)
    assert back is not None and back.ask == ASK_VALUE and back.field == "date"
    assert check_answer(back, "2026-03-13") == "2026-03-13"
    assert check_answer(back, "2026-03-20") == "2026-03-20"        # typed, valid
    with pytest.raises(BadInput) as err:
        check_answer(back, "next Friday")
    assert "YYYY-MM-DD" in err.value.one_line()
    _, status_q = value_question("events/dinner.md", "status", ["confirmed"], "Still on?")
    with pytest.raises(BadInput) as err:
        check_answer(status_q, "maybe")
    assert "proposed, confirmed" in err.value.one_line()


def test_a_question_naming_no_record_has_no_shape_and_old_pairs_read_as_same():
    assert parse({"text": "What is going on?", "about": "dinner"}) is None
    legacy = parse({"text": "Same?", "about": "events/a.md, events/b.md", "status": "open"})
    assert legacy is not None and legacy.ask == ASK_SAME


def test_stances_contradict_only_when_they_disagree_about_one_thing():
    aisle, window = stance("I prefer aisle seats."), stance("I prefer window seats on flights")
    assert aisle and window and contradict(aisle, window)
    oat, no_oat = stance("I like oat milk"), stance("I don't like oat milk any more")
    assert oat and no_oat and contradict(oat, no_oat)
    coffee, strong = stance("I like coffee"), stance("I like strong coffee")
    assert coffee and strong and not contradict(coffee, strong)
    tea = stance("I love green tea")
    assert tea and not contradict(tea, coffee)
    assert stance("The dinner is at eight") is None


def test_the_sweep_asks_when_two_live_preferences_contradict(dream, repo, dream_home,
                                                             tmp_path):
    dream("init")
    # said in one go, neither replaces the other (a later run's preference would)
    stage(tmp_path, "day1", [
        {"id": "p1", "time": "2026-03-01T10:00:00Z", "stream": "me", "role": "user",
         "text": "I prefer aisle seats on long flights."},
        {"id": "p2", "time": "2026-03-01T10:05:00Z", "stream": "me", "role": "user",
         "text": "I prefer window seats on flights."}])
    out = run_json(dream, "--model", "rules")
    assert out["status"] == "ok"
    notes = [n for n in records(dream_home, "notes").values() if n.get("status") == "live"]
    assert len(notes) == 2
    qs = list(records(dream_home, "questions").values())
    assert len(qs) == 1
    q = parse(qs[0].values())
    assert q is not None and q.ask == ASK_SAME
    assert sorted(q.about) == sorted(n.path for n in notes)
    assert "disagree" in qs[0].get("text")
    brief = (dream_home / "notes" / "user" / "brief.md").read_text()
    assert "## Open questions" in brief and qs[0].path in brief


def test_an_answered_question_is_not_reopened_by_a_later_run():
    st = State(Scope(store=None, root="user", project_key=None, name="user"),  # type: ignore[arg-type]
               commit=None)
    _, q = same_question("events/a.md", "events/b.md", "Same dinner?")
    rec = Record("question", "same-a-b", version=2)
    for name, value in {**q.fields(), "status": "answered", "answer": "no"}.items():
        rec.fields[name] = FieldValue(value, "2026-03-05T10:00:00Z", ["answer-1"], "r1",
                                      "answer")
    st.records[("question", "same-a-b")] = rec
    ask_again = RowWrite("question", "same-a-b", None, {
        "status": FieldWrite("open", "2026-03-09T10:00:00Z", ["e7"], "merge")})
    result = apply_writes(st, [ask_again], "r2")
    assert result.counts["answered_question"] == 1 and not result.changed
    assert st.get("question", "same-a-b").get("status") == "answered"


def test_a_models_question_about_row_handles_is_stored_with_record_paths(dream, repo,
                                                                        dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "dinner_three_streams.jsonl")
    # a taxi the same evening: something to sweep, so the sweep is called (rows R1, R2)
    model = script(tmp_path, "q", {"ops": [
        {"op": "event.upsert", "name": "dinner nobu", "evidence": ["E1"],
         "fields": [{"name": "title", "value": "Dinner at Nobu"},
                    {"name": "activity", "value": "dinner"},
                    {"name": "date", "value": "2026-03-13"}]},
        {"op": "event.upsert", "name": "taxi nobu", "evidence": ["E1"],
         "fields": [{"name": "title", "value": "Taxi to Nobu"},
                    {"name": "activity", "value": "taxi"},
                    {"name": "date", "value": "2026-03-13"}]}]},
        {"purpose": "sweep", "data": {"ops": [
            {"op": "question.ask", "name": "which-dinner-nobu-time", "evidence": ["R1"],
             "fields": [{"name": "text", "value": "Seven or eight?"},
                        {"name": "ask", "value": "value"},
                        {"name": "about", "value": "R1"},
                        {"name": "field", "value": "time"},
                        {"name": "options", "value": '["19:00", "20:00"]'}]}]}})
    run_json(dream, "--model", model)
    qs = records(dream_home, "questions")
    q = parse(qs["which-dinner-nobu-time"].values())
    assert q is not None and q.about == ["events/dinner-nobu.md"] and q.field == "time"
    assert q.options == ["19:00", "20:00"] and q.status == "open"
