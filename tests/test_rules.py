"""The rules provider's extraction rules, one test per rule, on sentences of their own."""

from __future__ import annotations

from datetime import UTC, datetime

from dream.detect.plan_words import activity_of as _activity
from dream.kinds.text import find_date, weekday_only
from dream.models.base import ModelRequest
from dream.models.rules import RulesProvider


def _items(items: list[dict], start: int = 1) -> list[dict]:
    for n, it in enumerate(items, start):
        it.setdefault("handle", f"E{n}")
        it.setdefault("evidence", it.get("role") != "assistant")
        it.setdefault("kind", {"user": "statement", "assistant": "assistant",
                               "tool": "tool_result"}.get(it["role"], "message"))
        it.setdefault("said_at", "2026-04-06T10:00:00Z")      # a Monday
        it.setdefault("stream", "s")
        for key in ("author", "tool_name", "is_error"):
            it.setdefault(key, None)
        it.setdefault("entities", [])
    return items


def _rules(items: list[dict], rows: list[dict] | None = None,
           more: list[list[dict]] | None = None) -> list[dict]:
    bundles = [{"id": "B1", "entities": [], "items": _items(items)}]
    n = len(items) + 1
    for extra in more or []:
        bundles.append({"id": f"B{len(bundles) + 1}", "entities": [], "items": _items(extra, n)})
        n += len(extra)
    req = ModelRequest("propose", "", "", {}, payload={"rows": rows or [], "bundles": bundles})
    return RulesProvider().complete(req).data["ops"]


def _fields(op: dict) -> dict[str, str]:
    return {f["name"]: f["value"] for f in op["fields"]}


def _events(ops: list[dict]) -> dict[str, dict[str, str]]:
    """Final fields per event name/row, later ops over earlier ones."""
    out: dict[str, dict[str, str]] = {}
    for op in ops:
        if op["op"] == "event.upsert":
            out.setdefault(op.get("row") or op["name"], {}).update(_fields(op))
    return out


def _row(handle: str, key: str, **fields: str) -> dict:
    return {"handle": handle, "kind": "event", "key": key, "fields": fields}


# -- activities ----------------------------------------------------------------------------------
def test_compound_activities_and_heads_that_need_a_word_in_front():
    assert _activity("Quarterly review with Dana on Tuesday") == "quarterly review"
    assert _activity("the pub quiz night is on Friday") == "pub quiz night"
    assert _activity("Appointment confirmed: Rex, vaccination, Monday") == "vaccination"
    assert _activity("My book club meets Thursday") == "book club"
    assert _activity("Can you book dinner for Friday") == "dinner"
    assert _activity("Friday night works") is None          # a weekday is no kind of night
    assert _activity("what a lovely night") is None          # nor is a judgement
    assert _activity("we love movie nights at home") is None  # a habit, not one event
    assert _activity("Please show me the logs") is None


def test_title_of_a_compound_event_and_of_tickets():
    ev = _events(_rules([{"role": "other", "author": "Dana",
                          "text": "Quarterly review with Dana on Tuesday 7 April at 14:00."}]))
    (fields,) = ev.values()
    assert fields["title"] == "Quarterly review with Dana" and fields["time"] == "14:00"
    ev = _events(_rules([{"role": "other", "author": "Schaubuehne",
                          "text": "Your tickets for Macbeth: Friday 10 April 2026, 20:00."}]))
    (fields,) = ev.values()
    assert fields["title"] == "Tickets for Macbeth" and fields["date"] == "2026-04-10"


# -- status cues ---------------------------------------------------------------------------------
def test_an_announcement_with_its_full_date_is_confirmed_a_suggestion_is_not():
    fixed = _events(_rules([{"role": "other", "author": "City Pool",
                             "text": "Swimming lesson on Wednesday 8 April at 17:30."}]))
    assert next(iter(fixed.values()))["status"] == "confirmed"
    # a suggestion nobody has agreed to is not written at all
    loose = _events(_rules([{"role": "other", "author": "Kai",
                             "text": "Dinner on Wednesday at 19:00 at Zeit?"}]))
    assert loose == {}
    maybe = _events(_rules([{"role": "other", "author": "Kai",
                             "text": "Maybe a swimming lesson on Wednesday 8 April at 17:30."}]))
    assert maybe == {}
    agreed = _events(_rules([{"role": "other", "author": "Kai",
                              "text": "Dinner on Wednesday at 19:00 at Zeit?"},
                             {"role": "user", "text": "Count me in!"}]))
    assert next(iter(agreed.values()))["status"] == "confirmed"


