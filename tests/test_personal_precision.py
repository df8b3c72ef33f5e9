"""Precision rules for personal streams: what must not become a live record (an
advertisement's dates, someone's cousin's wedding, a birthday's date on a plan, a warm
word after a no) and the changes that must update the record they are about (a moved
check-up, a to-do whose thing is said to be done). Cases worded for this file, in the
languages where the rule has words; none is taken from a benchmark scenario."""

from __future__ import annotations

import pytest
from test_personal_plans import events, me, rules, they
from test_rules import _events, _row

from dream.items import Item
from dream.kinds.records import FieldValue, Record
from dream.pipeline.bundle import Bundle
from dream.pipeline.state import State


# -- an advertisement offers its dates to everyone: no plan -----------------------------------
@pytest.mark.parametrize("sender, text", [
    ("Riverside Cinema", "Late-night screening of Alien on Friday 22 May 2026 at 21:00, "
                         "followed by a talk.\n\nBook now, seats are limited."),
    ("Weingut Keller", "Unsere Weinprobe am Samstag, 23. Mai 2026 um 19 Uhr im Gewölbekeller. "
                       "Jetzt buchen!"),
    ("Le Comptoir", "Dîner dégustation le samedi 23 mai 2026 à 20h. Places limitées, "
                    "réservez vite !"),
    ("Casa Lola", "Cena con flamenco el sábado 23 de mayo de 2026 a las 21:00. Plazas "
                  "limitadas."),
])
def test_an_advertisement_starts_no_plan(sender, text):
    assert events([they(sender, text)]) == {}


def test_a_booking_mail_without_an_offer_is_still_a_plan():
    (ev,) = events([they("Riverside Cinema", "This confirms your booking: Alien on Friday "
                                             "22 May 2026 at 21:00, screen 2.")]).values()
    assert ev["date"] == "2026-05-22" and ev["status"] == "confirmed"


# -- a move reaches the plan it names, whatever its old day; a 24-hour time stays -------------
def test_a_clinic_moving_a_check_up_updates_it():
    row = _row("R1", "check-up-hill-clinic-2026-05-12", activity="check-up",
               title="Check-up with Hill Clinic", date="2026-05-12", time="09:00",
               participants="Hill Clinic", status="confirmed")
    out = events([me("Could we move my check-up to later that week?", stream="mail:1"),
                  they("Hill Clinic", "No problem. We have moved your check-up to Thursday "
                                      "14 May 2026 at 15:20, same clinic.", stream="mail:1")],
                 [row])
    assert list(out) == ["R1"]
    assert (out["R1"]["date"], out["R1"]["time"]) == ("2026-05-14", "15:20")


# -- an invitation waits for the answer; a no stays a no ---------------------------------------
def test_an_invitation_that_asks_is_not_yet_a_plan():
    assert events([they("Ola", "Quiz night is back: Wednesday 13 May, 7pm, at the Fox. "
                               "Coming?")]) == {}


@pytest.mark.parametrize("no", [
    "ah I can't that week, I'm away for work 😩 next one for sure!",
    "can't this time, sorry! Next one definitely, sounds great",
])
def test_a_warm_word_after_a_no_does_not_make_it_a_yes(no):
    out = events([they("Ola", "Quiz night is back: Wednesday 13 May, 7pm, at the Fox. Coming?"),
                  me(no)])
    assert all(ev.get("status") != "confirmed" for ev in out.values())


# -- someone's relative's event and a birthday are no plans of the user's ---------------------
def test_a_cousins_wedding_in_a_group_is_theirs():
    group = "chat-crew"
    out = events([they("Sam", "depends on the weekend, my cousin's wedding is on the 16th",
                       stream=group),
                  they("Jo", "ha the suit", stream=group),
                  me("Ok proposal: Saturday 9 May, 10:00 at the Castle climbing wall",
                     stream=group),
                  they("Jo", "in", stream=group), they("Sam", "in", stream=group)])
    assert not any("wedding" in (ev.get("title", "") + ev.get("activity", "")).lower()
                   for ev in out.values())


