"""A to-do taken on for a plan names it (its ``event`` field) and is dropped, not deleted,
when the plan is called off or the user drops out, in a later run that is shown the to-do
only through that link (dream.detect.plan_todos, dream.pipeline.state). Cases worded for
this file; none is taken from a benchmark scenario."""

from __future__ import annotations

from test_personal_plans import me, rules, they
from test_rules import _fields
from test_scenarios import records, run_json, stage

from dream.app import App
from dream.core import memory

# said on Monday 2 November 2026, in Hana's chat; the picnic is on Saturday 7 November
PICNIC = they("Hana", "Picnic on Parliament Hill on Saturday 7 Nov at 1pm, you in?",
              at="2026-11-02T18:00:00Z", stream="sms-hana")
THERMOS = me("Yes, count me in! I'll bring a thermos of mulled apple",
             at="2026-11-02T18:05:00Z", stream="sms-hana")


def _sms(friend: str):
    """A maker of the lines of one SMS thread between the user and ``friend``, to stage."""
    def line(n: str, at: str, who: str, text: str) -> dict:
        return {"id": n, "time": at, "stream": f"sms-{friend.lower()}", "channel": "sms",
                "author": who, "role": "user" if who == "me" else "other",
                "to": [friend] if who == "me" else ["me"], "text": text}
    return line


def _todo_ops(out: list[dict]) -> list[tuple[str, dict]]:
    return [(o["op"], _fields(o)) for o in out if o["op"].startswith("todo")]


def test_a_to_do_taken_on_in_the_plans_chat_names_the_plan():
    (opened,) = _todo_ops(rules([PICNIC, THERMOS]))
    assert opened == ("todo.open", {"title": "Bring a thermos of mulled apple",
                                    "event": "picnic-hana-2026-11-07"})


def test_a_plan_called_off_in_the_same_run_drops_its_to_do():
    off = they("Hana", "Ugh, the picnic is cancelled, storm warning for Saturday",
               at="2026-11-03T08:00:00Z", stream="sms-hana")
    ops = _todo_ops(rules([PICNIC, THERMOS, off]))
    assert [op for op, _ in ops] == ["todo.open", "todo.close"]
    assert ops[1][1] == {"status": "dropped"}


def test_a_to_do_in_another_chat_or_days_away_names_no_plan():
    """The link is the plan's conversation, near a message about it: the same task said in
    another chat, or two days later in the same one, is taken on for nothing named."""
    elsewhere = me("I'll bring a thermos of mulled apple", at="2026-11-02T18:10:00Z",
                   stream="sms-mum")
    later = me("I'll bring the spare tent poles back", at="2026-11-05T09:00:00Z",
               stream="sms-hana")
    for msgs in ([PICNIC, me("Count me in!", at="2026-11-02T18:05:00Z", stream="sms-hana"),
                  elsewhere], [PICNIC, THERMOS, later]):
        opened = [f for op, f in _todo_ops(rules(msgs)) if op == "todo.open"]
        assert opened and "event" not in opened[-1]


def test_a_to_do_minutes_later_that_says_nothing_of_the_plan_names_no_plan():
    """Chat goes on after the plan: a task taken on in a message that says nothing of it
    is not for it, and stays open when the plan is called off."""
    number = me("Dean fixed our boiler twice, I'll send you his number tonight",
                at="2026-11-02T18:20:00Z", stream="sms-hana")
    off = they("Hana", "Ugh, the picnic is cancelled, storm warning for Saturday",
               at="2026-11-03T08:00:00Z", stream="sms-hana")
    ops = _todo_ops(rules([PICNIC, THERMOS, number, off]))
    opened = {f["title"]: f.get("event") for op, f in ops if op == "todo.open"}
    assert opened["Bring a thermos of mulled apple"] == "picnic-hana-2026-11-07"
    assert opened["Send you his number"] is None
    assert [op for op, _ in ops].count("todo.close") == 1


def test_a_to_do_for_a_plan_already_past_names_no_plan():
    done = they("Hana", "Picnic on Parliament Hill was Saturday 31 Oct, so lovely",
                at="2026-11-02T18:00:00Z", stream="sms-hana")
    out = rules([done, THERMOS])
    assert all("event" not in f for _, f in _todo_ops(out))