def test_unsubscribe_lines_and_hedges_are_no_cancellation():
    for text in ("Your eye exam is on Thursday 9 April 2026 at 10:00. Reply N to cancel.",
                 "We might cancel the eye exam on Thursday 9 April at 10:00, the doctor is ill."):
        ev = _events(_rules([{"role": "other", "author": "Optik", "text": text}]))
        assert all(e.get("status") != "cancelled" for e in ev.values()), text


def test_will_not_take_place_cancels_and_cant_make_it_declines():
    rows = [_row("R1", "workshop-x", activity="design workshop", date="2026-04-09",
                 time="10:00", status="confirmed")]
    ev = _events(_rules([{"role": "other", "author": "Lu",
                          "text": "The design workshop on 9 April will not take place."}], rows))
    assert ev["R1"]["status"] == "cancelled"
    ev = _events(_rules([{"role": "user", "text": "Sorry, I can't make it to the design "
                                                  "workshop on 9 April."}], rows))
    assert ev["R1"]["status"] == "declined"


def test_calendar_requests_and_ill_be_there_confirm():
    ev = _events(_rules([{"role": "user", "text": "Add the recital with Ines on Saturday "
                                                  "11 April at 18:00 to my calendar."}]))
    assert next(iter(ev.values()))["status"] == "confirmed"
    ev = _events(_rules([{"role": "other", "author": "Ola", "text": "Picnic Sunday at 13:00?"},
                         {"role": "user", "text": "Sunday 13:00, I'll be there."}]))
    assert next(iter(ev.values()))["status"] == "confirmed"


# -- which event a message is about --------------------------------------------------------------
def test_a_question_asking_to_move_a_plan_does_not_move_it():
    rows = [_row("R1", "massage", activity="massage session", date="2026-04-08",
                 time="10:00", status="confirmed")]
    ops = _rules([{"role": "user", "text": "Can we move my massage session to 15:00?"}], rows)
    assert "time" not in _events(ops).get("R1", {})


def test_a_new_booking_after_a_cancelled_one_is_another_event_titled_by_weekday():
    ops = _rules([
        {"role": "other", "author": "Hotel Lindner",
         "text": "Your room at Hotel Lindner for Friday 10 April 2026 is booked."},
        {"role": "other", "author": "Hotel Lindner", "said_at": "2026-04-07T10:00:00Z",
         "text": "Your Friday booking is cancelled. New booking: Saturday 11 April 2026 "
                 "is confirmed."},
    ])
    ev = _events(ops)
    by_date = {f["date"]: f for f in ev.values()}
    assert by_date["2026-04-10"]["status"] == "cancelled"     # the hotel cancelled it
    assert by_date["2026-04-11"]["status"] == "confirmed"
    titles = [f["title"] for f in ev.values() if "title" in f]
    assert any("(Friday)" in t for t in titles) and any("(Saturday)" in t for t in titles)


def test_a_bare_weekday_names_the_day_of_the_plan_it_talks_about():
    rows = [_row("R1", "quiz", activity="quiz night", date="2026-04-10", time="20:00",
                 status="confirmed", participants="Kai")]
    ops = _rules([{"role": "other", "author": "Mo",
                   "text": "Kai asked me to the quiz night on Friday as well, see you there."}],
                 rows)
    ev = _events(ops)
    assert list(ev) == ["R1"] and ev["R1"].get("date", "2026-04-10") == "2026-04-10"
    assert "Mo" in ev["R1"]["participants"]


def test_another_place_on_the_same_day_targets_the_same_event():
    rows = [_row("R1", "choir", activity="choir rehearsal", date="2026-04-13", time="19:00",
                 place="Town Hall", status="confirmed")]
    ops = _rules([{"role": "other", "author": "Vera",
                   "text": "Choir rehearsal on Monday 13 April at 19:00 at the Old Church."}], rows)
    assert list(_events(ops)) == ["R1"]


