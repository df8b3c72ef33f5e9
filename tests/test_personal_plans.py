"""Plans, to-dos and facts about people from personal streams, read by the ``rules``
provider in English, German, French and Spanish: one table of cases per class, each in
the four languages where the class applies, worded for this file (not taken from any
benchmark scenario). Precision first: the cases that must write nothing are as many as
the ones that must write something."""

from __future__ import annotations

import pytest
from test_rules import _activity, _events, _fields, _row

from dream.models.base import ModelRequest
from dream.models.rules import RulesProvider


def _items(msgs: list[dict]) -> list[dict]:
    out = []
    for n, m in enumerate(msgs, 1):
        out.append({"handle": f"E{n}", "role": m.get("role", "other"),
                    "author": m.get("author"), "kind": "message" if m.get("role") != "user"
                    else "statement", "evidence": True, "text": m["text"],
                    "stream": m.get("stream", "chat"), "source": "jsonl",
                    "said_at": m.get("at", f"2026-05-04T10:{n:02d}:00Z"),
                    "entities": m.get("entities", [])})
    return out


def rules(msgs: list[dict], rows: list[dict] | None = None) -> list[dict]:
    req = ModelRequest("propose", "", "", {}, payload={
        "rows": rows or [], "bundles": [{"id": "B1", "entities": [], "items": _items(msgs)}]})
    return RulesProvider().complete(req).data["ops"]


def events(msgs: list[dict], rows: list[dict] | None = None) -> dict[str, dict[str, str]]:
    return _events(rules(msgs, rows))


def todos(msgs: list[dict], rows: list[dict] | None = None) -> list[dict[str, str]]:
    return [_fields(o) for o in rules(msgs, rows) if o["op"] == "todo.open"]


def me(text: str, **kw: str) -> dict:
    return {"role": "user", "author": "Robin", "entities": ["robin"], "text": text, **kw}


def they(author: str, text: str, **kw: str) -> dict:
    return {"role": "other", "author": author, "text": text, **kw}


# said on Monday 4 May 2026
# -- dates: a weekday with its day number, a range, a time after a weekday ---------------------
@pytest.mark.parametrize("msgs, date, time", [
    ([they("Ola", "Picnic at Tempelhof on Saturday 16th at 13:00, you coming?"),
      me("Yes! Count me in")], "2026-05-16", "13:00"),
    ([they("Jens", "Grillabend bei uns am Samstag, den 16. um 18 Uhr?"), me("Bin dabei!")],
     "2026-05-16", "18:00"),
    ([they("Léa", "Dîner au Bouillon Chartier vendredi 15 à 20h ?"), me("Avec plaisir !")],
     "2026-05-15", "20:00"),
    ([they("Nuria", "¿Cena en Casa Mono el viernes 15 a las 21:30?"), me("¡Me apunto!")],
     "2026-05-15", "21:30"),
    ([they("Ola", "Drinks at the Lamb on Thursday 7pm?"), me("Sounds good, see you there")],
     "2026-05-07", "19:00"),
])
def test_a_weekday_and_its_day_number_name_the_day(msgs, date, time):
    (ev,) = events(msgs).values()
    assert (ev["date"], ev["time"], ev["status"]) == (date, time, "confirmed")


def test_a_trip_over_several_days_starts_on_its_first():
    (ev,) = events([me("Flights booked: Porto 21-27 June, can't wait", stream="sms-kim"),
                    they("Kim", "yay!!", stream="sms-kim")]).values()
    assert ev["date"] == "2026-06-21" and "Porto" in ev["title"]


# -- suggestions are no plans; the user's yes, booking or own plan makes one -------------------
@pytest.mark.parametrize("msgs", [
    [they("Ola", "We should do brunch at Zeit für Brot on Sunday at 11")],
    [they("Jens", "Vielleicht Kino am Freitag um 20 Uhr?")],
    [they("Léa", "On pourrait faire un apéro jeudi à 19h ?")],
    [they("Nuria", "¿Quizás unas cañas el jueves a las 8?")],
])
def test_a_suggestion_nobody_takes_up_writes_nothing(msgs):
    assert events(msgs) == {}


def test_in_a_group_others_agreeing_among_themselves_is_not_the_users_plan():
    group = [they("Ana", "Football in Victoria Park on Saturday at 10, who's in?", stream="g"),
             they("Ben", "in!", stream="g"), they("Cal", "count me in", stream="g"),
             they("Dee", "can't this week", stream="g")]
    assert events(group) == {}
    (ev,) = events(group + [me("me too, see you Saturday", stream="g")]).values()
    assert ev["status"] == "confirmed" and ev["place"] == "Victoria Park"
    assert "Dee" not in ev.get("participants", "")       # dropping out declines nothing


def test_the_users_own_appointment_told_in_passing_is_confirmed():
    ev = events([me("el jueves 7 tengo cita con el dentista a las 10:15, así que llego tarde")])
    (fields,) = ev.values()
    assert fields["activity"] == "dentist appointment" and fields["date"] == "2026-05-07"
    assert fields["time"] == "10:15" and fields["status"] == "confirmed"


def test_a_reason_for_not_coming_starts_no_plan():
    rows = [_row("R1", "dinner-ines", activity="dinner", date="2026-05-05", time="19:00",
                 status="confirmed", participants="Ines")]
    ev = events([me("Ich schaffe morgen 19 Uhr nicht, das Training geht länger. Geht auch 20 "
                    "Uhr?", stream="sms-ines")], rows)
    assert not [k for k in ev if k != "R1"]


# -- moves: the old record is updated, not joined by a second -----------------------------------
@pytest.mark.parametrize("text", [
    "Heads up: the yoga class is moved to Thursday 7 May, same time.",
    "Kleine Änderung: die Yogastunde wird auf Donnerstag, 7. Mai verschoben.",
    "Petit changement : le cours de yoga est reporté au jeudi 7 mai.",
    "Cambio de planes: la clase de yoga queda para el jueves 7 de mayo.",
])
def test_a_moved_plan_updates_its_record(text):
    rows = [_row("R1", "yoga-class", activity="yoga class", date="2026-05-06", time="18:00",
                 status="confirmed", place="Studio Lotus")]
    ev = events([they("Studio Lotus", text, stream="mail-lotus")], rows)
    assert list(ev) == ["R1"] and ev["R1"]["date"] == "2026-05-07"


@pytest.mark.parametrize("text", [
    # the German verb before what moves and where to: "verschieben ... auf"
    "Den Kurs am Mittwoch verschieben wir wegen der Renovierung auf Donnerstag, 7. Mai.",
    "Wir verschieben die Stunde diese Woche auf Donnerstag, 7. Mai.",
    # the Spanish "se traslada al"
    "Aviso: su sesión del miércoles se traslada al jueves 7 de mayo, misma hora.",
])
def test_a_move_in_german_or_spanish_word_order_reaches_the_one_plan_of_its_sender(text):
    rows = [_row("R1", "yoga-class", activity="yoga class", date="2026-05-06", time="18:00",
                 status="confirmed", place="Studio Lotus", participants="Studio Lotus")]
    ev = events([they("Studio Lotus", text, stream="mail-lotus")], rows)
    assert list(ev) == ["R1"] and ev["R1"]["date"] == "2026-05-07"


@pytest.mark.parametrize("text", [
    "Kurze Info: am Mittwoch fällt der Yogakurs wegen Krankheit aus.",
    "Der Yogakurs fällt diese Woche leider aus, ab nächster Woche wieder normal.",
])
def test_a_german_call_off_with_the_plan_inside_the_verb_cancels_it(text):
    """"fällt ... aus" is one verb in two parts around what is called off."""
    rows = [_row("R1", "yoga-class", activity="yoga class", date="2026-05-06", time="18:00",
                 status="confirmed", place="Studio Lotus")]
    ev = events([they("Studio Lotus", text, stream="mail-lotus")], rows)
    assert ev["R1"]["status"] == "cancelled"


@pytest.mark.parametrize("text", [
    "Die Party am Samstag fällt dieses Jahr kleiner aus, nur Familie.",
    "Das Abendessen am Samstag fällt eher klein aus, wir sind nur zu viert.",
    "Der Yogakurs am Mittwoch fällt diesmal kürzer aus, 45 Minuten.",
])
def test_a_german_plan_that_turns_out_some_way_is_not_called_off(text):
    """"fällt ... kleiner aus" says how a plan turns out, not that it is off."""
    rows = [_row("R1", "yoga-class", activity="yoga class", date="2026-05-06", time="18:00",
                 status="confirmed", place="Studio Lotus")]
    ev = events([they("Studio Lotus", text, stream="mail-lotus")], rows)
    assert ev.get("R1", {}).get("status") != "cancelled", ev


def test_a_german_verb_in_two_parts_needs_both_in_one_clause():
    from dream.detect.cues import english_cues

    said = "Das fällt mir schwer, aus Gründen, die du kennst."
    assert english_cues(said) == said


@pytest.mark.parametrize("text, time", [
    ("running late at work, we now start at 7:45 instead", "19:45"),
    ("Tisch ist jetzt um 20:15, passt das?", "20:15"),
    ("On commence maintenant à 19h45, même endroit.", "19:45"),
    ("La cena ahora es a las 22:00, mismo sitio.", "22:00"),
])
def test_a_new_time_said_days_later_reaches_the_one_plan_it_can_be(text, time):
    rows = [_row("R1", "dinner-jo", activity="dinner", date="2026-05-08", time="19:00",
                 status="confirmed", participants="Jo", place="Lokal Eins")]
    ev = events([they("Jo", text, stream="sms-jo", at="2026-05-07T16:00:00Z")], rows)
    assert ev["R1"]["time"] == time


def test_offering_two_slots_is_no_move_and_the_one_chosen_is():
    rows = [_row("R1", "physio", activity="physio appointment", date="2026-05-12",
                 time="09:00", status="confirmed", place="Praxis Nord")]
    msgs = [they("Praxis Nord", "Leider müssen wir Ihren Termin am 12. Mai absagen. Wir "
                 "könnten Ihnen den 14. Mai um 10 Uhr oder den 15. Mai um 8 Uhr anbieten.",
                 stream="mail-praxis"),
            me("Der 14. Mai um 10 Uhr passt mir gut.", stream="mail-praxis")]
    ev = events(msgs, rows)
    assert ev["R1"]["status"] == "cancelled"
    new = [f for k, f in ev.items() if k != "R1"]
    assert [(f["date"], f["time"], f["status"]) for f in new] == \
        [("2026-05-14", "10:00", "confirmed")]


def test_one_message_naming_the_same_kind_twice_on_two_days_is_two_plans():
    """"lunch with Gran on the 9th, and lunch with the book club at Ottolenghi on the
    16th": the second lunch's place and day are its own, not the first lunch's place."""
    ev = events([me("Please note two things: lunch with Gran on Saturday 9 May at 12:30, and "
                    "lunch with the book club at Ottolenghi Islington on Saturday 16 May at "
                    "1pm.", stream="assistant-me")])
    got = sorted((f["date"], f["time"], f.get("place", "")) for f in ev.values())
    assert got == [("2026-05-09", "12:30", ""), ("2026-05-16", "13:00", "Ottolenghi Islington")]


@pytest.mark.parametrize("text", [
    "Notes from our team workshop with Mira on Monday 15 June 2025, 10:00 at the Grand "
    "Hotel: keep the logo, drop the blue.",
    "Fwd: here's what we agreed at the dinner with Mira on Friday 12 December 2025 at 19:00 "
    "at Rosa's.",
])
def test_a_day_already_past_when_it_was_said_is_no_plan(text):
    """A recap of last year's workshop or dinner, sent in May 2026, is what happened, not
    an event to keep."""
    assert events([they("Mira", text, stream="mail-mira", at="2026-05-04T09:00:00Z")]) == {}


# -- replacements: the venue cancels, something else is booked instead ---------------------------
def test_a_venue_cancelling_and_a_new_place_booked_instead():
    rows = [_row("R1", "dinner-rosa", activity="dinner", date="2026-05-09", time="20:00",
                 status="confirmed", place="Trattoria Rosa")]
    msgs = [they("Trattoria Rosa", "We regret that we have to cancel your reservation on "
                 "Saturday 9 May at 20:00; the kitchen is closed until Tuesday 12 May.",
                 stream="mail-rosa"),
            me("Rosa cancelled on us, so I got us a table at Casa Vinho instead, same day, "
               "same time, 8.", stream="sms-jo"),
            they("Jo", "perfect", stream="sms-jo")]
    ev = events(msgs, rows)
    assert ev["R1"]["status"] == "cancelled" and ev["R1"].get("date") in (None, "2026-05-09")
    (new,) = [f for k, f in ev.items() if k != "R1"]
    assert new["place"] == "Casa Vinho" and new["status"] == "confirmed"
    assert (new["date"], new["time"]) == ("2026-05-09", "20:00")


def test_the_user_calling_off_is_a_decline_and_the_venue_confirming_it_keeps_it():
    rows = [_row("R1", "hotel", activity="reservation", date="2026-05-20",
                 status="confirmed", place="Hotel Astra")]
    ev = events([me("Please cancel my reservation for 20 May.", stream="mail-astra"),
                 they("Hotel Astra", "Your reservation for 20 May has been cancelled.",
                      stream="mail-astra")], rows)
    assert ev["R1"]["status"] == "declined"


# -- fields from the message that names the plan, never from a neighbour ------------------------
def test_a_noisy_group_lends_no_date_time_or_place_to_a_plan():
    msgs = [they("Ana", "Housewarming at ours, Gartenstraße 4, on Saturday 9 May from 7pm!",
                 stream="fam"),
            me("We'll be there!", stream="fam"),
            they("Ben", "the recycling pickup moves to Friday 8 May this week", stream="fam"),
            they("Cal", "anyone seen the cat? last seen at the Bäckerei Krume at 6:30",
                 stream="fam"),
            they("Ana", "and bring a jumper, the garden gets cold", stream="fam")]
    (ev,) = events(msgs).values()
    assert (ev["date"], ev["time"], ev["place"]) == ("2026-05-09", "19:00", "Gartenstraße 4")


def test_a_second_activity_in_the_same_mail_is_part_of_the_first():
    msgs = [they("Mia", "The launch party is at the Roof Garden on Friday 8 May, 6.30pm. "
                 "Speeches at 7.15, dancing later.", stream="mail-mia"),
            me("Wouldn't miss it!", stream="mail-mia")]
    (ev,) = events(msgs).values()
    assert (ev["date"], ev["time"], ev["place"]) == ("2026-05-08", "18:30", "Roof Garden")


