"""The brief's event sections: "Coming up" holds only live events, plans that fell through
in the last week go to "Changed", confirmed plans a month to a year ahead to "Later", and an
event line never repeats a participant its title already names."""

from __future__ import annotations

from dream.kinds.records import FieldValue, Record
from dream.pipeline.render import render_brief, sections
from dream.pipeline.state import Scope, State

NOW = "2026-03-10T09:00:00Z"


def event(key: str, said_at: str = "2026-03-01T10:00:00Z", status_said: str | None = None,
          **values: str) -> Record:
    rec = Record("event", key, version=1)
    for name, value in values.items():
        rec.fields[name] = FieldValue(value, said_at, ["e1"], "run", "propose")
    if status_said and "status" in rec.fields:
        rec.fields["status"].said_at = status_said
    return rec


def state_of(*records: Record) -> State:
    clock = Record("note", "clock", version=1,
                   fields={"text": FieldValue("now", NOW, ["e0"], "run", "propose")})
    st = State(Scope(store=None, root="user", project_key=None, name="user"),  # type: ignore[arg-type]
               commit=None)
    for rec in (*records, clock):
        st.records[(rec.kind, rec.key)] = rec
    return st


def section(st: State, name: str) -> list[str]:
    return dict(sections(st))[name]


def test_coming_up_holds_only_live_events_and_changed_the_last_weeks_cancellations():
    st = state_of(
        event("dinner", title="Dinner at Nobu", date="2026-03-13", status="confirmed"),
        event("lunch", title="Lunch with Sam", date="2026-03-12", status="proposed"),
        event("declined", title="Drinks at Zuma", date="2026-03-14",
              status="declined", status_said="2026-03-09T10:00:00Z"),
        event("cancelled-old", title="Yoga class", date="2026-03-20",
              status="cancelled", status_said="2026-02-20T10:00:00Z"),
    )
    coming = section(st, "Coming up")
    assert [line.split(": ", 1)[1].split(" (")[0] for line in coming] == [
        "Lunch with Sam", "Dinner at Nobu"]
    changed = section(st, "Changed")
    assert len(changed) == 1 and "Drinks at Zuma (declined)" in changed[0]
    brief = render_brief(st)
    assert "Yoga class" not in brief                 # cancelled three weeks ago: gone
    assert brief.index("## Coming up") < brief.index("## Changed")


def test_confirmed_plans_a_month_to_a_year_ahead_are_under_later():
    st = state_of(
        event("trip", title="Trip to Lisbon", date="2026-06-02", status="confirmed"),
        event("maybe", title="Concert maybe", date="2026-05-01", status="proposed"),
        event("far", title="Wedding", date="2027-08-01", status="confirmed"),
        event("soon", title="Haircut", date="2026-03-11", status="confirmed"),
    )
    assert [x.split(" [")[0] for x in section(st, "Later")] == [
        "- 2026-06-02: Trip to Lisbon (confirmed)"]
    assert not any("Trip to Lisbon" in x for x in section(st, "Coming up"))
    assert "Concert maybe" not in render_brief(st) and "Wedding" not in render_brief(st)


def test_an_event_line_never_repeats_what_its_title_names():
    st = state_of(
        event("dentist", title="Dental check-up with Smile Dental", date="2026-03-12",
              participants="Smile Dental", place="Smile Dental", status="confirmed"),
        event("dinner", title="Dinner with Jordan", date="2026-03-13",
              participants="Jordan, Sam", status="proposed"),
    )
    lines = section(st, "Coming up")
    assert lines[0].startswith("- 2026-03-12: Dental check-up with Smile Dental (confirmed)")
    assert lines[1].startswith("- 2026-03-13: Dinner with Jordan and Sam (proposed)")


def test_a_long_rule_line_stays_within_240_characters_with_its_count():
    rec = Record("note", "long-rule", version=1)
    for name, value in (("text", "Always finish with the checker " + "and more words " * 15
                         + "before you say it is done."), ("type", "directive"),
                        ("said", "2 times in 2 sessions")):
        rec.fields[name] = FieldValue(value, "2026-03-01T10:00:00Z", ["e1"], "run", "propose")
    st = State(Scope(store=None, root="projects/shop", project_key="shop-1",  # type: ignore[arg-type]
                     name="shop"), commit=None)
    st.records[(rec.kind, rec.key)] = rec
    [line] = [ln for ln in render_brief(st).splitlines() if "times in" in ln]
    shown = line[2:line.rindex(" [")]           # without "- " and the record link
    assert len(shown) <= 240 and shown.endswith("… (2 times in 2 sessions)")


def test_a_crumple_or_correction_by_hand_leaves_the_brief_as_of_its_evidence(dream, repo,
                                                                             dream_home,
                                                                             tmp_path):
    """The brief's 'As of' line is the latest evidence read (messages, sessions): crumpling
    a note and correcting a field (said when typed, today) neither move it to the wall
    clock nor empty 'Coming up' (its window counts from the evidence); the line says a
    person changed the memory since, and when."""
    import json
    from datetime import UTC, datetime
    from pathlib import Path

    samples = Path(__file__).resolve().parents[1] / "src" / "dream" / "samples" / "messages"
    mine = tmp_path / "me.jsonl"
    mine.write_text(json.dumps({"id": "p1", "time": "2026-03-11T10:00:00Z", "stream": "me",
                                "role": "user", "text": "I prefer aisle seats on long flights."})
                    + "\n", encoding="utf-8")
    dream("init")
    dream("collect", "--source", "jsonl", str(samples / "personal.jsonl"))
    dream("collect", "--source", "jsonl", str(mine))
    dream("run", "--model", "rules")
    brief = dream_home / "notes" / "user" / "brief.md"
    before = brief.read_text(encoding="utf-8")
    as_of = before.splitlines()[2]
    assert as_of.startswith("As of 2026-03-") and "by hand" not in as_of
    coming = section_of(before, "Coming up")
    assert any("Nobu" in line for line in coming)

    notes = json.loads(dream("notes", "list", "@user", "--json").output)
    note = next(n["address"] for n in notes if "aisle" in json.dumps(n))
    dream("notes", "crumple", note)
    dream("correct", "@user/events/dinner-nobu-2026-03-13", "place", "Nobu Mayfair")
    after = brief.read_text(encoding="utf-8")
    line = after.splitlines()[2]
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    assert line.startswith(as_of.removesuffix(" Written by Dream from the records linked on "
                                              "each line.").removesuffix("."))
    assert f", the latest evidence read; changed by hand since (last {today}T" in line
    now_coming = section_of(after, "Coming up")
    assert len(now_coming) == len(coming) and any("Nobu Mayfair" in x for x in now_coming)
    assert "aisle" not in after and "aisle" in before


def section_of(brief: str, name: str) -> list[str]:
    lines = brief.split(f"## {name}\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [x for x in lines if x.startswith("- ")]