def test_venues_with_a_name_or_a_number():
    ev = _events(_rules([{"role": "other", "author": "Ari",
                          "text": "Sprint review on Thursday 9 April at 11:00 in room Orion."}]))
    assert next(iter(ev.values()))["place"] == "Orion"
    ev = _events(_rules([{"role": "other", "author": "Club",
                          "text": "Squash lesson on Thursday 9 April at 18:00 on court 2."}]))
    assert next(iter(ev.values()))["place"] == "court 2"
    ev = _events(_rules([{"role": "other", "author": "Ben",
                          "text": "Run Saturday: meet at 07:30 at the Tiergarten entrance."}]))
    assert next(iter(ev.values()), {}).get("place") in (None, "Tiergarten entrance")


def test_bundles_of_one_call_share_a_plan_and_a_booking_becomes_the_flight():
    ops = _rules([{"role": "other", "author": "Airline", "stream": "mail-a",
                   "text": "Your booking to Porto on Sunday 12 April 2026 departing 06:10 "
                           "is confirmed."}],
                 more=[[{"role": "other", "author": "Agency", "stream": "mail-b",
                         "text": "Itinerary: flight to Porto, 12 April 2026, 06:10."}]])
    ev = _events(ops)
    assert len(ev) == 1
    (fields,) = ev.values()
    assert fields["activity"] == "flight" and fields["status"] == "confirmed"


def test_a_name_written_elsewhere_in_the_call_is_a_participant_at_a_sentence_start():
    ops = _rules([{"role": "user", "text": "I must take Rex to the groomer."},
                  {"role": "other", "author": "Pawsome",
                   "text": "Confirmed: Rex, grooming appointment, Friday 10 April 2026 at 09:00."}])
    (fields,) = _events(ops).values()
    assert "Rex" in fields["participants"]


# -- standing facts ------------------------------------------------------------------------------
def _facts(text: str) -> dict[str, str]:
    ops = _rules([{"role": "user", "text": text}])
    return {k: v for o in ops if o["op"] == "standing.set" for k, v in _fields(o).items()}


def test_standing_relations_home_employer_and_manager():
    assert _facts("My brother Tomas lands on Sunday.") == {"brother": "Tomas"}
    assert _facts("Oops, my brother is called Tobias, not Tomas.") == {"brother": "Tobias"}
    assert _facts("I've just moved to Leipzig, so update my city.") == {"home": "Leipzig"}
    assert _facts("I started a new job at Globex last Monday.") == {"employer": "Globex"}
    assert _facts("I joined Initech as a tester.") == {"employer": "Initech"}
    assert _facts("My boss at Globex is Rina Park.") == {"boss": "Rina Park"}
    assert _facts("my cat is so lazy today") == {}
    assert _facts("my sister Friday is busy") == {}


# -- to-dos --------------------------------------------------------------------------------------
def test_a_todo_said_twice_is_one_and_loses_its_when():
    ops = _rules([{"role": "user", "text": "I need to book the car inspection this month."},
                  {"role": "user", "stream": "t", "text": "I have to book the car inspection."}])
    names = {o["name"] for o in ops if o["op"] == "todo.open"}
    assert names == {"Book the car inspection"}


def test_a_short_message_saying_done_closes_the_todo_it_names():
    rows = [{"handle": "R1", "kind": "todo", "key": "x",
             "fields": {"title": "Send the lease contract to the landlord", "status": "open"}}]
    ops = _rules([{"role": "user", "text": "Hi Olga, the lease contract is attached. "
                                           "All done from my side."}], rows)
    assert [(o["op"], o.get("row")) for o in ops if o["op"].startswith("todo")] == \
        [("todo.close", "R1")]


# -- notes ---------------------------------------------------------------------------------------
def _note(handle: str, text: str, kind: str = "preference") -> dict:
    return {"handle": handle, "kind": "note", "key": handle.lower(),
            "fields": {"text": text, "type": kind, "status": "live"}}


