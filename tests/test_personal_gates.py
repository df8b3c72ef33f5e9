"""Gates of evidence for personal streams: a record is written only when the message that
gives it can defend it. Each table holds cases that must write nothing next to cases
that must still write the record, worded for this file (not taken from any benchmark
scenario). Said on Monday 4 May 2026 unless a case says otherwise."""

from __future__ import annotations

import pytest
from test_personal_plans import events, me, rules, they, todos


# -- a to-do is the user's to do: not a mail's own instructions, not an invitation --------------
@pytest.mark.parametrize("msgs, task", [
    # the mail's instructions about itself
    ([they("Roxy Cinema", "Thank you for booking with Roxy Cinema.\n\nFilm: Dune\nShowing: "
                          "Friday 8 May 2026, 8.15pm\nSeats: F7, F8\n\nPlease bring this "
                          "email or your booking code to the kiosk.")], None),
    ([they("Fenwick Tyres", "We're sorry, we have had to cancel your tyre fitting on Thursday "
                            "7 May at 09:00. Please use the link below to pick another slot, "
                            "there is no charge.")], None),
    # an invitation: the answer is a yes or no to a plan
    ([they("Priya", "We're tying the knot! Please join us on Saturday 12 June at Fern "
                    "Barn.")], None),
    ([they("Tomasz", "Please come and celebrate with us on Friday 15 May, from 7!")], None),
    # a request to the user about a thing stays a to-do
    ([they("Ola", "Please send the signed lease back by Friday 8 May")], "signed lease"),
    ([they("Jens", "Can you bring the folding chairs on Saturday?")], "folding chairs"),
])
def test_a_to_do_is_a_task_of_the_users(msgs, task):
    got = todos(msgs)
    if task is None:
        assert got == []
    else:
        assert len(got) == 1 and task in got[0]["title"]


# -- a plan's time and day come from the plan, not from a deadline or opening hours -------------
def test_the_day_an_answer_is_due_is_no_plans_day():
    ev = events([they("Nina", "Our summer party is at Lark Hill! Drinks from 3pm. Kindly "
                              "RSVP by Wednesday 20 May."), me("We'd love to come!")])
    assert not [e for e in ev.values() if e.get("date") == "2026-05-20"]


@pytest.mark.parametrize("msgs", [
    [they("Chez Margot", "Votre réservation est confirmée pour vendredi 8 mai 2026. Chez "
                         "Margot - Ouvert 7j/7 de 12h à 23h30")],
    [they("Lido Pool", "Your swim session is booked for Friday 8 May 2026. Lido Pool, open "
                       "daily 7am-9pm")],
])
def test_opening_hours_are_no_plans_time(msgs):
    (ev,) = events(msgs).values()
    assert ev["date"] == "2026-05-08" and "time" not in ev


# -- a booking and the kind of event it is for, said of one day, are one plan -----------------
def test_a_booking_and_the_event_it_is_for_on_its_day_are_one_plan():
    evs = events([
        they("Le Petit Zinc", "Subject: Confirmation de votre réservation\n\nBonjour Robin, "
                              "votre réservation est confirmée : samedi 9 mai 2026 à 20h30, 4 "
                              "personnes.\nLe Petit Zinc", stream="mail-zinc"),
        me("Subject: Dîner samedi 9\n\nSalut ! C'est réservé : samedi 9 à 20h30 au Petit "
           "Zinc, on sera quatre.", stream="mail-friends")])
    (ev,) = evs.values()
    assert ev["date"] == "2026-05-09" and ev["activity"] == "dinner"


# -- a kind of event alone, from someone not in the plan in another conversation, is no news of it
@pytest.mark.parametrize("first, other", [
    (they("Kleinfeld Dental", "Subject: Terminbestätigung\n\nhiermit bestätigen wir Ihren "
                              "Termin am Donnerstag, 14. Mai 2026, um 16:30 Uhr.",
          stream="mail-dental"),
     they("Stadtbibliothek", "Subject: Erinnerung\n\nIhr Leseausweis läuft bald ab. Bitte "
                             "vereinbaren Sie rechtzeitig einen Termin über das Portal.",
          stream="mail-library")),
    (they("Corn Exchange", "Your tickets: Saturday 16 May 2026, doors 19:00. Enjoy the show!",
          stream="mail-corn"),
     they("ResellHub", "Can't make a gig? Resell your spare tickets in two minutes.",
          stream="mail-resell")),
])
def test_a_kind_of_event_named_alone_elsewhere_lends_the_plan_no_participant(first, other):
    (ev,) = events([first, other]).values()
    assert ev["participants"] == first["author"]


