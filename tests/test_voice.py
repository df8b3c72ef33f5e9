"""A preference or rule said in the first person reads as the user's in the brief: the
brief is read at the start of a later session by an agent for whom "I" would be itself."""

from __future__ import annotations

import pytest

from dream.kinds.records import FieldValue, Record
from dream.kinds.voice import the_users
from dream.pipeline.render import render_brief
from dream.pipeline.state import Scope, State

CASES = [
    ("I prefer timezone-aware timestamps everywhere, so make it TIMESTAMP WITH TIME ZONE.",
     "The user prefers timezone-aware timestamps everywhere, so make it TIMESTAMP WITH "
     "TIME ZONE."),
    ("I'd rather you asked before pushing.", "The user would rather you asked before pushing."),
    ("I’d prefer tea.", "The user would prefer tea."),
    ("I would prefer pytest over unittest.", "The user would prefer pytest over unittest."),
    ("I don't like emojis in commit messages.",
     "The user doesn't like emojis in commit messages."),
    ("I do not like it when I am interrupted.",
     "The user does not like it when they are interrupted."),
    ("Actually, I prefer black coffee now.", "Actually, the user prefers black coffee now."),
    ("For dates, I prefer ISO 8601.", "For dates, the user prefers ISO 8601."),
    ("My favourite airline is KLM.", "The user's favourite airline is KLM."),
    ("I always take the aisle seat when I fly.",
     "The user always takes the aisle seat when they fly."),
    ("I want you to call me Sam.", "The user wants you to call them Sam."),
    ("I'm vegetarian, so no meat for me.", "The user is vegetarian, so no meat for them."),
    ("I've switched to oat milk.", "The user has switched to oat milk."),
    ("I try to keep PRs small.", "The user tries to keep PRs small."),
    ("I watch my weight.", "The user watches their weight."),
    ("i really like dark mode", "The user really likes dark mode"),
    ("i hate tabs; i use spaces", "The user hates tabs; they use spaces"),
    ("Remind me to stretch.", "Remind the user to stretch."),
    ("I prefer aisle seats, but my partner prefers the window.",
     "The user prefers aisle seats, but their partner prefers the window."),
    # code is left as written; no first person, another language: unchanged
    ("I like `my_script.sh -i me` better than make.",
     "The user likes `my_script.sh -i me` better than make."),
    ("Use pnpm instead of npm.", "Use pnpm instead of npm."),
    ("We prefer squash merges.", "We prefer squash merges."),
    ("Step i of the plan comes first.", "Step i of the plan comes first."),
    ("Pass -I include to gcc, I prefer it.", "Pass -I include to gcc, the user prefers it."),
    ("I/O errors are fine, I think.", "I/O errors are fine, the user thinks."),
    ("Ich bevorzuge Tee am Morgen.", "Ich bevorzuge Tee am Morgen."),
    ("", ""),
]


@pytest.mark.parametrize("said, shown", CASES)
def test_the_first_person_becomes_the_users(said, shown):
    assert the_users(said) == shown


def note(key: str, text: str, type_: str) -> Record:
    rec = Record("note", key, version=1)
    for name, value in (("text", text), ("type", type_)):
        rec.fields[name] = FieldValue(value, "2026-03-01T10:00:00Z", ["e1"], "run", "propose")
    return rec


def test_a_brief_shows_a_first_person_preference_as_the_users():
    st = State(Scope(store=None, root="projects/shop", project_key="shop-1",  # type: ignore[arg-type]
                     name="shop"), commit=None)
    for rec in (note("pref", "I prefer timezone-aware timestamps everywhere.", "preference"),
                note("rule", "I would only want e2e tests for AgentSession.", "directive"),
                note("fail", "`make` fails with: I/O error. Fix: run `make -I lib`.", "failure"),
                note("pick", "Should I use SQLite? The user chose: yes.", "decision")):
        st.records[(rec.kind, rec.key)] = rec
    brief = render_brief(st)
    assert "- The user prefers timezone-aware timestamps everywhere. [" in brief
    assert "- The user would only want e2e tests for AgentSession. [" in brief
    assert "I prefer" not in brief and "I would" not in brief
    # a tool's output and the agent's question keep their words
    assert "fails with: I/O error. Fix: run `make -I lib`." in brief
    assert "Should I use SQLite? The user chose: yes." in brief
    assert st.records[("note", "pref")].get("text").startswith("I prefer")  # kept as said


def test_a_verb_said_in_the_past_is_the_same_after_the_user():
    assert the_users("I told you last time") == "The user told you last time"
    assert the_users("I switched from nimpretty") == "The user switched from nimpretty"
    assert the_users("I need the logs") == "The user needs the logs"


def test_a_first_person_to_do_and_fact_read_as_the_users_in_the_brief(dream, repo, dream_home,
                                                                     tmp_path):
    """Through the real CLI: "Remind me to renew my passport" is a to-do the brief shows as
    the user's (an agent must not read it as its own passport), one Sam asked for ("send me
    the invoice") as Sam's; the records keep the words as said."""
    from test_scenarios import run_json, stage

    dream("init")
    stage(tmp_path, "todos.jsonl", [
        {"id": "m1", "time": "2026-03-10T12:05:00Z", "stream": "sms-sam", "author": "Sam",
         "role": "other", "to": ["me"],
         "text": "Can you send me the climbing gym invoice by Thursday?"},
        {"id": "m2", "time": "2026-03-10T12:20:00Z", "stream": "notes-to-self",
         "author": "me", "role": "user",
         "text": "Remind me to renew my passport before the Lisbon trip."}])
    assert run_json(dream, "--model", "rules")["status"] == "ok"
    brief = dream("brief", "--user").output
    todos = brief.split("## Open to-dos", 1)[1].split("\n## ", 1)[0]
    assert "- Renew the user's passport before the Lisbon trip [todos/" in todos
    assert "- Send Sam the climbing gym invoice (due " in todos
    assert " my " not in todos and " me " not in todos
    todo_dir = dream_home / "notes" / "user" / "todos"
    titles = sorted(p.read_text().split("\n# ", 1)[1].splitlines()[0]
                    for p in todo_dir.glob("*.md"))
    assert titles == ["Renew my passport before the Lisbon trip",
                      "Send me the climbing gym invoice"]


def test_standing_facts_and_fact_notes_read_as_the_users():
    st = State(Scope(store=None, root="user", project_key=None, name="user"),  # type: ignore[arg-type]
               commit=None)
    standing = Record("standing", "standing", version=1)
    standing.fields["home"] = FieldValue("my parents' flat in Porto", "2026-03-01T10:00:00Z",
                                         ["e1"], "run", "propose")
    st.records[("standing", "standing")] = standing
    fact = note("fact", "Remember that my badge number is 4411.", "fact")
    st.records[(fact.kind, fact.key)] = fact
    brief = render_brief(st)
    assert "- home: The user's parents' flat in Porto [standing.md#home]" in brief
    assert "- Remember that the user's badge number is 4411. [" in brief