def test_a_preference_said_again_is_not_noted_twice():
    ops = _rules([{"role": "user", "text": "Please get me a window seat, I always prefer "
                                           "the window."}],
                 [_note("R1", "On trains I prefer window seats.")])
    assert [o for o in ops if o["op"] == "note.add"] == []


def test_a_revised_preference_crumples_the_older_one():
    ops = _rules([{"role": "user", "text": "Actually, I prefer green tea now, no sugar."}],
                 [_note("R1", "I prefer my tea with sugar."),
                  _note("R2", "I prefer dark mode.")])
    crumpled = [o["row"] for o in ops if o["op"] == "note.crumple"]
    assert crumpled == ["R1"]
    assert any(o["op"] == "note.add" for o in ops)


def test_a_you_have_to_x_before_y_is_a_directive():
    ops = _rules([{"role": "user", "stream": "agent",
                   "text": "Okay, you need to run make migrate before the app starts."}])
    assert [_fields(o)["type"] for o in ops if o["op"] == "note.add"] == ["directive"]


def test_a_tool_result_that_exited_nonzero_is_a_failure_when_no_flag_says_otherwise():
    text = "cargo build exited 101: error[E0425]: cannot find value `x` in this scope"
    ops = _rules([{"role": "tool", "tool_name": "bash", "text": text}])
    assert [_fields(o)["type"] for o in ops] == ["failure"]
    assert _rules([{"role": "tool", "tool_name": "bash", "is_error": False, "text": text}]) == []
    assert _rules([{"role": "tool", "tool_name": "bash",
                    "text": "raise Error if no token is set"}]) == []


# -- dates ---------------------------------------------------------------------------------------
def test_last_weekday_is_in_the_past_and_weekday_only():
    monday = datetime(2026, 4, 6, 10, tzinfo=UTC)
    assert find_date("last Friday we met", monday) == "2026-04-03"
    assert find_date("on Friday", monday) == "2026-04-10"
    assert weekday_only("see you Friday") == 4
    assert weekday_only("Friday 10 April") is None and weekday_only("tomorrow") is None


def test_the_todos_own_verb_in_the_past_closes_it():
    rows = [{"handle": "R1", "kind": "todo", "key": "x",
             "fields": {"title": "Renew the gym membership", "status": "open"}}]
    ops = _rules([{"role": "user", "text": "Renewed the gym membership at lunch."}], rows)
    assert [(o["op"], o.get("row")) for o in ops] == [("todo.close", "R1")]
    for text in ("I still haven't renewed the gym membership.",
                 "Renewed my passport, the gym can wait."):
        assert not [o for o in _rules([{"role": "user", "text": text}], rows)
                    if o["op"] == "todo.close"], text


def test_a_bare_cant_declines_and_call_off_is_no_call():
    ev = _events(_rules([{"role": "other", "author": "Ivo",
                          "text": "Brunch at Frida on Sunday at 11:00?"},
                         {"role": "user", "text": "Can't, I'm at my parents' that weekend."}]))
    assert next(iter(ev.values()))["status"] == "declined"
    ev = _events(_rules([{"role": "other", "author": "Pia",
                          "text": "We have to call off the standup on Tuesday 7 April."}]))
    assert [f["activity"] for f in ev.values()] in ([], ["standup"])


def test_a_todo_title_drops_a_trailing_sorry():
    ops = _rules([{"role": "user", "text": "I need to return the drill to Ken, sorry."}])
    assert [o["name"] for o in ops if o["op"] == "todo.open"] == ["Return the drill to Ken"]


def test_a_past_outing_told_as_a_story_is_no_new_plan():
    told = _rules([{"role": "other", "author": "Nell",
                    "text": "We went to a pottery class last Saturday at 10:00, so fun."}])
    assert _events(told) == {}
    planned = _rules([{"role": "user",
                       "text": "Pottery class with Nell on Saturday at 10:00, I can't wait!"}])
    assert len(_events(planned)) == 1