# -- an idiom or a name is no kind of event ------------------------------------------------------
@pytest.mark.parametrize("clause, activity", [
    ("Of course! 11:30 is fine, same place.", None),
    ("yes of course, Thursday works", None),
    ("New tyres for the Golf on Friday 8 May at 9am at Autofix Leeds", None),
    ("Remind me: tickets for the Tempest, Friday 8 May", "tickets"),
    ("a pottery course on Monday evenings", "pottery course"),
    ("golf with Sam on Saturday?", "golf"),
    ("dinner at the Ivy on Friday", "dinner"),
])
def test_an_idiom_or_a_name_is_no_kind_of_event(clause, activity):
    from dream.detect.plan_words import activity_of
    assert activity_of(clause) == activity


def test_of_course_with_a_new_time_starts_no_course():
    rows = [{"handle": "R1", "kind": "event", "key": "language-exchange-mika",
             "fields": {"activity": "language exchange", "date": "2026-05-09", "time": "10:00",
                        "status": "confirmed", "participants": "Mika", "place": "Leaf"}}]
    ev = events([they("Mika", "Could we start at 11:30 on Saturday instead?", stream="t-mika"),
                 me("Of course! 11:30 is fine, same place. Good luck to Juno!",
                    stream="t-mika")], rows)
    assert not [k for k, f in ev.items() if "course" in f.get("activity", "")]


# -- only whoever organised a group's plan calls it off -----------------------------------------
def test_in_a_group_only_the_organiser_calls_a_plan_off():
    g = "whatsapp-squash"
    day = [they("Ana", "Court booked: Thursday 14 May at 7pm at Westway Sports Centre. Who's in?",
                stream=g), they("Ben", "in", stream=g), me("in!", stream=g),
           they("Ben", "that ref last night should be scrapped", stream=g)]
    (ev,) = events(day).values()
    assert ev["status"] == "confirmed"
    (ev,) = events(day + [they("Ana", "Sorry all, Thursday is cancelled, the hall flooded",
                               stream=g)]).values()
    assert ev["status"] == "cancelled"


# -- a change said of a to-do's thing is the to-do's, not a plan's ------------------------------
def test_a_new_day_for_a_task_moves_no_plan():
    rows = [{"handle": "R1", "kind": "event", "key": "planning-sync",
             "fields": {"activity": "planning sync", "date": "2026-05-07", "time": "15:00",
                        "status": "confirmed", "participants": "Dana Cole", "place": "Room 4"}},
            {"handle": "R2", "kind": "todo", "key": "budget-sheet",
             "fields": {"title": "Send Dana the quarterly budget sheet", "due": "2026-05-08",
                        "status": "open", "from": "Dana Cole"}}]
    ev = events([they("Dana Cole", "Update on the budget sheet: finance want the travel lines "
                                   "too, so let's say Tuesday 12th instead of Friday.",
                      stream="slack-dm"),
                 me("No problem, Tuesday 12th it is", stream="slack-dm")], rows)
    assert ev.get("R1", {}).get("date") in (None, "2026-05-07")


# -- a name joined by "and" or "&" is one place -----------------------------------------------
@pytest.mark.parametrize("text, place", [
    ("Team dinner is booked: the Rose and Crown in Deptford, Friday 8 May, 7pm.",
     "Rose and Crown"),
    ("Quiz night on Thursday 7 May at 8pm at Fox & Hounds, back room", "Fox & Hounds"),
])
def test_a_name_joined_by_and_is_one_place(text, place):
    (ev,) = events([me(text)]).values()
    assert ev["place"] == place


# -- the user telling they got the thing of an errand closes it ---------------------------------
@pytest.mark.parametrize("said, done", [
    ("got the printer ink 🖨️ two cartridges actually, they were on offer", True),
    ("Picked up the printer ink on the way home", True),
    ("got your message, will grab the printer ink tomorrow", False),
    ("got the bus home, so tired", False),
])
def test_getting_the_thing_of_an_errand_closes_it(said, done):
    ops = rules([they("Kim", "can you grab the printer ink on the way home tomorrow?",
                      stream="sms-kim", at="2026-05-04T17:00:00Z"),
                 me(said, stream="sms-kim", at="2026-05-05T18:40:00Z")])
    assert any(o["op"] == "todo.open" for o in ops)
    assert any(o["op"] == "todo.close" for o in ops) == done


def test_a_reply_deadline_in_the_plans_own_sentence_leaves_the_plan():
    (ev,) = events([they("Rocío", "La cena de verano será el viernes 15 de mayo a las 21:30 en "
                                  "El Patio Verde 🌿 Confirmad antes del lunes porfa",
                         stream="g"), they("Álvaro", "Yo voy", stream="g"),
                    me("Contad conmigo", stream="g")]).values()
    assert (ev["date"], ev["time"], ev["status"]) == ("2026-05-15", "21:30", "confirmed")