def test_a_forwarded_mails_own_header_date_is_no_plans_date():
    text = ("Got us two seats for the Nils Frahm concert, Friday 12 June!\n\n"
            "---------- Forwarded message ---------\nFrom: Ticketa <orders@ticketa.example>\n"
            "Date: Mon, 4 May 2026 at 09:12\nSubject: Your order\n\n"
            "Nils Frahm\nFunkhaus Berlin\nFriday 12 June 2026, doors 19:00\n"
            "Tickets can be transferred until 1 June 2026.")
    ev = events([they("Sam", text, stream="mail-sam"), me("Amazing, count me in!",
                                                         stream="mail-sam")])
    dates = {f.get("date") for f in ev.values()}
    assert dates == {"2026-06-12"}


# -- kinds told apart: deadlines and notices are no meetings -----------------------------------
@pytest.mark.parametrize("text", [
    "Reminder: timesheets are due Friday 8 May at 17:00.",
    "Erinnerung: Abgabe der Reisekosten ist Freitag, 8. Mai, 12 Uhr.",
    "Rappel : la date limite pour les notes de frais est le vendredi 8 mai.",
    "Recordatorio: la fecha límite para los gastos es el viernes 8 de mayo.",
    "Your parcel will be delivered on Thursday 7 May between 8 and 12.",
    "Your membership renewal is due on 1 June 2026.",
    "Members' late opening every Friday until 21:00, booking essential.",
])
def test_a_deadline_or_notice_is_no_event(text):
    assert events([they("Office", text, stream="mail-office"),
                   me("ok thanks", stream="mail-office")]) == {}


def test_a_deadline_the_user_takes_on_is_a_to_do_with_its_due_date():
    msgs = [they("Pia", "Hi all, quarterly OKR drafts are due Wednesday 13 May.", stream="team"),
            they("Tom", "mine is half done", stream="team"),
            me("noted, I'll send the design team's draft before Wednesday", stream="team")]
    (todo,) = todos(msgs)
    assert todo["due"] == "2026-05-13" and "OKR" in todo["title"] and "design" in todo["title"]
    assert events(msgs) == {}


# -- names and places -------------------------------------------------------------------------
@pytest.mark.parametrize("text, place", [
    ("Table for 4 booked at The Black Swan Inn on Friday 8 May at 19:30, see you there",
     "The Black Swan Inn"),
    ("Abendessen am Freitag, 8. Mai um 19:30 im Gasthaus Zum Goldenen Hirsch, ist reserviert",
     "Gasthaus Zum Goldenen Hirsch"),
    ("Dîner vendredi 8 mai à 19h30 au Café de la Paix, c'est réservé", "Café de la Paix"),
    ("Cena el viernes 8 de mayo a las 19:30 en el Restaurante Casa Lucio, está reservado",
     "Restaurante Casa Lucio"),
    ("Lunch on Friday 8 May at 12:30, Dishoom in Shoreditch, booked", "Dishoom"),
])
def test_a_place_of_several_words_is_kept_whole(text, place):
    (ev,) = events([me(text)]).values()
    assert ev["place"] == place


@pytest.mark.parametrize("text, booked_as", [
    ("Booked Nopi for Friday 8 May at 19:00 for the four of us, under the name Garcia",
     "Garcia"),
    ("Tisch im Lokal Borchardt am Freitag, 8. Mai um 19 Uhr reserviert, auf den Namen Weber",
     "Weber"),
    ("J'ai réservé au Bistrot Paul Bert vendredi 8 mai à 19h au nom de Martin", "Martin"),
])
def test_a_booking_name_is_no_participant(text, booked_as):
    (ev,) = events([me(text, stream="g"), they("Kim", "yay", stream="g"),
                    they("Lou", "great", stream="g")]).values()
    assert booked_as not in ev.get("participants", "") and ev["status"] == "confirmed"


# -- birthdays and facts about other people go on their page -----------------------------------
@pytest.mark.parametrize("text, person, day", [
    ("Don't forget, Ingrid Olsen's birthday is on 21 May!", "Ingrid Olsen", "--05-21"),
    ("Übrigens hat Konrad am 21. Mai Geburtstag.", "Konrad", "--05-21"),
    ("L'anniversaire de Margaux est le 21 mai, on fait une surprise ?", "Margaux",
     "--05-21"),
    ("el cumple de mi sobrino Mateo es el 21 de mayo", "Mateo", "--05-21"),
    ("Leute, nicht vergessen: Oma wird am 21. Mai 80!!", "Oma", "--05-21"),
    ("Léa aura 30 ans le 21 mai, on fait une surprise ?", "Léa", "--05-21"),
    ("Javi cumple 40 el 21 de mayo", "Javi", "--05-21"),
])
def test_a_birthday_is_a_date_on_the_persons_page(text, person, day):
    pages = [_fields(o) for o in rules([they("Tante Bea", text)]) if o["op"] == "wiki.fill"]
    assert {"name": person, "birthday": day} in pages


def test_a_number_that_is_no_age_on_a_day_is_no_birthday():
    assert not [o for o in rules([they("Ola", "Das Wetter wird morgen 25 Grad")])
                if o["op"] == "wiki.fill"]


def test_a_birthday_keeps_a_year_only_when_one_is_said():
    pages = [_fields(o) for o in rules([they("Ola", "Leo's birthday is 3 May 1990, a Thursday"),
                                        they("Ola", "Mia's birthday is on 4 May")])
             if o["op"] == "wiki.fill"]
    assert {"name": "Leo", "birthday": "1990-05-03"} in pages
    assert {"name": "Mia", "birthday": "--05-04"} in pages


@pytest.mark.parametrize("text, person, allergy", [
    ("heads up, Tomasz is allergic to sesame", "Tomasz", "sesame"),
    ("Achtung, Jürgen ist allergisch gegen Nüsse.", "Jürgen", "Nüsse"),
    ("Attention, Éloïse est allergique aux arachides.", "Éloïse", "arachides"),
    ("Ojo, Begoña es alérgica a las gambas.", "Begoña", "gambas"),
])
def test_an_allergy_of_someone_else_is_on_their_page(text, person, allergy):
    pages = [_fields(o) for o in rules([they("Ola", text)]) if o["op"] == "wiki.fill"]
    assert {"name": person, "allergies": allergy} in pages


# -- to-dos the user takes on -----------------------------------------------------------------
@pytest.mark.parametrize("msgs, word", [
    ([they("Ana", "BBQ on Saturday, can someone bring a cool box?", stream="g"),
      they("Ben", "not me, no car", stream="g"), me("I'll bring one", stream="g")], "cool box"),
    ([me("I'll book the ferry tickets tonight")], "ferry"),
    ([me("Je m'occupe des boissons pour samedi.")], "boissons"),
    ([me("Yo llevo la tortilla el sábado.")], "tortilla"),
    ([me("Ich besorge die Getränke für Samstag.")], "Getränke"),
])
def test_a_task_the_user_takes_on_is_a_to_do(msgs, word):
    (todo,) = todos(msgs)
    assert word in todo["title"]


@pytest.mark.parametrize("msgs", [
    [they("Ben", "I'll bring the speakers", stream="g"), they("Cal", "ok", stream="g"),
     they("Dee", "nice", stream="g")],
    [me("I'll be there around 8")],
    [me("I'll bring Jo along if that's ok")],
    [they("Ana", "BBQ on Saturday, can someone bring a cool box?", stream="g"),
     they("Ben", "sure, I'll bring one", stream="g"), they("Cal", "great", stream="g")],
])
def test_no_to_do_for_others_commitments_or_for_company(msgs):
    assert todos(msgs) == []


@pytest.mark.parametrize("done", ["Bike pump: ✅", "Die Fahrradpumpe ist erledigt.",
                                  "La pompe à vélo, c'est fait.", "Lo de la bomba: listo."])
def test_a_done_mark_closes_the_to_do(done):
    rows = [{"handle": "R1", "kind": "todo", "key": "bike-pump",
             "fields": {"title": "Bring the bike pump", "status": "open"}}]
    closed = [o for o in rules([me("Bring the bike pump " + done)], rows)
              if o["op"] == "todo.close"]
    assert closed and closed[0]["row"] == "R1"


# -- preferences: a habit taken up again replaces the older "no more" ---------------------------
def test_a_habit_taken_up_again_crumples_the_older_no_more():
    rows = [{"handle": "R1", "kind": "note", "key": "no-coffee",
             "fields": {"text": "No caffeine for me: I don't drink coffee any more, herbal tea "
                                "only.", "type": "preference", "status": "live"}}]
    ops = rules([me("ok the herbal phase is done, I'm back on coffee, a cortado every morning",
                    stream="assistant")], rows)
    assert [o["row"] for o in ops if o["op"] == "note.crumple"] == ["R1"]


def test_a_reply_offering_slots_moves_nothing_and_a_reply_subject_is_no_news():
    rows = [_row("R1", "fitting", activity="fitting", date="2026-05-11", time="10:00",
                 status="confirmed", participants="Atelier Vogt")]
    msgs = [they("Atelier Vogt", "Subject: Re: Your fitting on 11 May\n\nWe could also do "
                 "Wednesday 13 May at 9:00 or Thursday 14 May at 16:00, let me know which.",
                 stream="mail-vogt")]
    assert events(msgs, rows) == {}


# -- one flow in four languages: a meet-up proposed, agreed, moved, called off -----------------
FLOWS = {
    "en": ["Shall we meet at Café Mirabelle on Saturday at 3pm?", "Yes, perfect!",
           "Could we make it 4pm instead? Same place.", "Sure, 4pm it is.",
           "Sorry, I have to call it off, my sister is ill."],
    "de": ["Treffen wir uns am Samstag um 15 Uhr im Café Mirabelle?", "Ja, super, bin dabei!",
           "Können wir stattdessen um 16 Uhr? Gleicher Ort.", "Klar, 16 Uhr passt.",
           "Sorry, ich muss leider absagen, meine Schwester ist krank."],
    "fr": ["On se retrouve samedi à 15h au Café Mirabelle ?", "Oui, carrément !",
           "On peut plutôt dire 16h ? Même endroit.", "Ça marche, 16h.",
           "Désolé, je dois annuler, ma sœur est malade."],
    "es": ["¿Quedamos el sábado a las 15:00 en el Café Mirabelle?", "¡Sí, genial!",
           "¿Mejor a las 16:00? Mismo sitio.", "Vale, a las 16:00.",
           "Lo siento, tengo que cancelar, mi hermana está enferma."],
}


@pytest.mark.parametrize("lang", sorted(FLOWS))
def test_a_meet_up_agreed_then_moved_then_called_off(lang):
    ask, yes, move, agree, off = FLOWS[lang]
    day1 = [they("Noa", ask, stream="sms-noa"), me(yes, stream="sms-noa")]
    (first,) = events(day1).values()
    assert (first["date"], first["time"], first["status"]) == ("2026-05-09", "15:00",
                                                               "confirmed")
    assert first["place"] == "Café Mirabelle"
    row = _row("R1", "meetup", **{k: v for k, v in first.items() if k != "title"})
    moved = events([they("Noa", move, stream="sms-noa", at="2026-05-06T09:00:00Z"),
                    me(agree, stream="sms-noa", at="2026-05-06T09:05:00Z")], [row])
    assert list(moved) == ["R1"] and moved["R1"]["time"] == "16:00"
    off_ = events([they("Noa", "🙂", stream="sms-noa", at="2026-05-08T17:00:00Z"),
                   me(off, stream="sms-noa", at="2026-05-08T18:00:00Z")], [row])
    assert off_["R1"]["status"] == "declined"


@pytest.mark.parametrize("text, day, time", [
    ("Ihre Reservierung für Samstag, 16. Mai 2026 um 19:30 Uhr ist bestätigt.", "2026-05-16",
     "19:30"),
    ("Votre réservation pour le samedi 16 mai 2026 à 19h30 est confirmée.", "2026-05-16",
     "19:30"),
    ("Su reserva para el sábado 16 de mayo de 2026 a las 19:30 está confirmada.",
     "2026-05-16", "19:30"),
])
def test_a_venues_booking_mail_in_its_language_is_a_confirmed_booking(text, day, time):
    (ev,) = events([they("Osteria Lupa", text, stream="mail-lupa")]).values()
    assert (ev["date"], ev["time"], ev["status"]) == (day, time, "confirmed")


@pytest.mark.parametrize("text, time", [
    ("Cena el viernes a las ocho y media en casa de Inés, ¿te apuntas?", "20:30"),
    ("Abendessen am Freitag um halb acht bei Jonas?", "19:30"),
    ("Dîner vendredi à huit heures chez Inès ?", "20:00"),
])
def test_an_hour_in_words(text, time):
    (ev,) = events([they("Inés", text, stream="sms"), me("👍 yes!", stream="sms")]).values()
    assert ev["time"] == time


# -- English wordings of yes, changes, to-dos and facts ------------------------------------------
@pytest.mark.parametrize("reply", ["Friday at six is fine, thanks!", "Perfect, 6pm works.",
                                   "Yes please, I'm up for it.", "That suits me."])
def test_more_ways_to_say_yes(reply):
    (ev,) = events([they("Ama", "Pottery class at Clay Corner on Friday 15 May at 18:00?",
                         stream="sms-ama"), me(reply, stream="sms-ama")]).values()
    assert ev["status"] == "confirmed" and ev["date"] == "2026-05-15"


def test_a_date_in_may_is_no_maybe():
    (ev,) = events([they("Clinic Nord", "Your vaccination is on Tuesday 19 May 2026 at 08:40.",
                         stream="mail-clinic")]).values()
    assert ev["status"] == "confirmed"


def test_make_it_somewhere_else_instead_moves_the_place():
    rows = [_row("R1", "coffee-ama", activity="coffee", date="2026-05-15", time="15:00",
                 status="confirmed", place="Café Ritter", participants="Ama")]
    ev = events([they("Ama", "Ritter is shut that week. Let's make it Kaffeebar Süd instead, "
                      "same time.", stream="sms-ama")], rows)
    assert ev["R1"]["place"] == "Kaffeebar Süd"


@pytest.mark.parametrize("text, word", [
    ("Don't let me forget to return Ama's ladder.", "ladder"),
    ("Can you keep track of this: renew the bike insurance.", "insurance"),
])
def test_more_ways_to_ask_for_a_to_do(text, word):
    (todo,) = todos([me(text, stream="assistant")])
    assert word in todo["title"]