def test_a_to_do_of_a_called_off_plan_in_an_earlier_run_is_dropped_the_next_day(
        dream, repo, dream_home, tmp_path):
    """Day one: the picnic and the thermos. Day two: Hana calls the picnic off in words
    that share nothing with the thermos; the run is shown the to-do through its link, and
    the to-do is dropped (kept, with the cancelling message as evidence)."""
    dream("init")
    line = _sms("Hana")
    stage(tmp_path, "day1", [
        line("h1", "2026-11-02T18:00:00Z", "Hana",
             "Picnic on Parliament Hill on Saturday 7 Nov at 1pm, you in?"),
        line("h2", "2026-11-02T18:05:00Z", "me",
             "Yes, count me in! I'll bring a thermos of mulled apple")])
    assert run_json(dream, "--model", "rules")["status"] == "ok"
    (todo,) = records(dream_home, "todos").values()
    event_key = todo.get("event")
    assert todo.get("status") == "open" and event_key in records(dream_home, "events")

    stage(tmp_path, "day2", [
        line("h3", "2026-11-05T08:30:00Z", "Hana",
             "Sorry love, the picnic is cancelled, the storm warning is for all of Saturday")])
    assert run_json(dream, "--model", "rules")["status"] == "ok"
    assert records(dream_home, "events")[event_key].get("status") == "cancelled"
    (todo,) = records(dream_home, "todos").values()
    assert todo.get("status") == "dropped"
    assert todo.get("title") == "Bring a thermos of mulled apple"
    assert todo.fields["status"].said_at.startswith("2026-11-05T08:30")
    brief = (dream_home / "notes" / "user" / "brief.md").read_text()
    assert "thermos" not in brief
    # kept where closed to-dos are listed (dream serve's memory page), not lost from view
    app = App.from_env()
    store = app.notes_store()
    listed = memory.list_records(app, store.id, "user", "done", 1)
    assert [r.path for r in listed.rows] == [f"user/todos/{todo.key}.md"]


def test_the_user_dropping_out_drops_the_to_do_they_took_on(dream, repo, dream_home,
                                                            tmp_path):
    dream("init")
    line = _sms("Tariq")
    stage(tmp_path, "day1", [
        line("t1", "2026-11-02T12:00:00Z", "Tariq",
             "Booked Dishoom for Friday 6 Nov at 7.30pm, see you there"),
        line("t2", "2026-11-02T12:04:00Z", "me",
             "Perfect! I'll bring your cricket tickets")])
    run_json(dream, "--model", "rules")
    (todo,) = records(dream_home, "todos").values()
    assert todo.get("event")
    stage(tmp_path, "day2", [
        line("t3", "2026-11-04T17:00:00Z", "me",
             "So sorry Tariq, I have to cancel Dishoom on Friday, my sister is in hospital")])
    run_json(dream, "--model", "rules")
    assert records(dream_home, "events")[todo.get("event")].get("status") == "declined"
    todo = records(dream_home, "todos")[todo.key]
    assert todo.get("status") == "dropped" and todo.get("title") == "Bring your cricket tickets"


def test_a_plan_rebooked_elsewhere_in_the_cancelling_message_keeps_its_to_do():
    """The dinner goes on at another place: the birthday card is still to bring, now for
    the new booking."""
    rows = [{"handle": "R1", "kind": "event", "key": "dinner-nobu-2026-11-06",
             "fields": {"title": "Dinner at Nobu", "activity": "dinner", "date": "2026-11-06",
                        "time": "20:00", "place": "Nobu", "participants": "Jordan",
                        "status": "confirmed"}},
            {"handle": "R2", "kind": "todo", "key": "bring-the-birthday-card",
             "fields": {"title": "Bring the birthday card", "status": "open",
                        "event": "dinner-nobu-2026-11-06"}}]
    out = rules([me("Nobu cancelled our reservation. I booked Zuma instead for Friday at 8pm.",
                    at="2026-11-04T16:40:00Z", stream="sms-jordan")], rows)
    assert not [o for o in out if o["op"] == "todo.close"]
    (moved,) = [o for o in out if o["op"] == "todo.open"]
    assert moved["row"] == "R2" and _fields(moved) == {"event": "dinner-zuma-2026-11-06"}


def test_a_message_naming_a_to_do_by_its_thing_once_is_not_talk_of_the_task():
    """"The plumber's now at 2pm ... the sink cupboard's done, cleared it last night" names
    the open to-do "Clear out the sink cupboard" by one thing ("cupboard"; the verb and its
    particle are no thing): a change in it is the plan's, not the task's. Two of the
    to-do's things ("sink", "cupboard") make it talk of the task."""
    from types import SimpleNamespace

    from dream.detect.plans import PlanReader
    todo = {"handle": "R2", "kind": "todo", "key": "t",
            "fields": {"title": "Clear out the boiler cupboard", "status": "open"}}
    said = "The plumber's now coming at 2pm instead. The cupboard's done, cleared it out."
    reader = PlanReader(rows=[todo], heard=[SimpleNamespace(stream="s", text=said, id="E1")])
    assert not reader._about_task("s", moved=True)
    reader = PlanReader(rows=[todo], heard=[SimpleNamespace(
        stream="s", text="Boiler cupboard: let's say Monday instead", id="E1")])
    assert reader._about_task("s", moved=True)