# -- taking back what was said crumples the note about it; what holds now is kept --------------
@pytest.mark.parametrize("said, now", [
    ("and scrap what I said about evenings, I've joined a choir so mornings suit me far "
     "better now", "mornings"),
    ("Vale. Y olvida lo de las tardes: desde enero trabajo de tarde y ahora me vienen mejor "
     "las mañanas", "mañanas"),
    ("Übrigens, vergiss das mit den Abendterminen, morgens passt mir jetzt viel besser",
     "morgens"),
])
def test_a_retraction_crumples_the_note_it_takes_back(said, now):
    rows = [{"handle": "R1", "kind": "note", "key": "preference-evenings",
             "fields": {"text": "I like appointments in the evening (tardes, Abendtermine)",
                        "type": "preference", "status": "live"}}]
    ops = rules([me(said, stream="assistant")], rows)
    assert [o["row"] for o in ops if o["op"] == "note.crumple"] == ["R1"]
    (note,) = [o for o in ops if o["op"] != "note.crumple" and
               any(f["name"] == "type" for f in o["fields"])]
    text = {f["name"]: f["value"] for f in note["fields"]}["text"]
    assert now in text.lower() and "scrap" not in text.lower()


def test_taking_back_nothing_named_crumples_nothing():
    rows = [{"handle": "R1", "kind": "note", "key": "preference-aisle",
             "fields": {"text": "I prefer aisle seats", "type": "preference",
                        "status": "live"}}]
    ops = rules([me("forget what I said about the hotel, the old one is fine after all",
                    stream="assistant")], rows)
    assert not [o for o in ops if o["op"] == "note.crumple"]


# -- a booking of no kind is named by what its mail is about ------------------------------------
@pytest.mark.parametrize("subject, word", [
    ("Annual gas safety check - Flat 2, 8 Mill Lane", "gas safety check"),
    ("Your booking: The Tempest - Fri 8 May 2026, 7.30pm", "The Tempest"),
    ("Votre rendez-vous prêt immobilier", "prêt immobilier"),
])
def test_a_booking_of_no_kind_is_named_by_its_mails_subject(subject, word):
    (ev,) = events([they("Harbour Homes", f"Subject: {subject}\n\nDear Robin, your appointment "
                                          "is booked for Friday 8 May 2026 at 10:30.",
                         stream="mail-hh")]).values()
    assert word in ev["title"]


def test_a_subject_that_only_says_booking_names_nothing():
    (ev,) = events([they("Harbour Homes", "Subject: Booking confirmation\n\nDear Robin, your "
                                          "appointment is booked for Friday 8 May 2026 at "
                                          "10:30.", stream="mail-hh")]).values()
    assert "confirmation" not in ev["title"].lower()


# -- a to-do's title is the task; its due date is kept apart -----------------------------------
@pytest.mark.parametrize("text, title", [
    ("Note to self: pay the water bill by Friday 8 May", "Pay the water bill"),
    ("Note to self: renew the parking permit before Thursday the 14th",
     "Renew the parking permit"),
    ("remind me to book the MOT by the 20th", "Book the MOT"),
    ("remind me to call the bank on Monday", "Call the bank"),
])
def test_a_due_date_said_after_the_task_is_no_part_of_its_title(text, title):
    got = todos([me(text)])
    assert [t["title"] for t in got] == [title] and got[0].get("due")


# -- a to-do names its thing; a placeholder is no task anybody could act on ---------------------
@pytest.mark.parametrize("msgs, task", [
    ([they("Tom", "Robin can you bring the thing to Ola before then?")], None),
    ([me("I'll bring it")], None),
    ([they("Jens", "Kannst du das Ding mitbringen?")], None),
    ([they("Léa", "Tu peux apporter le truc samedi ?")], None),
    # a pronoun with what the task is for, or a named thing, stays a to-do
    ([me("I'll call them on Wednesday to rebook the vet")], "rebook"),
    ([they("Tom", "Robin can you bring the speaker to Ola before then?")], "speaker"),
])
def test_a_task_whose_thing_is_a_placeholder_is_no_to_do(msgs, task):
    got = todos(msgs)
    if task is None:
        assert got == []
    else:
        assert len(got) == 1 and task in got[0]["title"]


@pytest.mark.parametrize("done", [
    "Acabo de hacer la transferencia de la señal, os paso el justificante",
    "Je viens de faire le virement de l'acompte",
    "Ich habe die Anzahlung gerade überwiesen",
])
def test_just_done_in_spanish_french_and_german_closes_the_to_do(done):
    open_ = {"señal": "Yo pago la señal esta semana", "acompte": "Je paie l'acompte demain",
             "Anzahlung": "Ich überweise die Anzahlung morgen"}
    word = next(w for w in open_ if w in done)
    ops = rules([me(open_[word], stream="s"), me(done, stream="s")])
    assert [o["op"] for o in ops if o["op"].startswith("todo.")] == ["todo.open", "todo.close"]
