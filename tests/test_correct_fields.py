"""'dream correct' checks the field against the record's kind and the value against the
field's type before anything is recorded; a refusal is one line naming what is valid."""

from __future__ import annotations

import json
import sqlite3

import pytest
from test_scenarios import records, run_json, stage

from dream.errors import BadInput
from dream.kinds.fields import check

KEY = "dinner-nobu-2026-03-13"


@pytest.fixture
def event(dream, repo, dream_home, tmp_path):
    dream("init")
    stage(tmp_path, "day1", [{"id": "d1", "time": "2026-03-09T18:00:00Z",
                              "stream": "sms-jordan", "role": "other", "author": "Jordan",
                              "text": "Dinner at Nobu on Friday at 7pm, booked."}])
    run_json(dream, "--model", "rules")
    assert KEY in records(dream_home, "events")
    return f"@user/events/{KEY}"


def corrections(dream_home) -> int:
    conn = sqlite3.connect(dream_home / "dream.db")
    try:
        return conn.execute("SELECT count(*) FROM items WHERE source='dream-correct'"
                            ).fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize("field, value, needle", [
    ("colour", "blue", "valid fields: title, activity, date, time, place, participants, status"),
    ("date", "next friday", "not a date for the event date. give it as YYYY-MM-DD"),
    ("date", "2026-02-30", "not a date"),
    ("time", "7pm", "give it as HH:MM"),
    ("status", "maybe", "'maybe' is not an event status. use one of proposed, confirmed"),
    ("title", "x" * 5000, "5,000 characters, more than the 1,000 a field holds"),
    # an escape sequence typed or pasted into a value reached the brief, which 'dream brief'
    # prints to a terminal ('ESC ] 0 ; pwned BEL' retitles it)
    ("place", "Nobu\x1b]0;pwned\x07", "the value holds a control character, ESC (\\x1b) on "
                                      "line 1"),
    ("place", "No\x01bu", "control character, \\x01 on line 1"),
])
def test_bad_field_or_value_is_refused_and_nothing_recorded(event, dream, dream_home, field,
                                                           value, needle):
    result = dream("correct", event, field, value, ok=False)
    assert result.exit_code == 1 and needle in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert corrections(dream_home) == 0
    assert records(dream_home, "events")[KEY].get("date") == "2026-03-13"


def test_valid_values_are_normalised_and_applied(event, dream, dream_home):
    out = json.loads(dream("correct", event, "Time", "9:05", "--json").output)
    assert out["field"] == "time" and out["value"] == "09:05" and out["status"] == "ok"
    assert records(dream_home, "events")[KEY].get("time") == "09:05"
    out = json.loads(dream("correct", event, "status", "Confirmed", "--json").output)
    assert records(dream_home, "events")[KEY].get("status") == "confirmed"


def test_kinds_with_named_slots_take_any_field_name() -> None:
    assert check("standing", "home_city", " Lisbon ") == ("home_city", "Lisbon")
    assert check("wiki", "Build-Command", "make") == ("build_command", "make")
    assert check("todo", "due", "2026-04-01") == ("due", "2026-04-01")
    with pytest.raises(BadInput) as refused:
        check("todo", "colour", "blue")
    assert refused.value.one_line() == \
        "a todo has no field 'colour'. valid fields: title, status, due, owner, event."
    with pytest.raises(BadInput, match="not a field name"):
        check("standing", "two words", "x")


def test_a_correction_that_changes_nothing_is_not_reported_as_done(dream, repo, dream_home,
                                                                 tmp_path):
    """A record whose evidence is dated after now (a clock set some hours wrong where it
    was said; collect replaces a time more than a day ahead) keeps its field against a
    correction typed now: that is said, never 'corrected'."""
    from datetime import UTC, datetime, timedelta

    ahead = (datetime.now(UTC) + timedelta(hours=12)).strftime("%Y-%m-%dT%H:%M:%SZ")
    dream("init")
    stage(tmp_path, "day1", [{"id": "d1", "time": ahead,
                              "stream": "sms-jordan", "role": "other", "author": "Jordan",
                              "text": "Dinner at Nobu on Friday at 7pm, booked."}])
    run_json(dream, "--model", "rules")
    key = next(k for k in records(dream_home, "events") if k.startswith("dinner-nobu"))
    result = dream("correct", f"@user/events/{key}", "time", "20:00", ok=False)
    assert result.exit_code == 1 and "changed nothing" in result.output
    assert "corrected" not in result.output and len(result.output.strip().splitlines()) == 1
    assert records(dream_home, "events")[key].get("time") == "19:00"


def test_every_note_type_the_offline_provider_writes_can_be_corrected() -> None:
    from dream.detect.finding import NOTE_KINDS

    for kind in NOTE_KINDS:
        assert check("note", "type", kind) == ("type", kind)


def test_a_record_that_is_not_there_is_refused_with_the_command_that_lists_them(
        event, dream, dream_home):
    result = dream("correct", "@user/events/dinner-nobu-2026-03-14", "time", "20:00", ok=False)
    assert result.exit_code == 1 and corrections(dream_home) == 0
    assert result.output.strip() == ("error: no record at @user/events/dinner-nobu-2026-03-14."
                                     " list the records with 'dream notes list @user'.")
    assert f"@user/events/{KEY}.md" in dream("notes", "list", "@user").output
    result = dream("correct", "@user/brief.md", "text", "x", ok=False)
    assert result.exit_code == 1 and "'dream notes list @user'" in result.output