def test_an_ordinal_age_is_a_birthday_not_a_plans_day():
    ops = rules([they("Ola", "Drinks at the Fox on Wednesday 13 May at 7pm?"),
                 me("Count me in"),
                 they("Ola", "Also, top secret: it's Kai's 30th on 3 June, keep it quiet")])
    wiki = [o for o in ops if o["op"] == "wiki.fill"]
    assert {f["name"]: f["value"] for f in wiki[0]["fields"]}["birthday"] == "--06-03"
    (ev,) = _events(ops).values()
    assert ev["date"] == "2026-05-13" and ev["status"] == "confirmed"


# -- a to-do's thing said to be in its done state closes it ------------------------------------
def _open_todo(title: str) -> dict:
    return {"handle": "R1", "kind": "todo", "key": "t", "fields": {"title": title,
                                                                  "status": "open"}}


@pytest.mark.parametrize("said", [
    "airport taxi is booked, pick-up at 7 on Friday",
    "Taxi to the airport sorted 👍",
])
def test_the_thing_of_a_todo_said_done_closes_it(said):
    out = rules([me(said, at="2026-05-06T10:00:00Z")], [_open_todo("Book the airport taxi")])
    assert [o["row"] for o in out if o["op"] == "todo.close"] == ["R1"]


@pytest.mark.parametrize("said", [
    "the airport taxi isn't booked yet",
    "I still need to get the airport taxi booked",
    "is the airport taxi booked?",
])
def test_a_thing_not_yet_done_closes_nothing(said):
    out = rules([me(said, at="2026-05-06T10:00:00Z")], [_open_todo("Book the airport taxi")])
    assert not [o for o in out if o["op"] == "todo.close"]


@pytest.mark.parametrize("said", [
    "Permission slip and the £5 went in this morning 👍",
    "the council tax form has gone off, finally",
])
def test_a_thing_to_send_that_went_in_or_off_is_sent(said):
    todos = {"permission": "Send in the permission slip and £5 for the zoo trip by Friday",
             "council": "Send off the council tax form"}
    title = todos["permission" if "slip" in said else "council"]
    out = rules([me(said, at="2026-05-06T10:00:00Z")], [_open_todo(title)])
    assert [o["row"] for o in out if o["op"] == "todo.close"] == ["R1"]


# -- a message naming a to-do's thing shows that to-do to the run --------------------------------
def test_a_message_naming_the_thing_of_an_open_todo_touches_it():
    fv = FieldValue("Sort the cake from the bakery on Mill Street", "2026-05-04T10:00:00Z",
                    ["i1"], "r1", "propose")
    todo = Record("todo", "sort-the-cake", {"title": fv, "status": FieldValue(
        "open", "2026-05-04T10:00:00Z", ["i1"], "r1", "propose")})
    state = State(scope=None, commit=None, records={("todo", todo.key): todo})  # type: ignore[arg-type]
    item = Item(seq=1, id="i2", source="jsonl", ref="", stream="chat", project_key=None,
                author="Robin", role="user", said_at="2026-05-09T16:00:00Z",
                text="Cake collected, it's huge", tool_name=None, is_error=None,
                kind="statement", evidence=True, entities=())
    assert state.touched([Bundle("B1", [item])]) == [todo]



@pytest.mark.parametrize("title, said", [
    ("Yo pago la señal esta semana", "Acabo de hacer la transferencia de la señal"),
    ("Ich besorge die Getränke", "Getränke sind gekauft"),
    ("Je m'occupe de la bûche", "Bûche récupérée, c'est fait !"),
])
def test_a_word_with_an_accent_or_umlaut_names_the_thing_of_an_open_todo(title, said):
    """"señal", "Getränke", "bûche" are words: they were cut at the accent, so a message
    naming the thing never reached the to-do and it stayed open."""
    fv = FieldValue(title, "2026-05-04T10:00:00Z", ["i1"], "r1", "propose")
    todo = Record("todo", "t", {"title": fv, "status": FieldValue(
        "open", "2026-05-04T10:00:00Z", ["i1"], "r1", "propose")})
    state = State(scope=None, commit=None, records={("todo", todo.key): todo})  # type: ignore[arg-type]
    item = Item(seq=1, id="i2", source="jsonl", ref="", stream="chat", project_key=None,
                author="Robin", role="user", said_at="2026-05-09T16:00:00Z", text=said,
                tool_name=None, is_error=None, kind="statement", evidence=True, entities=())
    assert state.touched([Bundle("B1", [item])]) == [todo]
    out = rules([me(said, at="2026-05-09T16:00:00Z")], [_open_todo(title)])
    assert [o["row"] for o in out if o["op"] == "todo.close"] == ["R1"]