def test_a_standing_fact_is_not_also_a_note():
    ops = rules([me("Since April I'm working at Fernweh Reisen, please remember my new "
                    "employer.", stream="assistant")])
    assert [o["op"] for o in ops] == ["standing.set"]


def test_a_thing_given_back_closes_the_to_do_when_its_owner_says_they_got_it():
    rows = [{"handle": "R1", "kind": "todo", "key": "ladder",
             "fields": {"title": "Return Ama's ladder", "status": "open"}}]
    closed = [o for o in rules([they("Ama", "Got the ladder back, thanks!", stream="sms-ama")],
                               rows) if o["op"] == "todo.close"]
    assert closed and closed[0]["row"] == "R1"


# -- things that must never become a live event, in four languages -----------------------------
@pytest.mark.parametrize("author, text", [
    ("DHL", "Ihr Paket wird am Donnerstag, 7. Mai zwischen 10 und 14 Uhr zugestellt."),
    ("Colissimo", "Votre colis sera livré le jeudi 7 mai entre 10h et 14h."),
    ("Correos", "Su paquete llegará el jueves 7 de mayo entre las 10:00 y las 14:00."),
    ("Stadtwerke", "Ihre Rechnung ist bis zum 15. Mai fällig."),
    ("Agence", "Le loyer est à régler avant le vendredi 8 mai."),
    ("Banco", "La fecha límite para el pago es el viernes 8 de mayo."),
    ("Lisa", "Gestern waren wir im Kino, der Film war super."),
    ("Paul", "Hier on a dîné chez Marc, c'était top."),
    ("Ana", "Ayer cenamos en Casa Mono, ¡qué rico!"),
    ("Oma", "Opa hat morgen um 10 Uhr einen Termin beim Zahnarzt, Papa fährt ihn."),
    ("Kulturhaus", "Sommerfest am Samstag, 20. Juni ab 14 Uhr – jetzt Tickets sichern! "
     "Newsletter abbestellen"),
    ("Musée", "Nocturne tous les jeudis jusqu'à 21h, réservation conseillée."),
])
def test_notices_deadlines_stories_and_others_appointments_are_no_event(author, text):
    msgs = [they(author, text, stream="s"), they("Zoe", "ok", stream="s"),
            me("ok, thanks", stream="s")]
    assert events(msgs) == {}


@pytest.mark.parametrize("text", [
    "Oma's dentist is at 10:30 tomorrow, Dad will drive her",
    "Opa hat morgen um 10 Uhr einen Termin beim Zahnarzt.",
    "Mia has her swimming lesson on Friday at 16:00, can you pick her up after?",
])
def test_someone_elses_appointment_is_no_plan_of_the_users(text):
    assert events([they("Mum", text, stream="fam"), me("Super!", stream="fam")]) == {}


def test_a_salons_confirmation_then_its_move_in_french():
    first = events([they("Salon Lumière", "Nous avons le plaisir de vous confirmer votre "
                         "rendez-vous coiffure le mercredi 13 mai 2026 à 17h15 avec Julie.",
                         stream="mail-salon")])
    (ev,) = first.values()
    assert (ev["date"], ev["time"], ev["status"]) == ("2026-05-13", "17:15", "confirmed")
    row = _row("R1", "salon", **{k: v for k, v in ev.items() if k != "title"})
    moved = events([they("Salon Lumière", "Julie étant absente mercredi, votre rendez-vous est "
                         "déplacé au jeudi 14 mai 2026 à 17h15.", stream="mail-salon2",
                         at="2026-05-11T08:00:00Z")], [row])
    assert list(moved) == ["R1"] and moved["R1"]["date"] == "2026-05-14"


def test_a_group_dinner_in_spanish_booked_then_cancelled_by_the_venue():
    g = "telegram-amigas"
    day1 = [they("Carmen", "¿Hacemos una cena el sábado 9 en La Tasquita a las 21:30? Yo "
                 "reservo", stream=g, at="2026-05-04T18:00:00Z"),
            me("¡Me apunto! Yo llevo el vino", stream=g, at="2026-05-04T18:05:00Z"),
            they("Rocío", "Yo no puedo, tengo boda en Sevilla 😢", stream=g,
                 at="2026-05-04T18:20:00Z")]
    (ev,) = events(day1).values()
    assert (ev["date"], ev["time"], ev["place"], ev["status"]) == (
        "2026-05-09", "21:30", "La Tasquita", "confirmed")
    assert "Rocío" not in ev.get("participants", "")
    assert [t["title"] for t in todos(day1)] == ["Yo llevo el vino"]
    row = _row("R1", "cena", **{k: v for k, v in ev.items() if k != "title"})
    off = events([they("Carmen", "Chicas, la cena del sábado se cancela, cierran por obras.",
                       stream=g, at="2026-05-08T10:00:00Z")], [row])
    assert off["R1"]["status"] == "cancelled"


def test_a_later_time_in_the_message_that_moved_a_plan_is_no_new_time():
    rows = [_row("R1", "lunch", activity="lunch", date="2026-05-05", time="12:30",
                 status="confirmed", place="Pho Hanoi", participants="Tom")]
    ev = events([they("Tom", "lunch moved to 13:00, they were full at 12:30", stream="g",
                      at="2026-05-05T11:00:00Z")], rows)
    assert ev["R1"]["time"] == "13:00"


def test_someone_telling_their_own_birthday_fills_their_page():
    pages = [_fields(o) for o in rules([they("Tom Berger", "btw my birthday is on the 20th, "
                                             "cake at 3 🎂")]) if o["op"] == "wiki.fill"]
    assert {"name": "Tom Berger", "birthday": "--05-20"} in pages


@pytest.mark.parametrize("ask, take, word", [
    ("Quelqu'un peut prendre la trousse de secours ?", "Je la prends", "trousse"),
    ("¿Alguien puede traer hielo?", "Lo llevo yo", "hielo"),
    ("Kann jemand die Luftmatratze mitbringen?", "Bringe ich mit!", "Luftmatratze"),
])
def test_a_request_to_the_group_taken_on_with_a_pronoun(ask, take, word):
    msgs = [they("Inès", ask, stream="g"), they("Théo", "pas moi", stream="g"),
            me(take, stream="g")]
    (todo,) = todos(msgs)
    assert word in todo["title"]


# -- a correction that was applied to a record is that record's change, not also a note --------
def _notes(ops: list[dict]) -> list[str]:
    return [_fields(o)["text"] for o in ops if o["op"] == "note.add"]


@pytest.mark.parametrize("fix, field, value", [
    ("No, that's wrong: the pottery class is on Wednesday at 18:00.", "time", "18:00"),
    ("Nein, falsch: der Elternabend ist am Mittwoch um 19 Uhr.", "time", "19:00"),
    ("Non, c'est faux : le dîner chez Paul est jeudi à 20h.", "date", "2026-05-07"),
])
def test_a_correction_applied_to_a_plan_stays_no_note(fix, field, value):
    rows = [_row("R1", "pottery", activity="pottery class", date="2026-05-05", time="17:00",
                 status="confirmed", participants="Mara"),
            _row("R2", "elternabend", activity="parent-teacher meeting", date="2026-05-06",
                 time="18:00", status="confirmed"),
            _row("R3", "diner-paul", activity="dinner", date="2026-05-08", time="20:00",
                 place="Paul", status="confirmed", participants="Paul")]
    ops = rules([me("When is it again?", stream="assistant"),
                 {"role": "assistant", "author": "assistant", "text": "It is on Tuesday at "
                  "17:00.", "stream": "assistant"},
                 me(fix, stream="assistant")], rows)
    assert any(v.get(field) == value for v in _events(ops).values())
    assert _notes(ops) == []


def test_a_correction_nothing_was_changed_by_stays_a_note():
    ops = rules([me("Book me something for the weekend", stream="assistant"),
                 {"role": "assistant", "author": "assistant", "text": "I booked the hostel "
                  "in the centre.", "stream": "assistant"},
                 me("No, that's wrong: I never stay in hostels, always a hotel with a gym.",
                    stream="assistant")])
    assert _events(ops) == {}
    assert _notes(ops) == ["No, that's wrong: I never stay in hostels, always a hotel with a "
                           "gym."]


# -- changes: a move names its new day, a replacement takes the day of what it replaces ------
def test_a_move_naming_two_weekdays_takes_the_new_one():
    rows = [_row("R1", "cena", activity="dinner", date="2026-05-15", time="21:30",
                 place="Casa Lucio", status="confirmed", participants="Pablo")]
    ops = rules([they("Pablo", "Cambio de planes: el viernes 15 está cerrado, así que la cena "
                      "pasa al jueves 14, misma hora", stream="t"),
                 me("Sin problema, el jueves me va bien", stream="t")], rows)
    assert _events(ops)["R1"]["date"] == "2026-05-14"


def test_a_trip_shifted_to_bare_day_numbers_stays_in_its_month():
    rows = [_row("R1", "cabin", activity="trip", date="2026-08-14", place="Low Wray",
                 status="confirmed", participants="Priya")]
    ops = rules([they("Priya", "the host double booked us, we've been shifted to the "
                      "following weekend, 21st–23rd, same cabin", stream="p"),
                 me("annoying but fine, 21st works", stream="p")], rows)
    assert _events(ops)["R1"]["date"] == "2026-08-21"


def test_a_range_with_weekdays_starts_on_its_first_day():
    (ev,) = events([me("Booked the cabin at Low Wray for Fri 14th–Sun 16th August 🏞️",
                       stream="p"), they("Priya", "yay", stream="p")]).values()
    assert ev["date"] == "2026-08-14"


def test_a_table_booked_instead_by_a_friend_in_a_group_replaces_the_cancelled_dinner():
    rows = [_row("R1", "dinner-rovi", activity="dinner", date="2026-05-16", time="19:30",
                 place="Rovi", status="confirmed", participants="Zoe")]
    msgs = [they("Rovi Reservations", "We are very sorry, but we have to close on Saturday "
                 "and your reservation has been cancelled.", stream="mail"),
            they("Marcus", "sorted it – got us a table at Berenjak in Soho instead, same time "
                 "7:30, under my name", stream="flat"),
            they("Zoe", "even better", stream="flat"), me("you're a hero", stream="flat")]
    evs = _events(rules(msgs, rows))
    assert evs["R1"]["status"] == "cancelled"
    (new,) = [v for k, v in evs.items() if k != "R1"]
    assert (new["place"], new["date"], new["time"], new["status"]) == \
        ("Berenjak", "2026-05-16", "19:30", "confirmed")


def test_a_bare_hour_said_later_is_read_near_the_plans_time():
    rows = [_row("R1", "long-run", activity="long run", date="2026-05-10", time="08:00",
                 place="Victoria Park", status="confirmed", participants="Dev")]
    ops = rules([they("Dev", "it's going to be 31° so we now start at 7:00 instead, same "
                      "spot", stream="t"), me("👍 see you at 7", stream="t")], rows)
    assert _events(ops)["R1"]["time"] == "07:00"


@pytest.mark.parametrize("text", [
    "Garden party Sat 9th May 11am at the community orchard, bring a chair",
    "Street party on Sunday the 10th, 2pm, outside number 6",
])
def test_a_day_number_is_no_bare_hour_of_an_evening_kind(text):
    """"Sat 9th" or "number 6" is a day or a house, not an hour written without am/pm:
    the party's "11am" stays in the morning, "2pm" in the afternoon."""
    (ev,) = events([they("Pat", text, stream="street"), me("Count me in!", stream="street")]
                   ).values()
    assert ev["time"] == ("11:00" if "11am" in text else "14:00")


def test_a_bare_day_number_of_a_plan_months_ahead_is_that_plans_day():
    """Said in May about a recital on Saturday 20 June, "on the 20th" is the recital's
    day, not 20 May: it neither moves the recital nor stops the new day after it."""
    rows = [_row("R1", "recital-guildhall", activity="recital", date="2026-06-20",
                 time="15:00", place="Guildhall", participants="Priya", status="confirmed")]
    said = "Small hitch: the organist is double booked on the 20th"
    ev = _events(rules([they("Priya", said + ", so it's now Saturday 27th June at 4pm",
                             stream="g")], rows))["R1"]
    assert (ev["date"], ev["time"]) == ("2026-06-27", "16:00")
    ev = _events(rules([they("Priya", said, stream="g")], rows)).get("R1", {})
    assert ev.get("date", "2026-06-20") == "2026-06-20"


@pytest.mark.parametrize("text", [
    "Subject: Cancellation confirmed\n\nDear Robin,\n\nYour boiler service on Tuesday "
    "12 May at 09:30 is no longer in our diary. Thank you for letting us know.",
    "We confirm the cancellation of your boiler service on Tuesday 12 May.",
])
def test_a_confirmed_cancellation_calls_the_booking_off(text):
    """"Cancellation confirmed" confirms the calling off, not the booking: the service
    booked is cancelled, not confirmed again."""
    rows = [_row("R1", "boiler-service", activity="boiler service", date="2026-05-12",
                 time="09:30", participants="HeatWise", status="confirmed")]
    ev = _events(rules([they("HeatWise", text, stream="mail:heatwise")], rows))["R1"]
    assert ev["status"] == "cancelled"


@pytest.mark.parametrize("msgs", [
    [they("Nina", "Table for 4 booked at Luigi's for 8pm 🍝", stream="n"),
     me("Great, see you there!", stream="n")],
    [they("Jonas", "Tisch im Adler ist reserviert, für 20 Uhr 🍝", stream="n"),
     me("Super, bis dann!", stream="n")],
    [they("Léa", "J'ai réservé au Bouillon Chartier pour 20h !", stream="n"),
     me("Parfait, à tout à l'heure", stream="n")],
])
def test_a_plan_with_a_time_and_no_day_is_no_event_yet(msgs):
    """A booking told with its hour and no day places nothing on a calendar: written
    live it would be a dinner on no date; the day said later makes it an event."""
    assert events(msgs) == {}


@pytest.mark.parametrize("sender, text", [
    ("news@riverside-climbing.example",
     "Subject: Winter social\n\nOur members' winter social is on Friday 11 December at 7pm "
     "in the café, with a bouldering comp for all levels. Bring a friend!"),
    ("newsletter@atelier-terre.example",
     "Subject: Journée découverte\n\nAtelier découverte le samedi 9 janvier 2027 de 14h à "
     "17h : initiation au tour gratuite. Parlez-en autour de vous !"),
])
def test_a_mailing_from_a_newsletter_address_starts_no_plan(sender, text):
    """A mail from a newsletter or news address tells every subscriber of its dates: the
    user is in none of them until they say so."""
    assert events([they("Riverside", text, stream="mail:nl",
                        entities=[sender, "riverside", "robin@example.org"])]) == {}