# -- confidence: what the evidence cannot defend is asked, not written ----------------------------
def test_a_messages_last_word_on_a_day_is_the_new_day_not_the_reason_for_the_move():
    ops = _rules([
        {"role": "other", "author": "Kat", "stream": "g",
         "text": "Next game night: Thursday 9 April, 7pm at Hop & Dice café, back room"},
        {"role": "user", "stream": "g", "text": "in!"},
        {"role": "other", "author": "Kat", "stream": "g",
         "text": "Bad news: Hop & Dice have a private booking on Thursday, so game night is "
                 "Wednesday 8 April instead, same time"}])
    (fields,) = _events(ops).values()
    assert fields["date"] == "2026-04-08" and fields["time"] == "19:00"


def test_a_change_the_reader_could_not_apply_is_asked_and_the_record_keeps_its_day():
    from dream.detect.confidence import Heard, unresolved
    from dream.detect.plan_words import Plan

    plan = Plan(activity="dinner", handle_row="R1",
                fields={"date": "2026-04-10", "time": "19:00"}, steps=[])
    said = datetime(2026, 4, 6, 10, tzinfo=UTC)
    heard = [Heard("E1", "s", "the dinner is moved to Saturday 11 April", said, "Kat")]
    assert unresolved(plan, heard) == ({"date": "2026-04-11"}, "E1")
    # a message that wrote its own reading of the day is that reading, not a dispute
    plan.steps = [("E1", {"date": "2026-04-10"})]
    assert unresolved(plan, heard) == ({}, "")
    # nor is a change of something the message does not name
    other = Plan(activity="dentist appointment", handle_row="R2",
                 fields={"date": "2026-04-10"}, steps=[])
    assert unresolved(other, heard) == ({}, "")


def test_the_day_said_first_and_i_cant_make_declines():
    ops = _rules([
        {"role": "other", "author": "Kat", "stream": "g",
         "text": "Next game night: Thursday 9 April, 7pm at Hop & Dice café"},
        {"role": "user", "stream": "g", "text": "in!"},
        {"role": "user", "stream": "g",
         "text": "ah Thursday I can't make after all, have fun without me"}])
    (fields,) = _events(ops).values()
    assert fields["status"] == "declined"


def test_a_done_state_in_one_clause_is_not_undone_by_a_promise_in_the_next():
    ops = _rules([
        {"role": "user", "text": "I'll sort the train down once they release the fares"},
        {"role": "user", "said_at": "2026-04-08T10:00:00Z",
         "text": "Train's booked btw, Leeds to King's Cross on the Sunday, I'll send you the "
                 "e-tickets."}])
    closed = [op for op in ops if op["op"] == "todo.close"]
    assert closed and _fields(closed[0])["status"] == "done"


def test_a_request_on_a_condition_and_a_notice_are_no_todos():
    for text in ("Te confirmamos tu cita el viernes 10 de abril a las 17:00. Si no puedes "
                 "venir, avísanos con 24 h.",
                 "Thank you! Please note our Easter opening hours: closed 10-13 April."):
        ops = _rules([{"role": "other", "author": "Salon", "text": text}])
        assert not [op for op in ops if op["op"] == "todo.open"], text
    ops = _rules([{"role": "other", "author": "Alex",
                   "text": "can you send the form by Friday?"}])
    assert [op for op in ops if op["op"] == "todo.open"]


def test_a_diet_word_inside_a_shops_name_is_no_diet():
    from dream.detect.diets import diet

    assert diet("Cake ordered from Bake Me Vegan, pick-up is Saturday. I'm in town") is None
    assert diet("I'm Vegan now") == "Vegan"
    assert diet("ich bin seit Januar Vegetarierin") == "Vegetarierin (vegetarian)"


def test_a_change_naming_a_plan_nobody_made_starts_none_and_is_asked():
    ops = _rules([{"role": "other", "author": "Ellie", "stream": "g",
                   "text": "Small change everyone: the ceremony is now at 1:30pm on Saturday "
                           "11 April, reception same as before"},
                  {"role": "user", "stream": "g", "text": "noted, see you there"}])
    assert not [op for op in ops if op["op"] == "event.upsert"]
    (asked,) = [op for op in ops if op["op"] == "question.ask"]
    assert "which plan does this change" in _fields(asked)["text"]


