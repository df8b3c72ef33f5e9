"""Plans, to-dos and facts from personal streams with the ``rules`` provider, end to end:
four languages, changes as updates, kinds told apart, fields only from the message that
names the plan, names and places read whole, preferences that replace older ones."""

from __future__ import annotations

from test_scenarios import records, run_json, stage

from dream.kinds.records import Record


def msg(n: int, time: str, text: str, author: str = "Alex", role: str = "user",
        stream: str = "chat") -> dict:
    return {"id": f"m{n}", "time": time, "stream": stream, "author": author, "role": role,
            "text": text}


def dream_days(dream, tmp_path, *days: list[dict]) -> None:
    dream("init")
    for n, lines in enumerate(days, 1):
        stage(tmp_path, f"day{n}", lines)
        out = run_json(dream, "--model", "rules")
        assert out["status"] == "ok", out


def live_events(home) -> list[Record]:
    return [e for e in records(home, "events").values()
            if e.get("status") in ("proposed", "confirmed")]


def test_a_german_dinner_a_french_cancellation_and_a_spanish_allergy(dream, repo, dream_home,
                                                                    tmp_path):
    dream_days(dream, tmp_path, [
        msg(1, "2026-03-10T09:00:00Z", "Abendessen mit Lena am Freitag um 19 Uhr im Lokal "
            "Zur Linde, ich habe reserviert."),
        msg(2, "2026-03-10T10:00:00Z", "Rendez-vous chez le dentiste le 20 mars à 9h30.",
            author="Cabinet Dupont", role="other", stream="mail-dupont"),
        msg(3, "2026-03-11T10:00:00Z", "Le rendez-vous chez le dentiste du 20 mars est annulé.",
            author="Cabinet Dupont", role="other", stream="mail-dupont"),
        msg(4, "2026-03-10T11:00:00Z", "Por cierto, soy alérgica a los mariscos.",
            stream="chat-es"),
    ])
    events = records(dream_home, "events")
    dinner = next(e for e in events.values() if e.get("activity") == "dinner")
    assert (dinner.get("date"), dinner.get("time"), dinner.get("status")) == (
        "2026-03-13", "19:00", "confirmed")
    assert dinner.get("place") == "Lokal Zur Linde" and "Lena" in dinner.get("participants")
    dentist = next(e for e in events.values() if "dentist" in e.get("activity"))
    assert dentist.get("date") == "2026-03-20" and dentist.get("status") == "cancelled"
    standing = (dream_home / "notes" / "user" / "standing.md").read_text()
    assert "allergies: mariscos" in standing


def test_a_move_updates_the_plan_and_postponed_to_is_no_cancellation(dream, repo, dream_home,
                                                                     tmp_path):
    dream_days(dream, tmp_path, [
        msg(1, "2026-03-02T09:00:00Z", "Workshop with Sam on 20 March at 9:00 at Hotel Adlon,"
            " booked."),
    ], [
        msg(2, "2026-03-05T18:00:00Z", "Quick update: we now start at 10:00.", author="Sam",
            role="other", stream="sms-sam"),
        msg(3, "2026-03-06T09:00:00Z", "Team lunch with Priya on 12 March at 12:30 at Hoppers,"
            " confirmed.", stream="mail-priya"),
        msg(4, "2026-03-06T12:00:00Z", "The team lunch is postponed to 19 March.",
            author="Priya", role="other", stream="mail-priya"),
    ])
    events = live_events(dream_home)
    workshop = [e for e in events if e.get("activity") == "workshop"]
    assert len(workshop) == 1 and workshop[0].get("time") == "10:00"
    assert workshop[0].get("date") == "2026-03-20"
    lunch = [e for e in events if "lunch" in e.get("activity")]
    assert len(lunch) == 1 and lunch[0].get("date") == "2026-03-19"
    assert lunch[0].get("status") == "confirmed"