def test_a_bare_day_number_of_another_kind_of_plan_is_the_next_such_day():
    """A recital is stored on 8 June; "dinner at Rovi on the 8th", said on 4 May, is the
    coming 8th: the recital's day is not every plan's 8th."""
    rows = [_row("R1", "recital-guildhall", activity="recital", date="2026-06-08",
                 time="15:00", place="Guildhall", participants="Priya", status="confirmed")]
    evs = events([they("Sam", "Dinner at Rovi on the 8th at 7? Booked it already", stream="s"),
                  me("Perfect, see you there", stream="s")], rows)
    (dinner,) = [e for k, e in evs.items() if k != "R1"]
    assert dinner["date"] == "2026-05-08"


def test_a_class_of_tomorrow_called_off_in_french_is_the_class_booked():
    rows = [_row("R1", "poterie", activity="poterie class", date="2026-05-06", time="19:00",
                 status="confirmed", participants="Atelier Terre")]
    ops = rules([they("Atelier Terre", "Le four est en panne, le cours de demain soir est "
                      "annulé.", stream="sms", at="2026-05-05T16:00:00Z")], rows)
    assert _events(ops)["R1"]["status"] == "cancelled"


def test_the_users_own_appointment_in_german_with_a_possessive_is_a_plan():
    (ev,) = events([they("Mama", "Papa hat am Dienstag um 9 den Termin beim Augenarzt", stream="f"),
                    they("Jan", "Gute Besserung", stream="f"),
                    me("Ich hab Donnerstag um 16:30 meinen Friseurtermin bei Salon Kamm, falls "
                       "jemand was von mir will", stream="f")]).values()
    assert (ev["activity"], ev["date"], ev["time"]) == ("haircut", "2026-05-07", "16:30")


def test_a_pub_whose_name_ends_in_a_date_word_keeps_its_whole_name():
    (ev,) = events([they("Tomás", "farewell drinks on Friday at The Old Blue Last from 6pm",
                         stream="s"), me("Wouldn't miss it!", stream="s")]).values()
    assert ev["place"] == "The Old Blue Last"


def test_a_booking_elsewhere_instead_calls_off_the_live_one_in_french():
    rows = [_row("R1", "diner-cantine", activity="dinner", date="2026-05-09", time="20:00",
                 place="La Cantine du Troquet", status="confirmed", participants="Inès")]
    msgs = [they("Inès", "Bon, La Cantine du Troquet m'a rappelée, ils ferment samedi 😤",
                 stream="g"),
            they("Inès", "Du coup j'ai réservé au Petit Cambodge à la place, même heure 20h",
                 stream="g"),
            me("Parfait !", stream="g"), they("Aurélie", "Top", stream="g")]
    evs = _events(rules(msgs, rows))
    assert evs["R1"]["status"] == "cancelled"
    (new,) = [v for k, v in evs.items() if k != "R1"]
    assert (new["place"], new["date"], new["status"]) == ("Petit Cambodge", "2026-05-09",
                                                          "confirmed")


def test_a_hyphenated_first_name_is_one_page():
    pages = [_fields(o) for o in rules([they("Grace", "fun fact, Anna-Lena's birthday is 2 "
                                             "August")]) if o["op"] == "wiki.fill"]
    assert pages == [{"name": "Anna-Lena", "birthday": "--08-02"}]


def test_the_user_saying_they_will_miss_a_gig_declines_it_and_moves_nothing():
    rows = [_row("R1", "fontaines", activity="concert", date="2026-05-21", time="19:00",
                 place="Alexandra Palace", status="confirmed", participants="Dan")]
    ops = rules([they("Dan", "ready for Thursday?? 🎸", stream="sms-dan"),
                 me("mate I'm gutted, work needs me that week so I'll miss Fontaines D.C. "
                    "on Thursday 😩", stream="sms-dan"),
                 they("Dan", "nooo. ok", stream="sms-dan")], rows)
    ev = _events(ops)["R1"]
    assert ev["status"] == "declined" and "date" not in ev and "place" not in ev


def test_a_band_with_initials_stays_one_clause():
    (ev,) = events([they("Dan", "Got 2 tickets for Fontaines D.C. at Alexandra Palace on "
                         "Thursday 21st, doors 7pm. You in?", stream="sms-dan"),
                    me("obviously!!", stream="sms-dan")]).values()
    assert (ev["date"], ev["time"], ev["status"]) == ("2026-05-21", "19:00", "confirmed")


def test_a_day_after_booked_is_no_place_and_cant_wait_says_yes():
    msgs = [they("Femi", "dinner Saturday? I'll book Padella in Borough for 7:30", stream="g"),
            they("Sophie", "Saturday works for me", stream="g"),
            they("Femi", "booked ✅ Sat 7:30 Padella", stream="g"),
            me("🙌 can't wait", stream="g")]
    (ev,) = events(msgs).values()
    assert (ev["place"], ev["time"], ev["status"]) == ("Padella", "19:30", "confirmed")


def test_a_german_compound_ending_in_meeting_is_a_meeting():
    (ev,) = events([they("Katrin", "Unser Quartalsmeeting ist am Mittwoch, 6. Mai, um 10 Uhr "
                         "im Raum Elbe.", stream="s"), me("Passt, bin dabei", stream="s")]).values()
    assert ev["activity"] == "quartals meeting" and ev["time"] == "10:00"


def test_where_someone_moved_is_the_place_without_when():
    pages = [_fields(o) for o in rules([me("Update: Rita moved to Porto last month.",
                                           stream="assistant")]) if o["op"] == "wiki.fill"]
    assert {"name": "Rita", "home": "Porto"} in pages


# -- a business's mail: its contact lines are no plan or to-do; its own words confirm ----------
def test_a_business_mails_contact_lines_are_no_call_and_no_to_do():
    ops = rules([they("Harbour Dental", "Your check-up on Thursday 14 May at 09:40 is "
                      "confirmed.\nTo change or cancel, call 0161 496 0733 at least 24 hours "
                      "ahead.\nNeed to change? Reply to this email."),
                 they("Harbour Dental", "Please call us on 0161 496 0733 to arrange a new "
                      "appointment.")])
    evs = _events(ops)
    assert [e["date"] for e in evs.values()] == ["2026-05-14"]
    assert all(e.get("status") == "confirmed" and e.get("activity") != "call"
               for e in evs.values())
    assert not [o for o in ops if o["op"] == "todo.open"]


def test_a_clinics_confirmation_then_its_cancellation_of_your_appointment():
    first = events([they("Paws Clinic", "This confirms Rex's appointment:\nDate: Tuesday 12 "
                         "May 2026\nTime: 16:20\nReason: yearly check-up")])
    (key, ev), = first.items()
    assert ev["status"] == "confirmed" and ev["date"] == "2026-05-12"
    row = _row("R1", key, **ev)
    later = events([they("Paws Clinic", "We're sorry: the vet is unwell and we have had to "
                         "cancel Rex's appointment on Tuesday 12 May at 16:20.",
                         at="2026-05-11T08:00:00Z")], [row])
    assert later == {"R1": {"status": "cancelled"}} or later["R1"]["status"] == "cancelled"


def test_a_salon_moving_your_appointment_moves_the_booking_and_off_sick_cancels_nothing():
    row = _row("R1", "reservation-studio-nine-2026-05-14", activity="reservation",
               date="2026-05-14", time="17:45", place="Studio Nine",
               participants="Studio Nine", status="confirmed")
    evs = events([they("Studio Nine", "Your appointment has moved\n\nAaron is off sick on "
                       "Thursday, so we've moved your appointment to Friday 15 May 2026, "
                       "same time (17:45), with Aaron.", at="2026-05-11T09:30:00Z")], [row])
    assert list(evs) == ["R1"] and evs["R1"]["date"] == "2026-05-15"
    assert evs["R1"].get("status") != "cancelled"


# -- a yes held back is no yes: the plan stays a suggestion -----------------------------------
@pytest.mark.parametrize("ask, reply", [
    ("Lunch at Dishoom on Friday at 1?", "Happy to in principle, but I don't know my "
     "schedule yet. I'll let you know!"),
    ("Mittagessen im Café Lotte am Freitag um 13 Uhr?", "Im Prinzip gerne, aber ich weiß "
     "noch nicht, wann die Schulung endet. Ich sag dir Bescheid!"),
    ("On pourrait déjeuner ensemble vendredi midi, au Café Marly ?", "Avec plaisir en "
     "principe, mais je ne connais pas encore le programme. Je te redis !"),
    ("¿Comemos en Casa Dani el viernes a las 14:00?", "En principio me apunto, pero aún no "
     "sé si salgo pronto. Te digo algo."),
])
def test_a_yes_held_back_writes_no_plan(ask, reply):
    assert events([they("Camille", ask), me(reply)]) == {} or all(
        e.get("status") != "confirmed" for e in events([they("Camille", ask), me(reply)]).values())


# -- "13:00, not 12:30": the old value names the plan it corrects -----------------------------
@pytest.mark.parametrize("who, text, time", [
    ("Robin", "Change: the restaurant called, we're on at 13:00 on Saturday, not 12:30!",
     "13:00"),
    ("Anna", "Korrektur: nicht 12:30, sondern 13:15 - die Krone hat erst dann Platz", "13:15"),
    ("SNCF", "Nouveau départ : 13:04 (au lieu de 12:30)", "13:04"),
    ("Carmen", "Ojo, la comida es a las 14:00 y no a las 12:30", "14:00"),
])
def test_a_time_said_with_the_one_it_replaces_corrects_the_plan_that_had_it(who, text, time):
    row = _row("R1", "lunch-krone-2026-05-09", activity="lunch", date="2026-05-09",
               time="12:30", place="Krone", status="confirmed")
    other = _row("R2", "dinner-rovi-2026-05-09", activity="dinner", date="2026-05-09",
                 time="19:30", place="Rovi", status="confirmed")
    msg = me(text) if who == "Robin" else they(who, text)
    evs = events([msg], [row, other])
    assert evs["R1"]["time"] == time and "R2" not in evs


def test_a_time_correction_two_plans_could_be_about_changes_neither():
    rows = [_row("R1", "lunch-krone", activity="lunch", date="2026-05-09", time="12:30",
                 status="confirmed"),
            _row("R2", "lunch-lotte", activity="lunch", date="2026-05-10", time="12:30",
                 status="confirmed")]
    assert "time" not in str(events([they("Anna", "nicht 12:30, sondern 13:00!")], rows))


# -- a plan is continued only while it is the topic -------------------------------------------
def test_a_day_said_after_other_topics_is_not_an_older_plans_and_a_yes_answers_the_latest():
    msgs = [they("Kat", "Frankenjura in August anyone?? cheap flights to Nuremberg",
                 stream="g", at="2026-05-04T18:40:00Z"),
            they("Mo", "gym tonight? 8ish", stream="g", at="2026-05-04T19:10:00Z"),
            they("Jess", "cant, physio", stream="g", at="2026-05-04T19:11:00Z"),
            they("Ollie", "https://example.org/video", stream="g", at="2026-05-04T19:30:00Z"),
            they("Kat", "that guy is not human", stream="g", at="2026-05-04T19:31:00Z"),
            me("ok proper plan: Stanage, Saturday 16 May. who's in?", stream="g",
               at="2026-05-04T20:02:00Z"),
            they("Jess", "in!", stream="g", at="2026-05-04T20:03:00Z"),
            they("Mo", "in", stream="g", at="2026-05-04T20:03:30Z")]
    assert not [e for e in events(msgs).values() if "flight" in e.get("activity", "")
                and (e.get("status") == "confirmed" or e.get("date"))]


def test_a_booking_naming_the_plans_place_continues_it_after_other_talk():
    msgs = [they("Mama", "Samstag 14.3. Mittagessen im Gasthaus Krone?", stream="g",
                 at="2026-05-04T18:31:00Z"),
            they("Gabi", "Krone ist toll", stream="g", at="2026-05-04T18:33:00Z"),
            they("Bernd", "Hat jemand den Schlüssel gesehen?", stream="g",
                 at="2026-05-04T18:45:00Z"),
            they("Mama", "Liegt in der Schale", stream="g", at="2026-05-04T18:47:00Z"),
            they("Papa", "Das Spiel gestern, unfassbar", stream="g", at="2026-05-04T19:02:00Z"),
            they("Felix", "Genau!!", stream="g", at="2026-05-04T19:03:00Z"),
            me("Ich hab gerade in der Krone angerufen: Samstag 14.3. um 12:30 ist reserviert",
               stream="g", at="2026-05-04T19:20:00Z")]
    evs = [e for e in events(msgs).values() if e.get("place", "").endswith("Krone")]
    assert len(evs) == 1 and evs[0]["status"] == "confirmed" and evs[0]["time"] == "12:30"


@pytest.mark.parametrize("text, place", [
    ("Change of plan for the offsite: not Lakeside Lodge but The Foundry. Same day.",
     "The Foundry"),
    ("Achtung: nicht im Lakeside Lodge, sondern in der Alten Mühle!", "Alten Mühle"),
    ("Changement : pas au Lakeside Lodge mais chez Sophie, même heure.", "Sophie"),
])
def test_a_place_said_with_the_one_it_replaces_moves_the_plan_that_had_it(text, place):
    row = _row("R1", "offsite-lakeside-lodge", activity="offsite", date="2026-05-14",
               time="09:30", place="Lakeside Lodge", status="confirmed")
    evs = events([they("Rhea", text)], [row])
    assert place in evs["R1"]["place"] and "Lakeside" not in str(evs["R1"])


def test_another_day_in_someone_elses_message_naming_the_plan_is_not_its_day():
    msgs = [they("Rhea", "Offsite is confirmed: Thursday 14 May at Lakeside Lodge, 9:30 start",
                 stream="c"),
            me("Great, I'll be there", stream="c"),
            they("Tom", "Heads-up before it gets weird at the offsite: my last day here is "
                 "29 May", stream="c")]
    (ev,) = events(msgs).values()
    assert ev["date"] == "2026-05-14" and ev["place"] == "Lakeside Lodge"


