"""To-dos of personal streams (dream.detect.todos): a title says who and what on its own,
without the remark, the time words or the name called that came with it; a task that names
its thing or person only by a pronoun is none; a later message closes what it says is done.
Cases worded for this file; none is taken from a benchmark scenario."""

from __future__ import annotations

import pytest
from test_personal_plans import me, rules, they, todos
from test_rules import _fields


def _open_todo(title: str) -> dict:
    return {"handle": "R1", "kind": "todo", "key": "t", "fields": {"title": title,
                                                                  "status": "open"}}


def _closed(msgs: list[dict], title: str) -> list[str]:
    return [o["row"] for o in rules(msgs, [_open_todo(title)]) if o["op"] == "todo.close"]


# -- a title is the task alone -------------------------------------------------------------------
@pytest.mark.parametrize("text, title", [
    ("I'll renew the parking permit before then, it runs out on the 30th",
     "Renew the parking permit"),
    ("remind me to buy the tiles - they're on offer till Sunday", "Buy the tiles"),
    ("I'll order the new filter this week anyway", "Order the new filter"),
    ("I'll bring a tray of flapjacks for after", "Bring a tray of flapjacks"),
    ("Je t'envoie le devis demain Margaux", "Je t'envoie le devis"),
])
def test_a_title_drops_a_remark_a_time_and_a_name_called(text, title):
    (todo,) = todos([me(text)])
    assert todo["title"] == title


def test_a_closing_remark_does_not_keep_the_to_do_from_being_closed():
    """The title kept the remark ("..., it runs out on the 30th"): the later "renewed the
    parking permit" shared too few of its words to close it."""
    out = rules([me("I'll renew the parking permit before then, it runs out on the 30th"),
                 me("renewed the parking permit online, all good", at="2026-05-06T09:00:00Z")])
    assert [o["op"] for o in out if o["op"].startswith("todo")] == ["todo.open", "todo.close"]


# -- a task named only by a pronoun is none --------------------------------------------------------
@pytest.mark.parametrize("msgs", [
    [me("I'll sort it all out first thing Friday")],
    [me("fine, I'll book it myself tonight")],
    [they("Kemi", "can you ring her about the spare keys?"), me("yep")],
])
def test_a_task_whose_thing_or_person_is_only_a_pronoun_is_no_to_do(msgs):
    assert todos(msgs) == []


@pytest.mark.parametrize("text, word", [
    ("remind me to buy him a scarf, he's always cold", "scarf"),
    ("I'll call them tomorrow to reschedule", "reschedule"),
    ("I'll return her laptop on Saturday", "laptop"),
])
def test_a_pronoun_with_the_thing_or_the_purpose_said_is_a_to_do(text, word):
    (todo,) = todos([me(text)])
    assert word in todo["title"]


def test_a_person_to_call_or_email_is_the_task_not_company():
    """"I'll bring Jo" is company; "I'll email Dr Osei" is a task, done once emailed."""
    out = rules([they("Sam", "who's telling the landlord's agent?"),
                 me("I'll email Dr Osei tomorrow"),
                 me("emailed Dr Osei, he's fine with the 9th", at="2026-05-06T09:00:00Z")])
    ops = [(o["op"], _fields(o).get("title")) for o in out if o["op"].startswith("todo")]
    assert ops[0] == ("todo.open", "Email Dr Osei") and ops[1][0] == "todo.close"
    assert todos([me("I'll bring Jo to the barbecue")]) == []


# -- a thing sent that "has gone off" -------------------------------------------------------------
def test_a_french_thing_that_is_gone_off_is_sent():
    assert _closed([me("au fait, le devis est parti ce matin")],
                   "Je t'envoie le devis") == ["R1"]


# -- standing facts about other people (dream.detect.facts) ---------------------------------------
def _pages(msgs: list[dict]) -> list[dict[str, str]]:
    return [_fields(o) for o in rules(msgs) if o["op"] == "wiki.fill"]


@pytest.mark.parametrize("author, text, work", [
    ("Tunde", "big news: I'm starting at the National Trust in March!!", "National Trust"),
    ("Gwen", "so I start at the Royal Mint on Monday, wish me luck", "Royal Mint"),
    ("Olly", "I've got the job at Ocado 🎉 start after Easter", "Ocado"),
    ("Maëlle", "Petite nouvelle : je rejoins Doctolib en mars !", "Doctolib"),
])
def test_someone_elses_new_job_is_on_their_page(author, text, work):
    assert {"name": author, "work": work} in _pages([they(author, text)])


@pytest.mark.parametrize("text", [
    "I start at the Crown at 6, see you there",
    "je rejoins Marc au bar vers 20h",
    "I got the tickets at Waterstones",
])
def test_a_place_to_meet_or_shop_is_no_job(text):
    assert not [p for p in _pages([they("Tunde", text)]) if "work" in p]


@pytest.mark.parametrize("text, person, allergy", [
    ("Just so you know, Noah has a severe egg allergy", "Noah", "egg"),
    ("no sesame in the snacks please, my Ruby has a sesame allergy", "Ruby", "sesame"),
    ("Bitte keine Nüsse: Finn reagiert allergisch auf Haselnüsse", "Finn", "Haselnüsse"),
])
def test_an_allergy_someone_has_is_on_their_page(text, person, allergy):
    assert {"name": person, "allergies": allergy} in _pages([they("Priya", text)])


@pytest.mark.parametrize("text", [
    "I'll order a new one, the old kettle finally died",
    "I'll grab a gluten-free one in",
])
def test_a_thing_named_only_as_one_is_no_to_do(text):
    assert todos([me(text)]) == []


@pytest.mark.parametrize("text, word", [
    ("I'll book a one-way ticket to Leeds", "one-way"),
    ("I'll bring one of my spare tents", "tents"),
])
def test_one_that_says_the_thing_is_a_to_do(text, word):
    (todo,) = todos([me(text)])
    assert word in todo["title"]


def test_a_diet_said_with_when_it_began_is_a_diet():
    """"coeliac last month": the word after the diet is when, not a food it describes."""
    pages = _pages([they("Nia", "fyi I was diagnosed coeliac last spring, so no bread for me")])
    assert {"name": "Nia", "diet": "coeliac (no gluten)"} in pages


@pytest.mark.parametrize("text, page", [
    ("Und Greta wird am 3. März 60, wir sammeln für ein Geschenk",
     {"name": "Greta", "birthday": "--03-03"}),
    ("And Freddie has a bad egg allergy, so no meringues", {"name": "Freddie", "allergies": "egg"}),
])
def test_a_first_word_glued_to_a_name_is_no_part_of_it(text, page):
    """"Und Greta" was read as one name whose first word is no name, and dropped."""
    assert page in _pages([they("Heike", text)])


def test_asking_someone_is_no_to_do_of_its_own():
    assert todos([me("not sure about the 12th, I'll ask Mum")]) == []