# -- a diet someone states about themselves, in four languages ----------------------------------
@pytest.mark.parametrize("text, value", [
    ("fyi I'm coeliac, so no pizza place for me", "coeliac (no gluten)"),
    ("Kurz zu mir: ich bin seit März Veganerin.", "Veganerin (vegan)"),
    ("je suis intolérante au lactose, pas de fromage pour moi", "intolérante au lactose "
                                                                 "(lactose intolerant)"),
    ("ojo, soy celíaca 🙏", "celíaca (coeliac, no gluten)"),
])
def test_a_diet_said_of_oneself_is_a_standing_fact(text, value):
    (op,) = [o for o in rules([me(text)]) if o["op"] == "standing.set"]
    assert {f["name"]: f["value"] for f in op["fields"]} == {"diet": value}


def test_someone_elses_diet_goes_on_their_page():
    ops = rules([they("Gemma", "btw I'm coeliac so can we skip the sandwich place")])
    wiki = [{f["name"]: f["value"] for f in o["fields"]} for o in ops if o["op"] == "wiki.fill"]
    assert {"name": "Gemma", "diet": "coeliac (no gluten)"} in wiki


@pytest.mark.parametrize("text", [
    "I'm in 🙌 vegetarian options there are great",
    "my sister is vegan, can we pick somewhere with options?",
    "I'm not vegetarian any more",
    "Wie wäre es mit einem vegetarischen Kochkurs am Samstag?",
])
def test_food_someone_else_and_a_negation_state_no_diet(text):
    assert not [o for o in rules([me(text)]) if o["op"] == "standing.set"]


@pytest.mark.parametrize("text, value", [
    ("ah et je ne mange plus de poisson depuis l'été, juste pour info", "no poisson"),
    ("quick one: I've stopped eating red meat, so maybe not the steakhouse", "no red meat"),
    ("ich esse übrigens kein Schwein mehr", "no Schwein"),
])
def test_a_food_given_up_is_a_diet(text, value):
    (op,) = [o for o in rules([me(text)]) if o["op"] == "standing.set"]
    assert {f["name"]: f["value"] for f in op["fields"]} == {"diet": value}


@pytest.mark.parametrize("text", ["I don't eat breakfast, just coffee",
                                  "we don't eat out much these days"])
def test_a_habit_with_no_change_is_no_diet(text):
    assert not [o for o in rules([me(text)]) if o["op"] == "standing.set"]


# -- a change that more than one live plan could be about is asked, not guessed -----------------
def test_a_change_two_plans_could_be_about_becomes_questions():
    rows = [_row("R1", "dinner-tom-2026-05-08", title="Dinner with Tom", activity="dinner",
                 date="2026-05-08", time="19:00", participants="Tom", status="confirmed"),
            _row("R2", "climbing-tom-2026-05-09", title="Climbing with Tom",
                 activity="climbing", date="2026-05-09", time="10:00", participants="Tom",
                 status="confirmed")]
    ops = rules([they("Tom", "heads up, we now start at 11:00", stream="sms-tom",
                      at="2026-05-06T09:00:00Z")], rows)
    assert not [o for o in ops if o["op"] == "event.upsert"]
    asked = [{f["name"]: f["value"] for f in o["fields"]} for o in ops
             if o["op"] == "question.ask"]
    assert {q["about"] for q in asked} == {"events/dinner-tom-2026-05-08.md",
                                          "events/climbing-tom-2026-05-09.md"}
    assert all(q["ask"] == "value" and q["field"] == "time" and "11:00" in q["options"]
               for q in asked)
    assert "Dinner with Tom" in next(q["text"] for q in asked if "dinner" in q["about"])