# -- fields from the plan's own talk: a question or a way of travelling changes nothing --------
def test_a_question_about_something_else_and_how_someone_travels_move_no_plan():
    row = _row("R1", "wedding-hacienda-san-rafael-2026-09-19", activity="wedding",
               date="2026-09-19", time="18:00", place="Hacienda San Rafael",
               participants="Carmen", status="confirmed")
    msgs = [they("Carmen", "¡Ojo! Javi dice que la boda se adelanta a las 17:00",
                 stream="c", at="2026-09-02T18:40:00Z"),
            me("Vale, pues a las 17:00. Gracias por avisar", stream="c",
               at="2026-09-02T18:41:00Z"),
            they("Carmen", "¿Quieres que vayamos juntas en coche el viernes?", stream="c",
                 at="2026-09-02T18:45:00Z"),
            me("Lo miro y te digo, igual voy en AVE", stream="c", at="2026-09-02T18:50:00Z")]
    ev = events(msgs, [row])["R1"]
    assert ev.get("time") == "17:00" and "date" not in ev and "place" not in ev


# -- a title in the words the plan was named in ------------------------------------------------
@pytest.mark.parametrize("ask, word", [
    ("¿Cena en Casa Mono el viernes 15 a las 21:30?", "Cena"),
    ("Abendessen im Lokal Eins am Freitag, den 15. um 19 Uhr?", "Abendessen"),
    ("Dîner au Bouillon Chartier vendredi 15 à 20h ?", "Dîner"),
    ("Dinner at Dishoom on Friday 15th at 7.30pm?", "Dinner"),
])
def test_a_plans_title_names_its_kind_in_the_language_it_was_said_in(ask, word):
    (ev,) = events([they("Ola", ask), me("Yes! Count me in")]).values()
    assert ev["title"].startswith(word) and ev["activity"] == "dinner"


# -- a to-do closed by naming its thing as done, in its own words --------------------------------
@pytest.mark.parametrize("take, done", [
    ("I'll renew my passport this week, promise", "Passport renewal done btw"),
    ("Ich übernehme die Tischreservierung", "Tisch ist reserviert: Zur Linde, Freitag"),
    ("Je m'occupe du gâteau", "Gâteau commandé à la pâtisserie, c'est fait"),
    ("Me encargo del regalo de la lista", "Regalo comprado ✅"),
])
def test_a_to_do_is_closed_by_its_thing_said_done(take, done):
    first = rules([me(take)])
    (opened,) = [o for o in first if o["op"] == "todo.open"]
    row = {"handle": "R1", "kind": "todo", "key": "t", "fields": {**_fields(opened),
                                                                   "status": "open"}}
    later = rules([me(done, at="2026-05-06T10:00:00Z")], [row])
    assert [o["row"] for o in later if o["op"] == "todo.close"] == ["R1"]


def test_a_done_mark_naming_a_thing_two_to_dos_share_closes_neither():
    rows = [{"handle": f"R{n}", "kind": "todo", "key": f"t{n}",
             "fields": {"title": title, "status": "open"}}
            for n, title in ((1, "Renew my passport this week"),
                             (2, "Find the passport photos for the visa"))]
    assert not [o for o in rules([me("passport renewal done")], rows) if o["op"] == "todo.close"]


# -- offers and "next week" ---------------------------------------------------------------------
def test_the_users_offer_is_their_to_do_and_a_refusal_or_question_is_not():
    assert [t["title"] for t in todos([me("I can pick up the cake on Saturday morning")])] == \
        ["Pick up the cake on Saturday morning"]
    assert todos([me("I can't pick up the cake, sorry")]) == []
    assert todos([me("I could bring the salad?")]) == []


@pytest.mark.parametrize("text, day", [
    ("Dinner at Dishoom on Friday next week at 7pm?", "2026-05-15"),
    ("Abendessen im Lokal Eins nächste Woche Dienstag um 19 Uhr?", "2026-05-12"),
    ("Dîner au Bouillon Chartier vendredi de la semaine prochaine à 20h ?", "2026-05-15"),
    ("¿Cena en Casa Mono el jueves de la semana que viene a las 21:30?", "2026-05-14"),
])
def test_a_weekday_next_week_is_that_day_of_the_following_week(text, day):
    (ev,) = events([they("Ola", text), me("Yes! Count me in")]).values()
    assert ev["date"] == day


def test_next_week_alone_names_no_day():
    assert events([they("Ola", "Dinner at Dishoom next week?"), me("Yes! Count me in")]) == {}


# -- what someone says of themselves goes on their page -----------------------------------------
@pytest.mark.parametrize("who, text, slot, value", [
    ("Mo", "fyi for the newbies: I'm allergic to wasp stings", "allergies", "wasp stings"),
    ("Lucía", "Ojo que soy alérgica al kiwi, no lo pongáis en la macedonia", "allergies",
     "kiwi"),
    ("Jonas", "denkt bitte dran: ich hab eine Nussallergie", "allergies", "Nuss"),
    ("Tom", "Heads-up: I'm joining Helix Bio as staff engineer in June", "work", "Helix Bio"),
    ("Marta", "Y apuntad: mi cumple es el 12 de junio", "birthday", "--06-12"),
    ("Carmen", "Y no te olvides que el 3 de octubre es mi cumple", "birthday", "--10-03"),
])
def test_what_someone_says_of_themselves_goes_on_their_page(who, text, slot, value):
    pages = [_fields(o) for o in rules([they(who, text)]) if o["op"] == "wiki.fill"]
    assert {"name": who, slot: value} in pages
    assert not [o for o in rules([they(who, text)]) if o["op"] == "standing.set"]


@pytest.mark.parametrize("ask, fix, day, time", [
    ("Chicos, ¿cena de piso este sábado?", "Venga, sábado 9 a las 21h aquí en casa", "2026-05-09",
     "21:00"),
    ("Dinner at ours this Saturday?", "Go on then, Saturday 9th at 8pm here", "2026-05-09",
     "20:00"),
])
def test_the_user_fixing_day_and_time_of_the_plan_talked_about_agrees_to_it(ask, fix, day, time):
    msgs = [they("Lucía", ask, stream="g"), they("Pablo", "Me apunto!!", stream="g"),
            they("Marta", "Yo también", stream="g"), me(fix, stream="g")]
    (ev,) = events(msgs).values()
    assert (ev["date"], ev["time"], ev["status"]) == (day, time, "confirmed")


def test_a_spanish_task_verb_with_yo_is_a_to_do():
    assert [t["title"] for t in todos([me("Uf. Yo llamo al casero mañana por lo de la caldera")])
            ] == ["Yo llamo al casero mañana por lo de la caldera"]


def test_a_team_meal_chosen_from_two_days_then_fixed_by_its_organiser_and_corrected():
    msgs = [they("Anna", "Teamessen vor der Sommerpause! Vorschläge: Do 14.5. oder Fr 15.5.? "
                 "Bitte abstimmen", stream="t", at="2026-05-04T09:00:00Z"),
            they("Mert", ":two:", stream="t", at="2026-05-04T09:01:00Z"),
            me("Fr 15.5. passt mir besser", stream="t", at="2026-05-04T09:02:00Z"),
            they("Sophie", ":two: donnerstags hab ich Chor", stream="t",
                 at="2026-05-04T09:03:00Z"),
            they("Anna", "Eindeutig: Freitag, 15.5., 19 Uhr im Restaurant Zur Linde.",
                 stream="t", at="2026-05-04T09:05:00Z")]
    (key, ev), = events(msgs).items()
    assert (ev["date"], ev["time"], ev["status"]) == ("2026-05-15", "19:00", "confirmed")
    assert ev["title"].startswith("Teamessen") and "Linde" in ev["place"]
    fixed = events([they("Anna", "Korrektur zum Teamessen: nicht 19 Uhr, sondern 19:30",
                         stream="t", at="2026-05-06T09:00:00Z")],
                   [_row("R1", key, **ev)])
    assert fixed["R1"]["time"] == "19:30"


@pytest.mark.parametrize("text, place", [
    ("Votre réservation est confirmée.\nAller : vendredi 15 mai 2026\nParis Gare de Lyon 08:04 "
     "→ Lyon Part-Dieu 10:01", "Lyon Part-Dieu"),
    ("Your trip is confirmed: Friday 15 May 2026, London Euston 08:30 -> Manchester Piccadilly "
     "10:40", "Manchester Piccadilly"),
])
def test_a_journey_written_with_an_arrow_goes_to_its_destination(text, place):
    (ev,) = events([they("Rail Booking", "Confirmation de votre voyage\n\n" + text)]).values()
    assert ev["place"] == place and ev["date"] == "2026-05-15" and ev["status"] == "confirmed"


@pytest.mark.parametrize("ask, sent", [
    ("Peux-tu m'envoyer le rapport trimestriel avant jeudi ?",
     "Voilà le rapport trimestriel en pièce jointe."),
    ("Kannst du mir den Quartalsbericht bis Donnerstag schicken?",
     "Anbei der Quartalsbericht mit den Zahlen."),
    ("¿Me puedes mandar el informe trimestral antes del jueves?",
     "Aquí tienes el informe trimestral adjunto."),
    ("Can you send me the quarterly report by Thursday?",
     "Attached is the quarterly report."),
])
def test_a_request_to_the_user_in_four_languages_and_the_thing_sent_attached(ask, sent):
    (opened,) = [o for o in rules([they("Marc", ask)]) if o["op"] == "todo.open"]
    row = {"handle": "R1", "kind": "todo", "key": "t", "fields": {**_fields(opened),
                                                                   "status": "open"}}
    later = rules([me(sent, at="2026-05-06T10:00:00Z")], [row])
    assert [o["row"] for o in later if o["op"] == "todo.close"] == ["R1"]


def test_a_spanish_task_taken_on_with_yo_after_the_verb():
    assert [t["title"] for t in todos([me("Me encargo yo del regalo de la lista de bodas")])]


@pytest.mark.parametrize("msgs", [
    [me("Our choir concert is on Saturday 16 May at 8pm at St Luke's Hall"),
     me("ok I'll get the 17:10 coach up on Friday 15th, will sort the ticket tonight")],
    [me("Das Konzert vom Chor ist am Samstag, 16.5., um 20 Uhr in der Lutherkirche"),
     me("Ich nehme dann den Zug um 17:10 am Freitag, 15.5.")],
])
def test_another_day_said_without_naming_the_plan_is_not_its_day(msgs):
    """A day the plan never had, said with no change word and offered by no one, is the
    day of something else (the journey there): the plan keeps its day and time."""
    (ev,) = events(msgs).values()
    assert (ev["date"], ev["time"]) == ("2026-05-16", "20:00")


def test_a_day_chosen_from_those_offered_is_still_the_plans():
    msgs = [they("Praxis Dr. Roth", "Leider müssen wir Ihren Termin am Dienstag, 12.5., "
                 "um 10 Uhr absagen. Wir können anbieten:\n- Donnerstag, 14.5., 9:00 Uhr\n"
                 "- Freitag, 15.5., 16:30 Uhr", stream="mail"),
            me("Dann nehme ich gern Freitag, 15.5., 16:30 Uhr.", stream="mail")]
    dated = {(e.get("date"), e.get("time"), e.get("status")) for e in events(msgs).values()}
    assert ("2026-05-15", "16:30", "confirmed") in dated


@pytest.mark.parametrize("text", [
    "Guten Tag,\nleider müssen wir Ihren Termin am 12.5. verschieben.\n"
    "Neuer Termin: Freitag, 15.5.2026, 14:30 Uhr.\nIhre Praxis Dr. Roth",
    "Bonjour,\nnous devons malheureusement changer votre rendez-vous du 12 mai.\n"
    "Nouveau rendez-vous : vendredi 15 mai 2026 à 14h30.\nCabinet Dr Roth",
    "Hola:\ntenemos que cambiar su cita del 12 de mayo.\n"
    "Nueva cita: viernes 15 de mayo de 2026 a las 14:30.\nClínica Roth",
])
def test_a_business_giving_the_new_day_of_the_appointment_it_holds_moves_it(text):
    """"Neuer Termin: ..." on a line of its own, below the line saying the appointment had
    to be moved, is that appointment's new day: the booking moves, no second one is made."""
    row = _row("R1", "appointment-praxis-dr-roth-2026-05-12", title="Termin – Praxis Dr. Roth",
               activity="appointment", date="2026-05-12", time="10:00",
               participants="Praxis Dr. Roth", status="confirmed")
    got = events([they("Praxis Dr. Roth", text, stream="mail-roth")], [row])
    assert got["R1"]["date"] == "2026-05-15" and got["R1"]["time"] == "14:30"
    assert set(got) == {"R1"}


@pytest.mark.parametrize("text", [
    "Dear Robin,\nUnfortunately we have to reschedule your appointment on 12 May as the "
    "hygienist is away. We have booked you in for Friday 15 May at 14:30.\nIf you would "
    "like a flu jab too, we still have slots on Monday 18 May at 17:00.",
    "Sehr geehrte Frau Robin,\nleider müssen wir Ihren Termin am 12.5. wegen einer "
    "Schulung verlegen. Wir haben Sie für Freitag, den 15.5., um 14:30 Uhr eingetragen.\n"
    "Grippeimpfungen hätten wir noch am Montag, 18.5., um 17 Uhr frei.",
    "Bonjour,\nnous devons malheureusement déplacer votre rendez-vous du 12 mai. Nous vous "
    "avons inscrite le vendredi 15 mai à 14h30.\nIl reste des places pour le vaccin le "
    "lundi 18 mai à 17h.",
])
def test_the_day_after_a_line_saying_the_appointment_has_to_move_is_its_new_day(text):
    """"We have to reschedule your appointment" names no day; the next day the mail gives
    is the new one, and only that one (a later offer is something else)."""
    row = _row("R1", "appointment-practice-2026-05-12", title="Appointment – Practice",
               activity="appointment", date="2026-05-12", time="10:00",
               participants="Practice", status="confirmed")
    got = events([they("Practice", text, stream="mail-practice")], [row])
    assert (got["R1"]["date"], got["R1"]["time"]) == ("2026-05-15", "14:30")


@pytest.mark.parametrize("text, clock", [
    ("Ihr Termin wurde auf Freitag, 15.5., um 8:15 Uhr verlegt.", "08:15"),
    ("Ihr Termin wurde auf Freitag, 15.5., um 17 Uhr verlegt.", "17:00"),
])
def test_a_time_written_in_24_hours_with_uhr_is_never_read_as_the_other_half(text, clock):
    """"um 8:15 Uhr" next to an afternoon appointment is a quarter past eight in the
    morning, and "um 17 Uhr" next to a morning one is five in the afternoon."""
    old = "16:30" if clock == "08:15" else "08:00"
    row = _row("R1", "appointment-praxis-2026-05-12", title="Termin – Praxis",
               activity="appointment", date="2026-05-12", time=old,
               participants="Praxis", status="confirmed")
    got = events([they("Praxis", text, stream="mail-praxis")], [row])
    assert (got["R1"]["date"], got["R1"]["time"]) == ("2026-05-15", clock)