def test_after_a_no_a_moved_plan_is_a_new_offer():
    rows = [_row("R1", "birthday-party-maya-2026-04-11", activity="birthday party",
                 date="2026-04-11", participants="Maya", status="declined")]
    ops = _rules([{"role": "other", "author": "Maya", "stream": "sms",
                   "text": "We moved the birthday lunch to Sunday 12 April at 13:00 so you "
                           "can come!"},
                  {"role": "user", "stream": "sms", "text": "Sunday 13:00 works, I'll be there!"}],
                 rows=rows)
    lunch = [f for f in _events(ops).values() if f.get("activity") == "birthday lunch"]
    assert lunch and lunch[0]["status"] == "confirmed" and lunch[0]["date"] == "2026-04-12"


def test_being_somewhere_else_that_weekend_declines():
    ops = _rules([{"role": "other", "author": "Meera", "stream": "m",
                   "text": "Housewarming: come and celebrate with us on Saturday 11 April from "
                           "7pm at 14 Harcourt Road"},
                  {"role": "user", "stream": "m",
                   "text": "Gutted!! We're at Lucy's parents in Norwich that weekend."}])
    (fields,) = _events(ops).values()
    assert fields["status"] == "declined"


def test_a_thing_said_to_be_there_already_closes_its_todo():
    ops = _rules([{"role": "user", "text": "I'll bring the spare 60m rope and the bouldering pad"},
                  {"role": "user", "said_at": "2026-04-08T10:00:00Z",
                   "text": "rope and pad are packed 👍 in the car already"}])
    assert [op for op in ops if op["op"] == "todo.close"]
    ops = _rules([{"role": "user", "text": "I'll bring the spare rope"},
                  {"role": "user", "said_at": "2026-04-08T10:00:00Z",
                   "text": "is the rope in the car already?"}])
    assert not [op for op in ops if op["op"] == "todo.close"]


def test_a_weekday_and_day_number_about_a_dated_plan_is_the_one_nearest_it():
    from dream.kinds.dates import nearest_weekday_and_day

    # "moved it to Sunday the 14th" of a gig on Saturday 13 March 2027, said in November
    assert nearest_weekday_and_day("moved it to Sunday the 14th", "2027-02-14", "2027-03-13",
                                   "2026-11-27") == "2027-03-14"
    # a full date is read as it is
    assert nearest_weekday_and_day("on Friday 17 July", "2026-07-17", "2026-07-10",
                                   "2026-07-01") == "2026-07-17"


def test_a_shift_by_a_day_moves_the_one_plan_of_the_person_saying_it():
    rows = [_row("R1", "flight-jfk-2027-03-05", activity="flight", date="2027-03-05",
                 time="18:45", place="JFK", participants="Danielle", status="confirmed")]
    ops = _rules([{"role": "other", "author": "Danielle", "stream": "d",
                   "said_at": "2026-11-29T10:02:00Z",
                   "text": "change of plans, work needs me Friday so I'm coming a day later, "
                           "landing Saturday the 6th, same time 6:45 PM"}], rows=rows)
    assert _events(ops)["R1"]["date"] == "2027-03-06"


def test_a_bare_weekday_naming_the_day_it_is_said_gives_no_day():
    ops = _rules([{"role": "other", "author": "Dani", "stream": "d",
                   "said_at": "2026-04-05T10:00:00Z", "text": "dinner at Dishoom Sunday?"},
                  {"role": "user", "stream": "d", "said_at": "2026-04-05T10:01:00Z",
                   "text": "yes!! 7pm?"}])
    assert not [f for f in _events(ops).values() if f.get("date") == "2026-04-05"]


def test_a_booking_mails_please_without_a_day_of_its_own_is_no_todo():
    ops = _rules([{"role": "other", "author": "Harbour Lettings",
                   "text": "Your annual gas safety check is booked for Thursday 9 April between "
                           "9:00 and 13:00. Please reply to confirm access."}])
    assert not [op for op in ops if op["op"] == "todo.open"]
    ops = _rules([{"role": "other", "author": "Raj",
                   "text": "Please send me the Q4 budget sheet by Thursday."}])
    assert [op for op in ops if op["op"] == "todo.open"]