def test_a_change_one_plan_fits_still_updates_it():
    rows = [_row("R1", "dinner-tom-2026-05-08", title="Dinner with Tom", activity="dinner",
                 date="2026-05-08", time="19:00", participants="Tom", status="confirmed")]
    ops = rules([they("Tom", "heads up, we now start at 20:00", stream="sms-tom",
                      at="2026-05-06T09:00:00Z")], rows)
    assert not [o for o in ops if o["op"] == "question.ask"]
    assert _events(ops)["R1"]["time"] == "20:00"


def test_a_calling_off_two_plans_could_be_about_is_asked_and_changes_neither():
    """"Sorry, I can't make it anymore" from a friend with a lunch and a gig booked: which
    one is off is a guess, so both stay confirmed and each gets a question."""
    rows = [_row("R1", "lunch-priya-2026-05-09", title="Lunch with Priya", activity="lunch",
                 date="2026-05-09", time="12:30", participants="Priya", status="confirmed"),
            _row("R2", "gig-priya-2026-05-15", title="Gig with Priya", activity="gig",
                 date="2026-05-15", time="20:00", participants="Priya", status="confirmed")]
    ops = rules([they("Priya", "so sorry, I have to cancel, work has gone mad this month",
                      stream="sms-priya", at="2026-05-06T09:00:00Z")], rows)
    assert all(f.get("status") != "cancelled" for f in _events(ops).values())
    asked = [{f["name"]: f["value"] for f in o["fields"]} for o in ops
             if o["op"] == "question.ask"]
    assert {q["about"] for q in asked} == {"events/lunch-priya-2026-05-09.md",
                                          "events/gig-priya-2026-05-15.md"}
    assert all(q["field"] == "status" and "cancelled" in q["options"] for q in asked)
    assert "called off" in asked[0]["text"]


def test_a_calling_off_one_plan_fits_still_cancels_it():
    rows = [_row("R1", "lunch-priya-2026-05-09", title="Lunch with Priya", activity="lunch",
                 date="2026-05-09", time="12:30", participants="Priya", status="confirmed")]
    ops = rules([they("Priya", "so sorry, I have to cancel, work has gone mad this month",
                      stream="sms-priya", at="2026-05-06T09:00:00Z")], rows)
    assert not [o for o in ops if o["op"] == "question.ask"]
    assert _events(ops)["R1"]["status"] == "cancelled"


def test_a_shift_with_no_new_day_two_plans_fit_is_asked_and_moves_neither():
    """"push the lunch back a week" with two lunches kept: which one (and to which day) is
    asked of each; "the lunch with Sam" names one and asks nothing."""
    rows = [_row("R1", "lunch-sam-2026-05-08", title="Lunch with Sam", activity="lunch",
                 date="2026-05-08", time="19:30", participants="Sam", status="confirmed"),
            _row("R2", "lunch-office-2026-05-13", title="Lunch with the office",
                 activity="lunch", date="2026-05-13", time="18:45", participants="Leah",
                 status="confirmed")]
    ops = rules([me("work's a nightmare, can you push the lunch back a week",
                    stream="assistant-me", at="2026-05-04T09:00:00Z")], rows)
    assert not [o for o in ops if o["op"] == "event.upsert"]
    asked = [{f["name"]: f["value"] for f in o["fields"]} for o in ops
             if o["op"] == "question.ask"]
    assert sorted((q["about"], q["field"], q["options"]) for q in asked) == [
        ("events/lunch-office-2026-05-13.md", "date", '["2026-05-13"]'),
        ("events/lunch-sam-2026-05-08.md", "date", '["2026-05-08"]')]
    ops = rules([me("can you push the lunch with Sam back a week", stream="assistant-me",
                    at="2026-05-04T09:00:00Z")], rows)
    assert not [o for o in ops if o["op"] == "question.ask"]


# -- a new job, said as German, French and Spanish say it ---------------------------------------
@pytest.mark.parametrize("text, employer", [
    ("Kleine Neuigkeit: ich wechsle zum 1. März zu Bosch nach Stuttgart", "Bosch"),
    ("Je commence chez Decathlon lundi !", "Decathlon"),
    ("¡Empiezo en Mercadona el lunes!", "Mercadona"),
])
def test_a_new_job_in_three_languages_is_the_speakers_employer(text, employer):
    ops = rules([they("Kim", text)])
    wiki = [{f["name"]: f["value"] for f in o["fields"]} for o in ops if o["op"] == "wiki.fill"]
    assert {"name": "Kim", "work": employer} in wiki