def test_an_appointment_of_no_named_kind_on_another_day_is_another_appointment():
    """Two bookings of the generic kind ("Termin", "appointment") are one plan only when the
    day, the place or a move ties them: the town-hall slot the user booked is not the
    dentist's appointment on another day."""
    row = _row("R1", "appointment-praxis-dr-roth-2026-05-14", title="Termin – Praxis Dr. Roth",
               activity="appointment", date="2026-05-14", time="08:15",
               participants="Praxis Dr. Roth", status="confirmed")
    got = events([they("Praxis Dr. Roth", "Ihr Termin am 14.5. um 8:15 Uhr bleibt bestehen.",
                       stream="mail-roth"),
                  me("Termin beim Bürgeramt ist gebucht: Mittwoch, 20. Mai, 11:40 Uhr, "
                     "in der Fröbelstraße.", stream="mail-me")], [row])
    assert (got["R1"].get("date", "2026-05-14"), got["R1"].get("time", "08:15")) == \
        ("2026-05-14", "08:15")
    (new,) = [e for k, e in got.items() if k != "R1"]
    assert (new["date"], new["time"], new["status"]) == ("2026-05-20", "11:40", "confirmed")


@pytest.mark.parametrize("ask, answer", [
    ("Hi Robin,\nCould you reply to confirm your place by Friday 8 May? Thanks!",
     "Yes please, count me in - see you there."),
    ("Hallo Robin,\nkannst du mir Bescheid geben, ob du am Freitag dabei bist?",
     "Ja, ich bin dabei!"),
    ("Salut Robin,\npeux-tu répondre avant vendredi 8 mai pour confirmer ta place ?",
     "Oui, je serai là, merci !"),
])
def test_a_request_to_answer_is_done_by_the_users_answer_in_that_conversation(ask, answer):
    ops = rules([they("Mara", ask, stream="mail-mara"), me(answer, stream="mail-mara")])
    opened = [o["name"] for o in ops if o["op"] == "todo.open"]
    closed = [o["name"] for o in ops if o["op"] == "todo.close"]
    assert opened and closed == opened


def test_an_answer_put_off_or_said_elsewhere_leaves_the_request_open():
    ask = they("Mara", "Could you reply to confirm your place by Friday 8 May?",
               stream="mail-mara")
    for answer in (me("Thanks Mara, I'll get back to you tomorrow.", stream="mail-mara"),
                   me("Dinner at 8 tonight?", stream="chat-sam")):
        ops = rules([ask, answer])
        assert not [o for o in ops if o["op"] == "todo.close"]


@pytest.mark.parametrize("plan, off", [
    ("Rando au lac de Guéry samedi 16 mai, départ 9h du parking ?", "Trop de vent annoncé, j'annule la rando"),
    ("¿Excursión a Cercedilla el sábado 16 de mayo a las 9:00?", "Con esta lluvia cancelamos la excursión"),
    ("Wanderung zum Feldberg am Samstag, 16.5., um 9 Uhr?", "Bei dem Sturm sagen wir die Wanderung ab"),
])
def test_the_organiser_calling_a_plan_off_in_the_first_person(plan, off):
    """"j'annule", "cancelamos", "sagen wir ab": the one who proposed it calls it off."""
    ev = events([they("Lou", plan, stream="g"), me("Avec plaisir / ¡me apunto! / bin dabei",
                                                   stream="g"),
                 they("Lou", off, stream="g", at="2026-05-06T18:00:00Z")])
    (got,) = ev.values()
    assert got["status"] == "cancelled"


def test_a_yes_after_a_plan_was_called_off_does_not_revive_it():
    """"Trop de vent, j'annule la rando" - "À la place : crêpes chez moi le même samedi à
    midi ?" - "Oui !!": the yes is for what comes instead, the hike stays cancelled and
    keeps its time."""
    row = _row("R1", "hike-lac-de-guery-2026-05-16", title="Rando – Lac de Guéry",
               activity="hike", date="2026-05-16", time="09:00", place="Lac de Guéry",
               participants="Lou, Noé", status="confirmed")
    ev = events([they("Lou", "Trop de vent annoncé samedi 16, j'annule la rando",
                      stream="g", at="2026-05-06T18:00:00Z"),
                 they("Lou", "À la place : crêpes chez moi le même samedi à midi ?",
                      stream="g", at="2026-05-06T18:01:00Z"),
                 they("Noé", "Oui !!", stream="g", at="2026-05-06T18:02:00Z"),
                 me("Avec plaisir !", stream="g", at="2026-05-06T18:03:00Z")], [row])
    assert ev["R1"]["status"] == "cancelled" and ev["R1"].get("time", "09:00") == "09:00"
    assert not [e for k, e in ev.items() if k != "R1" and e.get("activity") == "hike"]


@pytest.mark.parametrize("took, other, yes, new", [
    ("Lovely, I'll bring a crumble", "Pete can't have gluten now, maybe a fruit salad instead?",
     "Ok fruit salad it is", "Bring fruit salad"),
    ("Super, j'apporte un gâteau au chocolat",
     "Léa ne mange plus de sucre, plutôt une salade de fruits à la place ?",
     "Ok va pour la salade de fruits", "J'apporte salade de fruits"),
])
def test_a_thing_taken_on_swapped_for_another_is_off_the_list(took, other, yes, new):
    ops = rules([they("Mum", "Sunday lunch here on the 17th, 1pm", stream="fam"),
                 me(took, stream="fam"), they("Mum", other, stream="fam"),
                 me(yes, stream="fam")])
    first = next(o["name"] for o in ops if o["op"] == "todo.open")
    assert [o["name"] for o in ops if o["op"] == "todo.close"] == [first]
    assert [_fields(o)["title"] for o in ops if o["op"] == "todo.open"][-1] == new


def test_a_thing_proposed_instead_and_turned_down_leaves_the_todo():
    ops = rules([me("I'll bring a crumble", stream="fam"),
                 they("Mum", "maybe a fruit salad instead?", stream="fam"),
                 me("nah, I'll stick with the crumble", stream="fam")])
    assert not [o for o in ops if o["op"] == "todo.close"]


@pytest.mark.parametrize("msgs", [
    [they("Jörg", "Freitag wird bei mir eng, Firmenweihnachtsfeier 🙄 Geht auch Donnerstag?",
          stream="g"),
     they("Steffi", "Donnerstag passt mir sogar besser", stream="g"),
     me("Dann Donnerstag, 7.5., viertel nach acht bei mir.", stream="g"),
     they("Steffi", "Top!", stream="g")],
    [they("Jo", "Friday is tight for me, office party on Friday 8 May 🙄 Thursday any good?",
          stream="g"),
     they("Sam", "Thursday suits me better", stream="g"),
     me("Thursday 7th then, 8:15 at mine.", stream="g"),
     they("Sam", "Great!", stream="g")],
])
def test_the_user_fixing_another_day_does_not_join_someone_elses_event(msgs):
    """Jörg's office party is why he can't do Friday; the user fixing Thursday at their
    place is not a yes to his party, which is no plan of the user's."""
    assert not [e for e in events(msgs).values() if e.get("status") == "confirmed"]


@pytest.mark.parametrize("span", ["10:30-13:00", "10:30-12:30"])
def test_a_booking_span_ending_at_noon_or_after_starts_in_the_morning(span):
    """"10:30-13:00" and "10:30-12:30" are written in 24 hours: a booking (an evening kind
    when nothing else is said) for that span starts at half past ten in the morning."""
    (ev,) = events([me(f"Booked us a table at Café Nord for Friday 15 May, {span}",
                       stream="sms-ola"),
                    they("Ola", "great, see you there", stream="sms-ola")]).values()
    assert (ev["date"], ev["time"]) == ("2026-05-15", "10:30")


def test_a_booking_confirmed_again_as_an_appointment_that_day_is_one_plan():
    """The heating firm's text "your appointment on Fri 15/05 is confirmed" after the same
    firm booked the boiler service that day is that booking, not a second event."""
    got = events([
        they("ClearView", "ClearView: your boiler service is booked for Friday 15 May at "
             "09:30. Reply Y to confirm", stream="sms-clearview"),
        me("Y", stream="sms-clearview"),
        they("ClearView", "ClearView: thanks, your appointment on Fri 15/05 is confirmed.",
             stream="sms-clearview")])
    (ev,) = got.values()
    assert (ev["date"], ev["time"], ev["status"]) == ("2026-05-15", "09:30", "confirmed")
    assert ev["activity"] == "boiler service"


def test_a_new_time_on_the_day_of_the_one_live_event_moves_that_event():
    """Someone the stored event does not name ("Piotr from the fitter's") asks to come at
    another time on the day of the one live event: the user's yes moves that event's time;
    with two live events that day nothing is guessed."""
    row = _row("R1", "kitchen-fitting-fitright-2026-05-12", title="Kitchen fitting – FitRight",
               activity="kitchen fitting", date="2026-05-12", time="08:00",
               participants="FitRight", status="confirmed")
    msgs = [they("Piotr", "Hello, Piotr here, the fitter. Could I come on the 12th at 11:30 "
                 "instead of first thing?", stream="sms-piotr"),
            me("Yes 11:30 on the 12th is fine, see you then", stream="sms-piotr")]
    got = events(msgs, [row])
    assert got["R1"]["time"] == "11:30"
    other = _row("R2", "dentist-appointment-2026-05-12", title="Dentist appointment",
                 activity="dentist appointment", date="2026-05-12", time="16:00",
                 participants="Smile Dental", status="confirmed")
    got = events(msgs, [row, other])
    assert "R1" not in got and "R2" not in got


@pytest.mark.parametrize("text, date, time", [
    ("Quick update: the tasting is now Thursday 14 May, same time", "2026-05-14", "18:00"),
    ("Heads up, the tasting's now 19:30, still on the 12th", "2026-05-12", "19:30"),
])
def test_a_plan_said_to_be_now_on_another_day_or_time_moves(text, date, time):
    """"The tasting is now Thursday 14 May" from whoever organised it changes the day of
    the stored tasting (its time stays when it is not said again)."""
    row = _row("R1", "wine-tasting-vinoteca-2026-05-12", title="Wine tasting at Vinoteca",
               activity="wine tasting", date="2026-05-12", time="18:00", place="Vinoteca",
               participants="Hana", status="confirmed")
    got = events([they("Hana", text, stream="sms-hana")], [row])
    assert (got["R1"].get("date", "2026-05-12"), got["R1"].get("time", "18:00")) == (date, time)


def test_the_venue_answering_a_move_asked_for_in_its_thread_moves_the_booking():
    """The user asks the hotel to move the stay a night later (a question moves nothing);
    the hotel's answer in that thread, "your booking is now Saturday 16 May", does."""
    row = _row("R1", "reservation-the-anchor-2026-05-15", title="Reservation at The Anchor",
               activity="reservation", date="2026-05-15", time="15:00", place="The Anchor",
               participants="The Anchor", status="confirmed")
    got = events([
        me("Subject: Re: Your stay\n\nCould we move our booking by one night, to Saturday "
           "16 May? Many thanks", stream="mail-re-your-stay"),
        they("The Anchor", "Subject: Re: Your stay\n\nAll sorted: your booking is now "
             "Saturday 16 May - Monday 18 May, same room.", stream="mail-re-your-stay")],
        [row])
    assert got["R1"]["date"] == "2026-05-16"


@pytest.mark.parametrize("answer, live", [
    ("Thanks Sam! Snacks from me 👍", True),
    ("Nous apportons les chips 🙂", True),
    ("Oh no, I'm at my sister's that weekend", False),
    ("is it the Crown on Mill Road or the other one?", False),
])
def test_the_user_writing_right_after_the_organiser_fixed_a_group_plan_is_in_it(answer, live):
    """In a group, the organiser fixing a plan with its day and time ("Quiz night is Friday
    15 May, 7:30pm at the Crown") and the user answering right after with anything but a
    question or a no puts the user in it: the plan is on."""
    got = events([
        they("Sam", "Team quiz night is Friday 15 May, 7:30pm at the Crown. Bring your "
             "brains!", stream="wa-team"),
        they("Alex", "yesss", stream="wa-team"),
        me(answer, stream="wa-team")])
    statuses = [ev.get("status") for ev in got.values()]
    assert (statuses == ["confirmed"]) == live
    if live:
        (ev,) = got.values()
        assert (ev["date"], ev["time"], ev["place"]) == ("2026-05-15", "19:30", "Crown")


@pytest.mark.parametrize("clock, want", [("10:30", "10:30"), ("11:00", "11:00"),
                                         ("7:30", "19:30")])
def test_a_booking_of_no_named_kind_late_in_the_morning_stays_in_the_morning(clock, want):
    """A booking confirmed for "10:30" with nothing saying what it is (the tuner, the room,
    the cleaner) is in the morning; only an hour that is dinner time bare ("7:30") is read
    in the evening, as for a table."""
    (ev,) = events([they("Keys & Co", f"Your booking is confirmed for Friday 15 May at "
                                      f"{clock}.", stream="mail-keys")]).values()
    assert (ev["date"], ev["time"]) == ("2026-05-15", want)


def test_a_message_names_a_plans_place_once():
    """"Farewell drinks for Lena: Fri 15 May from 6pm at the Lamb. She's off to Zalando in
    Berlin": the drinks are at the Lamb, and so say its title and key (Zalando is where
    Lena is going, said later in the same message)."""
    got = events([
        they("Priya", "Lena's farewell drinks: Fri 15 May from 6pm at the Lamb. She's off to "
             "Zalando in Berlin, lucky her", stream="slack-team"),
        me("I'm in!", stream="slack-team")])
    ((name, ev),) = got.items()
    assert ev["place"] == "Lamb" and "Lamb" in ev["title"] and "zalando" not in name.lower()