def test_a_deadline_a_delivery_and_a_reminder_are_not_plans(dream, repo, dream_home, tmp_path):
    dream_days(dream, tmp_path, [
        msg(1, "2026-03-02T09:00:00Z", "Meeting with Sam on Monday at 10:00 in room Kepler."),
        msg(2, "2026-03-02T09:05:00Z", "The report deadline is Friday at 17:00."),
        msg(3, "2026-03-02T09:10:00Z", "Your parcel will be delivered on Thursday between 9 "
            "and 12.", author="Parcel Service", role="other", stream="mail-parcel"),
        msg(4, "2026-03-02T09:20:00Z", "Your passport expires on 4 June 2026.",
            author="Passport Office", role="other", stream="mail-passport"),
    ])
    events = records(dream_home, "events")
    assert len(events) == 1
    meeting = next(iter(events.values()))
    assert meeting.get("date") == "2026-03-02" and meeting.get("time") == "10:00"


def test_an_unrelated_message_lends_no_field_to_a_plan(dream, repo, dream_home, tmp_path):
    dream_days(dream, tmp_path, [
        msg(1, "2026-03-02T09:00:00Z", "Dinner with Jordan on Friday at 19:00?",
            author="Jordan", role="other", stream="group"),
        msg(2, "2026-03-02T09:20:00Z", "Count me in!", stream="group"),
        msg(3, "2026-03-02T11:30:00Z", "Anyone seen my keys? Left them at the Golden Gym on "
            "Tuesday at 8am", author="Kim", role="other", stream="group"),
    ])
    events = records(dream_home, "events")
    assert len(events) == 1
    dinner = next(iter(events.values()))
    assert dinner.get("date") == "2026-03-06" and dinner.get("time") == "19:00"
    assert not dinner.get("place")


def test_names_and_places_are_read_whole(dream, repo, dream_home, tmp_path):
    dream_days(dream, tmp_path, [
        msg(1, "2026-03-02T09:00:00Z", "Booked a table at Café de Flore for Friday at 20:00 "
            "under the name Schmidt, with Lena."),
        msg(2, "2026-03-02T10:00:00Z", "Anna Maria's birthday is on 14 March!"),
    ])
    dinner = next(iter(records(dream_home, "events").values()))
    assert dinner.get("place") == "Café de Flore"
    assert "Schmidt" not in dinner.get("participants") and "Lena" in dinner.get("participants")
    page = records(dream_home, "wiki")["anna-maria"]
    assert page.get("birthday") == "--03-14"


def test_the_venues_cancellation_mail_attaches_to_the_plan(dream, repo, dream_home, tmp_path):
    dream_days(dream, tmp_path, [
        msg(1, "2026-03-02T09:00:00Z", "Dinner with Sam at Trattoria Da Mario on Saturday at "
            "20:00, booked."),
    ], [
        msg(2, "2026-03-04T09:00:00Z", "We are sorry: your reservation at Da Mario on Saturday"
            " 7 March has been cancelled.", author="Da Mario", role="other",
            stream="mail-damario"),
    ])
    events = records(dream_home, "events")
    assert len(events) == 1
    assert next(iter(events.values())).get("status") == "cancelled"


def test_a_later_preference_replaces_the_older_whatever_its_wording(dream, repo, dream_home,
                                                                    tmp_path):
    dream_days(dream, tmp_path, [
        msg(1, "2026-03-02T09:00:00Z", "I prefer aisle seats on long flights."),
    ], [
        msg(2, "2026-03-20T09:00:00Z", "I prefer window seats on flights."),
    ])
    live = [n.get("text") for n in records(dream_home, "notes").values()
            if n.get("status") == "live"]
    assert live == ["I prefer window seats on flights."]


def test_a_venues_booking_mail_attaches_to_the_plan_made_without_its_place(
        dream, repo, dream_home, tmp_path):
    dream_days(dream, tmp_path, [
        msg(1, "2026-03-02T09:00:00Z", "Dinner with Jordan on Friday 6 March at 19:00?",
            author="Jordan", role="other", stream="sms-jordan"),
        msg(2, "2026-03-02T09:10:00Z", "Yes, see you then!", stream="sms-jordan"),
    ], [
        msg(3, "2026-03-03T08:00:00Z", "Your reservation at Nobu on 6 March at 19:00 is "
            "confirmed. Table for 2.", author="Nobu", role="other", stream="mail-nobu"),
    ])
    events = records(dream_home, "events")
    assert len(events) == 1
    dinner = next(iter(events.values()))
    assert dinner.get("place") == "Nobu" and dinner.get("status") == "confirmed"