@pytest.mark.parametrize("text", ["Je commence à Paris lundi", "Empiezo a las 9 mañana",
                                  "je commence avec Marie demain"])
def test_starting_somewhere_or_at_a_time_is_no_job(text):
    assert not [o for o in rules([they("Kim", text)]) if o["op"] == "wiki.fill"]


# -- a move said first in the day's messages reaches the plan of the people who write there -----
def test_a_german_move_said_before_anyone_answers_moves_the_groups_plan():
    row = _row("R1", "barbecue-stadtpark-2026-05-16", title="Grillen – Stadtpark",
               activity="barbecue", date="2026-05-16", time="18:00", place="Stadtpark",
               participants="Felix", status="confirmed")
    out = events([me("Für Samstag ist Regen angesagt. Wir verschieben auf Sonntag, den 17. Mai, "
                     "gleiche Uhrzeit.", stream="grill", at="2026-05-14T09:00:00Z"),
                  they("Felix", "passt 👍", stream="grill", at="2026-05-14T09:05:00Z"),
                  they("Mira", "Sonntag geht auch", stream="grill", at="2026-05-14T09:06:00Z"),
                  me("Grill ist abgeholt und steht bei mir im Flur ✅", stream="grill",
                     at="2026-05-15T17:00:00Z")], [row])
    assert (out["R1"]["date"], out["R1"].get("time", "18:00")) == ("2026-05-17", "18:00")
    assert "place" not in out["R1"]       # where the grill stands is no plan's place


# -- a birthday told with "son", "her", "sein", "su" is the celebrated person's ---------------------
@pytest.mark.parametrize("first, second, person, value", [
    ("Pour les 30 ans de Camille j'ai réservé au Bouillon samedi", "pour info son anniversaire "
     "c'est le 9 octobre", "Camille", "--10-09"),
    ("Surprise for Kai's 30th on Saturday!", "fyi her birthday is on 3 June", "Kai", "--06-03"),
    ("Oma wird 80, wir feiern im Garten", "Ihr Geburtstag ist am 14. März", "Oma", "--03-14"),
    ("Hacemos algo para los 40 de Javi?", "su cumple es el 4 de mayo", "Javi", "--05-04"),
])
def test_a_birthday_told_with_a_possessive_goes_to_the_celebrated_person(first, second,
                                                                        person, value):
    ops = rules([they("Ola", first), they("Ben", second)])
    wiki = [{f["name"]: f["value"] for f in o["fields"]} for o in ops if o["op"] == "wiki.fill"]
    assert {"name": person, "birthday": value} in wiki


def test_a_possessive_birthday_with_nobody_celebrated_goes_nowhere():
    ops = rules([they("Ola", "lunch on Friday?"), they("Ben", "her birthday is on 3 June")])
    assert not [o for o in ops if o["op"] == "wiki.fill"]


@pytest.mark.parametrize("text, person, value", [
    ("Et n'oublie pas que Papa (Gérard) fête ses 65 ans le 26 décembre", "Gérard", "--12-26"),
    ("Javi celebra sus 40 el 3 de mayo", "Javi", "--05-03"),
    ("Opa feiert seinen 80. am 3. Mai", "Opa", "--05-03"),
])
def test_an_age_celebrated_on_a_day_is_a_birthday(text, person, value):
    ops = rules([they("Ola", text)])
    wiki = [{f["name"]: f["value"] for f in o["fields"]} for o in ops if o["op"] == "wiki.fill"]
    assert {"name": person, "birthday": value} in wiki


def test_the_celebrated_person_is_remembered_over_other_talk():
    ops = rules([they("Ola", "Pour les 30 ans de Camille j'ai réservé samedi à 20h"),
                 they("Lucie", "trop bien !!"), they("Théo", "je suis allergique au kiwi"),
                 they("Lucie", "pour info son anniversaire c'est le 9 octobre")])
    wiki = [{f["name"]: f["value"] for f in o["fields"]} for o in ops if o["op"] == "wiki.fill"]
    assert {"name": "Camille", "birthday": "--10-09"} in wiki