@pytest.mark.parametrize("reply, live", [
    ("Sure, I've put you on the list for the tasting: 11am at the Vinoteca, aprons "
     "provided", True),
    ("Hmm, is the tasting at 11am any good for you?", False),
    ("Sorry, the tasting at 11am is full, no spaces left", False),
])
def test_the_other_side_naming_what_the_user_asked_for_with_its_time_agrees(reply, live):
    """The user asks to join something ("Could I join the tasting on Sunday 17 May
    instead?"); the other side naming it with its time, neither asking back nor saying no,
    agrees: the plan is on."""
    got = events([
        me("Could I join the tasting on Sunday 17 May instead?", stream="tg-club"),
        they("Rosa", reply, stream="tg-club")])
    statuses = [ev.get("status") for ev in got.values()]
    assert ("confirmed" in statuses) == live
    if live:
        (ev,) = got.values()
        assert (ev["date"], ev["time"]) == ("2026-05-17", "11:00")


# -- whose no it is ---------------------------------------------------------------------------------
def test_the_user_answering_someone_elses_no_does_not_decline_their_plan():
    # Sam's own conflicting plan, told as the reason they cannot come; the user's "shame you
    # can't make it" is Sam's no, not the user's: nothing of the user's is written
    msgs = [they("Sam", "are you going to Priya's leaving do? I can't, I've got Jamie's "
                        "football tournament all day Saturday 😩", stream="sms-sam"),
            me("Going, yes. Such a shame you can't make it", stream="sms-sam")]
    assert events(msgs) == {}


@pytest.mark.parametrize("clause, no", [
    ("Shame you can't make it", False),
    ("Gutted that Tom can't come", False),
    ("she won't make it after all", False),
    ("Sadly can't make it", True),
    ("ah Wednesday I can't make, have fun", True),
    ("oh Friday can't make it sorry", True),
    ("Sorry, I can't come on Friday", True),
    ("We can't make it, we're away", True),
])
def test_a_no_is_the_writers_only_when_nobody_else_is_its_subject(clause, no):
    from dream.detect.plan_words import declines
    assert declines(clause) is no


# -- one plan told twice ------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "Rappel : RDV le jeu. 14/05 à 10:30 avec Dr Perrin, ostéopathe, 3 rue Garibaldi",
    "Reminder: appointment on Thu. 14 May at 10:30 with Dr Perrin, 3 Garibaldi Street",
    "Erinnerung: Termin am Do. 14.05. um 10:30 Uhr in der Praxis Perrin, Garibaldistraße 3",
])
def test_a_weekday_written_short_before_its_date_is_one_date(text):
    from dream.detect.plan_words import CLAUSE_RE
    assert len([c for c in CLAUSE_RE.split(text) if c.strip()]) == 1


def test_a_plan_told_again_for_the_same_day_and_time_is_the_same_plan():
    # the booking text and the user's own words about it, on the same day at the same time:
    # one appointment, not two
    msgs = [they("Clinic", "Your physiotherapy session is confirmed for Thursday 14 May "
                           "at 10:30, Garibaldi Street clinic", stream="sms-clinic"),
            me("Finally got a physio appointment, Thursday 14 May at 10:30! Can you take "
               "the kids to school that morning?", stream="mail-partner")]
    evs = events(msgs)
    assert len(evs) == 1
    (ev,) = evs.values()
    assert (ev["date"], ev["time"]) == ("2026-05-14", "10:30")


# -- a day asked for ---------------------------------------------------------------------------------
def test_a_weekday_said_in_answer_to_a_day_asked_for_is_that_day():
    # asked on Monday 4 May: "Tuesday" answers the Tuesday 12th proposed, not tomorrow
    rows = [_row("R1", "badminton-leisure-centre-2026-05-14", activity="badminton",
                 date="2026-05-14", time="19:00", place="Leisure Centre",
                 participants="Sam", status="confirmed")]
    msgs = [they("Sam", "Ugh, late shift on Thursday now. Can we do Tuesday 12th instead, "
                        "same time?", stream="tg-badminton"),
            me("Tuesday suits me", stream="tg-badminton")]
    evs = events(msgs, rows)
    assert evs["R1"]["date"] == "2026-05-12"

# -- a plan the same evening, a call-off that fits two plans -------------------------------------

@pytest.mark.parametrize("text, second", [
    ("Samedi 9 brunch chez Léa à 11h, et dimanche 10 dîner au Comptoir à 20h, c'est noté",
     ("2026-05-10", "20:00")),
    ("Samstag, 9.5., Brunch bei Lea um 11 Uhr, und Sonntag, 10.5., Abendessen im Lokal "
     "Eins um 19 Uhr", ("2026-05-10", "19:00")),
    ("El sábado 9 brunch en casa de Lea a las 11, y el domingo 10 cena en Casa Mono a las "
     "21:00", ("2026-05-10", "21:00")),
])
def test_two_plans_joined_by_and_in_another_language_are_two_plans(text, second):
    """", et" / ", und" / ", y" before the second plan of a sentence end the first one, as
    ", and" does: each plan keeps its own day and time."""
    evs = events([me(text, stream="assistant")])
    got = sorted((e.get("activity"), e.get("date"), e.get("time")) for e in evs.values())
    assert ("brunch", "2026-05-09", "11:00") in got
    assert ("dinner", *second) in got


def test_a_plan_said_for_the_same_evening_takes_that_day():
    msgs = [me("Put yoga in for Wednesday 6 May, 18:00 at the studio on Carver Street",
               stream="assistant"),
            me("And drinks with Priya the same evening, 20:30 at the Lighthouse bar",
               stream="assistant")]
    evs = events(msgs)
    (drinks,) = [e for e in evs.values() if e.get("activity") == "drinks"]
    assert (drinks["date"], drinks["time"]) == ("2026-05-06", "20:30")


def test_calling_off_a_day_with_two_plans_asks_which_and_changes_neither():
    rows = [_row("R1", "yoga-carver-street-2026-05-06", activity="yoga", date="2026-05-06",
                 time="18:00", place="Carver Street", status="confirmed"),
            _row("R2", "drinks-lighthouse-2026-05-06", activity="drinks", date="2026-05-06",
                 time="20:30", place="Lighthouse", participants="Priya", status="confirmed")]
    ops = rules([me("Work is mad this week, can you cancel my Wednesday evening thing?",
                    stream="assistant")], rows)
    assert not [o for o in ops if o["op"] == "event.upsert"]
    asked = [_fields(o) for o in ops if o["op"] == "question.ask"]
    assert len(asked) == 2 and all("called off" in a["text"] for a in asked)
    # one plan that day: the day alone does not say it is that one, nothing is guessed
    ops = rules([me("Work is mad this week, can you cancel my Wednesday evening thing?",
                    stream="assistant")], rows[:1])
    assert not [o for o in ops if o["op"] in ("event.upsert", "question.ask")]

# -- a move to a day whose reading is unclear ------------------------------------------------------
@pytest.mark.parametrize("text", [
    "Something came up, so pottery on Thursday is moved to the following Thursday",
    "Oye, lo de la cerámica del jueves lo pasamos al jueves siguiente, ¿vale?",
])
def test_a_move_to_the_following_weekday_that_comes_before_the_plan_is_asked(text):
    # said on Monday 4 May of a plan on Thursday 14 May: "the following Thursday" says
    # later, the next Thursday (7 May) is earlier; the plan stays, the day is asked
    rows = [_row("R1", "pottery-clay-studio-2026-05-14", activity="pottery",
                 date="2026-05-14", time="19:00", place="Clay Studio", participants="Ines",
                 status="confirmed", title="Pottery at Clay Studio")]
    ops = rules([they("Ines", text, stream="wa-ines")], rows)
    assert all(_fields(o).get("date") in (None, "2026-05-14") for o in ops
               if o["op"] == "event.upsert")
    (asked,) = [_fields(o) for o in ops if o["op"] == "question.ask"]
    assert "2026-05-21" in asked["options"] and "2026-05-14" in asked["options"]

@pytest.mark.parametrize("msgs, who", [
    ([they("Priya", "Tomasz's farewell drinks: Thu 14 May from 6pm at the Hope, card "
           "going round", stream="slack-team"), me("I'm in 🍻", stream="slack-team")],
     "Tomasz"),
    ([they("Chloé", "Le pot de départ de Bastien aura lieu mardi 12/05 à 18h en salle "
           "Volta", stream="slack-equipe"), they("Bastien Roux", "Merci à tous !",
                                                  stream="slack-equipe"),
      me("Super, j'y serai", stream="slack-equipe")],
     "Bastien"),
])
def test_whom_an_event_is_for_is_in_it(msgs, who):
    """A plan named by whom it is for ("Tomasz's farewell drinks", "le pot de départ de
    Bastien", who writes in the thread) has that person among its participants, so the
    record can be found by them."""
    (ev,) = events(msgs).values()
    assert who in ev["participants"].split(", ")


def test_a_place_owned_by_a_name_names_nobody():
    """"King's Arms" or "dinner at Nando's": a place's possessive is no person of the plan."""
    (ev,) = events([they("Priya", "Dinner at the King's Arms on Thu 14 May at 7pm?",
                         stream="wa"), me("Yes, see you there", stream="wa")]).values()
    assert "King" not in ev.get("participants", "")


@pytest.mark.parametrize("news", [
    "Did you hear Marek moved to Glasgow last month? New job at the BBC",
    "Also new address for post: I've moved to Leeds, 12 Hyde Terrace, since October",
])
def test_someone_moving_house_moves_no_plan(news):
    """A person moving to a city ("Marek moved to Glasgow", "I've moved to Leeds") is
    their new home, not the place a plan talked about in the thread moves to."""
    got = events([
        they("Ines", "Bouldering Thu 14 May, 7pm at The Castle? I'll book", stream="tg-b"),
        me("Yes, see you there", stream="tg-b"),
        they("Ola", news, stream="tg-b")])
    (ev,) = got.values()
    assert ev["place"] == "The Castle"


def test_lunch_moved_to_a_venue_still_moves_the_lunch():
    """"Lunch moved to Dishoom": a kind of event moved to a place, not a person moving."""
    (ev,) = events([
        they("Ines", "Team lunch Thu 14 May at 12:30 at Wahaca", stream="slack-t"),
        me("I'm in", stream="slack-t"),
        they("Ines", "Lunch moved to Dishoom, same time", stream="slack-t")]).values()
    assert ev["place"] == "Dishoom"


@pytest.mark.parametrize("reply", ["Tuesday works for me", "Tuesday fine by me"])
def test_a_weekday_answering_a_day_asked_for_is_that_day(reply):
    """"Can we do Tuesday 19th instead, same time?" - "Tuesday works for me": the Tuesday
    asked for (19 May), not the next Tuesday after the message (5 May)."""
    rows = [_row("R1", "climbing-the-castle", activity="climbing", date="2026-05-14",
                 time="19:00", place="The Castle", participants="Ines", status="confirmed")]
    got = events([
        they("Ines", "Work thing on Thursday now. Can we do Tuesday 19th instead, same time?",
             stream="tg-b"),
        me(reply, stream="tg-b")], rows)
    assert got["R1"]["date"] == "2026-05-19"


def test_a_kind_no_word_names_is_read_where_it_stands():
    """"Clear-out day is confirmed: Saturday 16 May, 10am" names a kind of event no list
    holds, by being said to be confirmed with its day and time; moving it later by name
    ("we're moving the clear-out day to Sunday 17th") moves that plan, and the user's
    "can't do Sunday" declines it."""
    got = events([
        they("Ines", "Right, clear-out day is confirmed: Saturday 16 May, 10am at the allotment",
             stream="wa-plot"),
        me("I'm in, I'll bring bin bags", stream="wa-plot")])
    ((name, ev),) = got.items()
    assert ev["activity"] == "clear-out day" and ev["date"] == "2026-05-16"
    assert ev["status"] == "confirmed"
    rows = [_row("R1", "clear-out-day", activity="clear-out day", date="2026-05-16",
                 time="10:00", participants="Ines", status="confirmed")]
    got = events([
        they("Ines", "Rain all Saturday, so we're moving the clear-out day to Sunday 17th, "
             "same time", stream="wa-plot"),
        me("Noooo, can't do Sunday, we're at my parents", stream="wa-plot")], rows)
    assert got["R1"]["date"] == "2026-05-17" and got["R1"]["status"] == "declined"


@pytest.mark.parametrize("text", [
    "Your order is confirmed: Saturday 16 May, 10am-12pm",
    "The date is set: Saturday 16 May at 10am",
])
def test_what_is_no_kind_of_event_starts_no_plan_by_its_shape(text):
    """An order or a date said to be confirmed or set is no kind of event."""
    assert not events([they("Shop", text, stream="mail-shop")])


def test_a_holiday_named_as_a_day_is_no_place():
    """"moved to Boxing Day" names the day a plan moves to, not a venue called Boxing Day."""
    rows = [_row("R1", "lunch-the-crown", activity="lunch", date="2026-12-25", time="13:00",
                 place="The Crown", participants="Ines", status="confirmed")]
    got = events([they("Ines", "Lunch moved to Boxing Day, Sat 26th, 13:00, same place",
                       stream="wa", at="2026-11-29T10:00:00Z")], rows)
    assert got["R1"].get("place") in (None, "The Crown") and got["R1"]["date"] == "2026-12-26"


@pytest.mark.parametrize("first, change", [
    ("Dinner at Trattoria Sole on Saturday 23 May at 7pm?",
     "Change of plan: dinner is the same saturday but 8pm, they had a wedding booked at 7"),
    ("¿Cena en Casa Mono el sábado 23 de mayo a las 21:00?",
     "Cambio: la cena pasa al mismo sábado pero a las 22:00"),
    ("Dîner au Bouillon Chartier samedi 23 mai à 20h ?",
     "Changement : le dîner est le même samedi mais à 21h"),
])
def test_the_same_weekday_is_the_plans_own_day(first, change):
    """"same saturday but 8pm", "el mismo sábado", "le même samedi" said of a plan on
    Saturday 23 May (said on Monday 4 May, more than a week ahead): that Saturday, not the
    next Saturday after the message (9 May)."""
    (ev,) = events([they("Mia", first, stream="wa-d"), me("Yes!", stream="wa-d"),
                    they("Mia", change, stream="wa-d")]).values()
    assert ev["date"] == "2026-05-23"


def test_a_kind_read_by_its_shape_is_read_in_linear_time_on_a_long_run_of_spaces():
    """A message holding a long run of spaces (a pasted fixed-width table) is read in a
    moment: the pattern after a kind was tried at each space of the run, 50,000 spaces took
    a minute. What it reads is unchanged."""
    import time

    from dream.detect.plan_words import kind_by_shape

    started = time.perf_counter()
    assert kind_by_shape(" " * 50_000 + "x") is None
    assert time.perf_counter() - started < 5
    assert kind_by_shape("moving day   is confirmed: Saturday 12th") == "moving day"