def test_a_message_of_spaces_is_read_for_birthdays_in_linear_time(monkeypatch):
    """A message without the word "birthday" was still searched for "X is my birthday",
    from every start: 1,000 spaces took seconds, 32,000 (what collect keeps) minutes. The
    word is looked for first; a birthday said the day first is still read."""
    from dream.detect import facts

    def item(text: str) -> Item:
        return Item(seq=1, id="E1", source="jsonl", ref="", stream="sms-tom",
                    project_key=None, author="Tom", role="other",
                    said_at="2026-03-01T10:00:00Z", text=text, tool_name=None,
                    is_error=None, kind="message", evidence=True, entities=())

    tried: list[str] = []

    class Counted:
        def __init__(self, pattern):
            self.pattern = pattern

        def search(self, text):
            tried.append(text)
            return self.pattern.search(text)

    monkeypatch.setattr(facts, "_MY_BIRTHDAY_AFTER", Counted(facts._MY_BIRTHDAY_AFTER))
    assert facts.birthdays(item(" " * 3000)) == []
    assert tried == []          # the pattern that tried every start is not run at all
    [found] = facts.birthdays(item("the 14th of June is my birthday, come over"))
    assert found.fields["name"] == "Tom" and "06-14" in found.fields["birthday"]


def _open_row(title: str, asker: str = "") -> Record:
    at = "2026-05-04T10:00:00Z"
    fields = {"title": FieldValue(title, at, ["i1"], "r1", "propose"),
              "status": FieldValue("open", at, ["i1"], "r1", "propose")}
    if asker:
        fields["from"] = FieldValue(asker, at, ["i1"], "r1", "propose")
    return Record("todo", "t", fields)


def _said(text: str, author: str = "Robin", role: str = "user") -> Item:
    return Item(seq=1, id="i2", source="jsonl", ref="", stream="chat", project_key=None,
                author=author, role=role, said_at="2026-05-09T16:00:00Z", text=text,
                tool_name=None, is_error=None, kind="message", evidence=True, entities=())


@pytest.mark.parametrize("title, asker, item", [
    # the payment said as done or as its noun, without the thing: "Pay the fee"
    ("Pay the fee", "", _said("Thank you. We have received your payment of £40.00 for ref "
                              "KX-2231.", author="Harbour Marina", role="other")),
    ("Send the signed lease back", "", _said("Sent! Let me know if the scan is unreadable")),
    # the person who asked for it writes again
    ("Send me the gate code when you get a minute", "Dana Whit",
     _said("👍 got it", author="Dana Whit", role="other")),
])
def test_a_message_about_a_todo_without_its_thing_touches_it(title, asker, item):
    todo = _open_row(title, asker)
    state = State(scope=None, commit=None, records={("todo", todo.key): todo})  # type: ignore[arg-type]
    assert state.touched([Bundle("B1", [item])]) == [todo]


def test_a_message_with_neither_the_thing_the_verb_done_nor_the_asker_touches_nothing():
    todo = _open_row("Pay the fee", "Harbour Marina")
    state = State(scope=None, commit=None, records={("todo", todo.key): todo})  # type: ignore[arg-type]
    assert state.touched([Bundle("B1", [_said("Lovely evening, thanks all")])]) == []


def test_a_message_naming_the_thing_inside_a_compound_touches_the_todo():
    """"Das Einweihungsgeschenk hab ich gestern losgeschickt" names "Einweihung" of the
    to-do inside a compound, as the to-do reader matches it: the row must be shown."""
    todo = _open_row("Ich schick euch was zur Einweihung")
    state = State(scope=None, commit=None, records={("todo", todo.key): todo})  # type: ignore[arg-type]
    said = _said("Das Einweihungsgeschenk hab ich gestern losgeschickt 📦")
    assert state.touched([Bundle("B1", [said])]) == [todo]
    out = rules([me(said.text, at="2026-05-09T16:00:00Z")],
                [_open_todo("Ich schick euch was zur Einweihung")])
    assert [o["row"] for o in out if o["op"] == "todo.close"] == ["R1"]