# -- "To cancel reply STOP": how to cancel is no cancellation; "X Surgery" is a practice -------
def test_how_to_cancel_said_first_is_no_cancellation_and_a_named_surgery_is_a_practice():
    evs = events([they("Elmwood Surgery", "Elmwood Surgery: your appointment with Dr Okoro "
                       "is confirmed for Thu 14 May at 09:50. To cancel reply CANCEL. Do not "
                       "reply with other messages.")])
    (ev,) = evs.values()
    assert ev["status"] == "confirmed" and ev["date"] == "2026-05-14" and ev["time"] == "09:50"
    assert "surgery" not in ev["activity"]      # the practice's name, no operation
    # the other order and a comma: still an instruction
    evs = events([they("Harbour Physio", "Your physio session is booked for Friday 15 May at "
                       "16:00. To cancel, call 0161 496 0000.")])
    assert [e["status"] for e in evs.values()] == ["confirmed"]
    # an operation said as one is still an event, and a real cancellation still cancels
    evs = events([me("My knee surgery is on Tuesday 19 May at 8:00, confirmed by the ward")])
    assert [e["activity"] for e in evs.values()] == ["knee surgery"]
    row = _row("R1", "appointment-dr-okoro-2026-05-14", activity="appointment",
               date="2026-05-14", time="09:50", participants="Elmwood Surgery",
               status="confirmed")
    later = events([they("Elmwood Surgery", "Elmwood Surgery: we have had to cancel your "
                         "appointment on Thu 14 May at 09:50, sorry.",
                         at="2026-05-11T08:00:00Z")], [row])
    assert later["R1"]["status"] == "cancelled"


# -- a visit is called by whom it is with, as the message says it ------------------------------
@pytest.mark.parametrize("msg, trade, said", [
    (they("Praxisportal", "Ihr Termin ist bestätigt.\nDonnerstag, 14. Mai 2026, 08:40 Uhr\n"
          "Dr. Petra Wolff - Zahnärztin, Lindenstraße 4"), "dentist", "zahnärztin"),
    (they("Doctolib", "Votre rendez-vous est confirmé.\nJeudi 14 mai 2026 à 17h20\nCabinet "
          "de kinésithérapie Lenoir, 3 rue Vauban"), "physiotherapist", "kinésithérapie"),
    (they("Oakridge Dental", "Your check-up with Dr Patel is booked for Thursday 14 May 2026 "
          "at 11:10 at Oakridge Dental, 2 Mill Lane."), "dentist", None),
])
def test_a_visit_is_named_by_the_trade_its_message_names(msg, trade, said):
    (key, ev), = events([msg]).items()
    assert ev["status"] == "confirmed" and ev["date"] == "2026-05-14"
    assert ev["activity"].startswith(trade + " ") and key.startswith(trade + " ")
    if said:            # the title says it the way it was said
        assert said in ev["title"].lower()


def test_a_visit_whose_message_names_two_trades_keeps_its_kind():
    (ev,) = events([they("Health Hub", "Your appointment is confirmed for Thursday 14 May 2026 "
                         "at 10:00!\nFree parking: our dentist and our optician share the "
                         "car park on Mill Lane.")]).values()
    assert ev["activity"] == "appointment"


# -- a move that names the old day and time moves the one event then, whoever writes it ---------
def test_a_move_naming_the_old_day_and_time_moves_that_event_whoever_sends_it():
    row = _row("R1", "physiotherapist-appointment-doctolib-2026-05-12",
               activity="physiotherapist appointment", date="2026-05-12", time="18:30",
               participants="Doctolib", status="confirmed")
    evs = events([they("Cabinet Lenoir", "Cabinet Lenoir : votre RDV du mar. 12/05 à 18h30 "
                       "est déplacé au ven. 15/05 à 14h10. Merci de votre compréhension.",
                       at="2026-05-05T08:00:00Z")], [row])
    assert evs["R1"]["date"] == "2026-05-15" and evs["R1"]["time"] == "14:10"
    assert list(evs) == ["R1"]
    # the same message about a time nothing is at moves nothing, and writes nothing live
    evs = events([they("Cabinet Lenoir", "Cabinet Lenoir : votre RDV du mar. 12/05 à 11h00 "
                       "est déplacé au ven. 15/05 à 9h00.", at="2026-05-05T08:00:00Z")], [row])
    assert "R1" not in evs
    assert all(e.get("status") in (None, "proposed") for e in evs.values())


# -- a long name keeps its day in the key: the cancelled booking and its replacement are two ----
def test_a_cancelled_visit_and_its_replacement_at_a_long_named_practice_are_two_events():
    ops = rules([they("Centre de kinésithérapie et d'ostéopathie du Parc Monceau",
                      "Nous vous confirmons votre rendez-vous le mardi 12 mai 2026 à 18h00 "
                      "avec Mme Garnier, masseur-kinésithérapeute.")])
    (name,) = {o["name"] for o in ops if o["op"] == "event.upsert"}
    assert name.endswith("2026-05-12") and len(name) <= 64
    row = _row("R1", name, activity="physiotherapist appointment", date="2026-05-12",
               time="18:00", participants="Centre de kinésithérapie et d'ostéopathie du Parc "
               "Monceau, Mme Garnier", status="confirmed")
    later = rules([they("Centre de kinésithérapie et d'ostéopathie du Parc Monceau",
                        "Mme Garnier étant absente, nous sommes au regret d'annuler votre "
                        "rendez-vous du mardi 12 mai à 18h00. Nous avons un nouveau "
                        "rendez-vous pour vous le jeudi 14 mai à 17h30.",
                        at="2026-05-11T08:00:00Z"),
                   me("Jeudi 14 mai à 17h30, c'est parfait, merci.", at="2026-05-11T09:00:00Z")],
                  [row])
    names = {o.get("name") for o in later if o["op"] == "event.upsert" and o.get("name")}
    assert names and all(n.endswith("2026-05-14") and n != name for n in names)


# -- a booking titled by its mail's subject keeps the subject's own words -----------------------
def test_a_booking_titled_by_its_mail_subject_keeps_the_words_it_was_written_in():
    (ev,) = events([they("Garage Moreau", "Subject: Rendez-vous contrôle technique - Peugeot "
                         "208\n\nBonjour,\nVotre rendez-vous est confirmé le jeudi 14 mai 2026 "
                         "à 14h30.\nGarage Moreau")]).values()
    assert ev["status"] == "confirmed" and ev["date"] == "2026-05-14"
    assert ev["title"].startswith("Rendez-vous contrôle technique")
    assert "appointment" not in ev["title"].lower()


@pytest.mark.parametrize("text", [
    "Subject: Annulation confirmée : Gîte des Tilleuls\n\nBonjour Robin,\n\nNous avons "
    "bien annulé votre réservation au Gîte des Tilleuls du 22 au 24 mai, comme demandé.",
    "Subject: Cancelación confirmada: Hostal La Fuente\n\nHola Robin:\n\nHemos cancelado "
    "tu reserva en Hostal La Fuente (22-24 de mayo) tal como pediste.",
    "Subject: Stornierung bestätigt: Ferienwohnung Seeblick\n\nHallo Robin,\n\nwir haben "
    "Ihre Buchung der Ferienwohnung Seeblick vom 22. bis 24. Mai wie gewünscht storniert.",
])
def test_a_cancellation_confirmed_in_another_language_calls_the_booking_off(text):
    """The noun said in French, Spanish or German ("Annulation confirmée", "Cancelación
    confirmada", "Stornierung bestätigt") confirms the calling off, as "Cancellation
    confirmed" does: the stay booked is cancelled, not confirmed again by the subject."""
    rows = [_row("R1", "stay", activity="reservation", date="2026-05-22", time="16:00",
                 participants="Holidays Direct", status="confirmed")]
    ev = _events(rules([they("Holidays Direct", text, stream="mail:hd")], rows))["R1"]
    assert ev["status"] == "cancelled"


def test_someone_else_rebooking_for_the_same_day_replaces_the_cancelled_booking():
    """"The Anchor have cancelled our booking, so I've rebooked Pho Street for the same day
    at 19:00" in a group, from someone who took over from the organiser (named by first
    name only): the old booking is off, the new one is the plan the user was in, on the same
    day, and the new time is not written onto the cancelled one."""
    rows = [_row("R1", "team-dinner-anchor", activity="team dinner", date="2026-05-14",
                 time="18:30", place="The Anchor", participants="Sasha Grant",
                 status="confirmed")]
    ev = events([they("Lee Park", "Sasha's away so I'm handling the team dinner - The Anchor "
                      "have cancelled our booking (flooded cellar), so I've rebooked Pho "
                      "Street for the same day at 19:00.", stream="team")], rows)
    assert ev["R1"]["status"] == "cancelled" and ev["R1"].get("time") in (None, "18:30")
    assert "Sasha" not in ev["R1"].get("participants", "Sasha Grant").split(", ")
    (new,) = [f for k, f in ev.items() if k != "R1"]
    assert (new["date"], new["time"], new["place"]) == ("2026-05-14", "19:00", "Pho Street")


@pytest.mark.parametrize("text, at, date", [
    # said on a Tuesday: Wednesday 6 May or Wednesday 13 May? a question, no event
    ("Lunch with Marta next Wednesday, 12:30 at Bancone.", "2026-05-05T09:00:00Z", None),
    ("Drinks with Theo next Saturday at 8 at the Lamb", "2026-05-04T09:00:00Z", None),
    # said on that weekday itself: the one a week on; with its day number: that day
    ("Lunch with Marta next Tuesday, 12:30 at Bancone.", "2026-05-05T09:00:00Z",
     "2026-05-12"),
    ("Lunch with Marta next Wednesday the 13th, 12:30 at Bancone.", "2026-05-05T09:00:00Z",
     "2026-05-13"),
])
def test_next_weekday_within_the_week_is_asked_not_guessed(text, at, date):
    """"next Wednesday" said on a Tuesday is tomorrow's Wednesday to some and the one a week
    on to others: no day is written and a question is asked; said on a Tuesday of "next
    Tuesday", or with its day number, the day is known."""
    ops = rules([me(text, stream="assistant", at=at)])
    evs = _events(ops)
    if date is None:
        assert not any(e.get("date") for e in evs.values()), evs
        assert any(o["op"] == "question.ask" for o in ops), ops
    else:
        (ev,) = evs.values()
        assert ev["date"] == date


@pytest.mark.parametrize("text", [
    "Call with Bruno on Thu 14 May at 10 but I can't remember if he meant 10 his time or "
    "mine, he's in Lima",
    "Cita con el dentista el jueves 14 de mayo a las 10:00; no sé si a las 10:00 o a las "
    "10:30, lo miro luego",
])
def test_a_time_the_user_is_unsure_of_is_asked_not_written(text):
    """"I can't remember if he meant 10 his time or mine", "no sé si a las 10:00 o a las
    10:30": the time is a guess between two, so no time is written and a question is
    asked."""
    ops = rules([me(text, stream="assistant", at="2026-05-04T09:00:00Z")])
    evs = _events(ops)
    assert all("time" not in ev for ev in evs.values()), evs
    assert any(o["op"] == "question.ask" for o in ops), ops


def test_a_time_said_without_doubt_is_written():
    (ev,) = events([me("Call with Bruno on Thu 14 May at 10:00, he's in Lima",
                       stream="assistant", at="2026-05-04T09:00:00Z")]).values()
    assert (ev["date"], ev["time"]) == ("2026-05-14", "10:00")


@pytest.mark.parametrize("text", [
    "Sorry all, I have to cancel on the 12th: my dad is in hospital in Leeds, I'm going up "
    "to be with him.",
    "Désolée tout le monde, je dois annuler : mon père est hospitalisé à Lille, je monte le "
    "voir.",
])
def test_a_host_calling_off_with_a_reason_elsewhere_cancels_the_plan(text):
    """The host of a stored party calls it off and says why, naming where they have to go
    ("my dad is in hospital in Leeds"): the party is off, and the place of the reason is no
    new plan's and no place of the party."""
    rows = [_row("R1", "party-noor", activity="party", date="2026-05-12", time="20:00",
                 participants="Noor", status="confirmed")]
    ev = events([they("Noor", text, stream="friends", at="2026-05-06T18:00:00Z"),
                 they("Sam", "oh no, hope he's ok", stream="friends",
                      at="2026-05-06T18:05:00Z")], rows)
    assert ev["R1"]["status"] == "cancelled" and "place" not in ev["R1"], ev
    assert [k for k in ev if k != "R1"] == [], ev


def test_a_salon_rebooking_after_its_own_cancellation_is_the_appointment_not_a_call():
    """"Call or text us to rebook" says how to reach the salon, no call is planned; the
    booking that follows ("booked in with Kai Fri 15th May 09.30") has its day, its dotted
    time after the day, and Kai without the weekday glued to her name."""
    (ev,) = events([
        they("Northside Barbers", "Sorry Robin, Kai is off sick so we've had to cancel "
             "Friday's appointment. Call or text us to rebook", stream="sms-barber"),
        me("No problem, could I do the Friday after, same time?", stream="sms-barber"),
        they("Northside Barbers", "Done! You're booked in with Kai Fri 15th May 09.30 👍",
             stream="sms-barber")]).values()
    assert (ev["date"], ev["time"], ev["status"]) == ("2026-05-15", "09:30", "confirmed")
    assert ev["activity"] != "call"
    assert "Kai" in ev["participants"].split(", ")


def test_a_friends_landing_time_keeps_its_am_and_her_own_later_trip_stays_hers():
    """"Landing Gatwick Saturday 16th at 7.15am" is a morning: the "7" of "7.15am" is no
    bare hour to move to the evening; "I'm off to Cardiff with my sister on the 19th for a
    few days" is her own trip on another day, not the pick-up's place."""
    (ev,) = events([
        they("Ana", "Booked!! Landing Gatwick Saturday 16th at 7.15am", stream="tg-ana"),
        me("amazing, I'll come and get you", stream="tg-ana"),
        they("Ana", "you're a star. then I'm off to Cardiff with my sister on the 19th for a "
             "few days", stream="tg-ana")]).values()
    assert (ev["date"], ev["time"]) == ("2026-05-16", "07:15")
    assert "Cardiff" not in ev.get("place", "")


def test_course_said_for_of_course_is_no_course():
    assert _activity("course, see you Fri at arrivals x") is None
    assert _activity("Course! see you then") is None
    assert _activity("Course starts Monday at 9") == "course"

