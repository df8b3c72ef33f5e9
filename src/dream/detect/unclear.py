"""Questions instead of guesses: a change whose plan the message does not make clear.

A message that moves a plan without naming it ("we now start at 10", "pushed to Friday")
reaches the one live event of the people talking or of the place it names. When two or
more live events fit, writing the change onto one of them would be a guess, and a wrong
"Coming up" line costs more than a missing one: each of them gets a *which value?*
question instead (``dream.kinds.questions``), offering the new value and the one it has,
so the person answers the right one with the new value and the other with its own. The
events stay as they were until then. Keys are stable (``which-<key>-<field>``), so a later
run asks the same question, not a new one.
"""

from __future__ import annotations

from typing import Any

from dream.detect.finding import Finding
from dream.kinds.questions import value_question
from dream.kinds.records import record_path

_FIELDS = (("time", "time"), ("date", "day"), ("place", "place"))


def which_plan(rows: list[dict[str, Any]], change: dict[str, str], who: str, said: str,
               evidence: str) -> list[Finding]:
    """One question per live event of ``rows`` that ``change`` (field -> new value) could
    be about; ``who`` said ``said`` (the message, as evidence ``evidence``)."""
    name, word = next(((f, w) for f, w in _FIELDS if change.get(f)), ("", ""))
    if change.get("status") == "cancelled":
        name = "status"     # a calling off that names no plan: which one is off?
    if not name:
        return []
    quoted = " ".join(said.split())
    quoted = quoted if len(quoted) <= 90 else quoted[:89] + "…"
    out = []
    for row in rows:
        f = row["fields"]
        if f.get(name) == change[name]:
            continue        # the plan that already has it is not changed by it
        title = f.get("title") or row["key"]
        when = " ".join(v for v in (f.get("date", ""), f.get("time", "")) if v)
        what = (f"is '{title}'" + (f" ({when})" if when else "") + " called off?"
                if name == "status" else
                f"is {change[name]} the new {word} of '{title}'" +
                (f" ({when})" if when else "") + "?")
        text = f"{who} wrote \"{quoted}\" and more than one plan could be meant: {what}"
        key, question = value_question(record_path("event", row["key"]), name,
                                       [change[name], f.get(name, "")], text)
        out.append(Finding("question", question.fields(), [evidence], name=key))
    return out


def which_moves(rows: list[dict[str, Any]], who: str, said: str,
                evidence: str) -> list[Finding]:
    """One question per live event of ``rows`` that a shift naming no new day ("push the
    dinner back a week", "move Lucy to next week") could be about: does it move, and to
    which day? Its day is offered as it is; the person types the new one."""
    quoted = " ".join(said.split())
    quoted = quoted if len(quoted) <= 90 else quoted[:89] + "…"
    out = []
    for row in rows:
        f = row["fields"]
        title = f.get("title") or row["key"]
        when = " ".join(v for v in (f.get("date", ""), f.get("time", "")) if v)
        text = (f"{who} wrote \"{quoted}\" and more than one plan could be meant: does "
                f"'{title}'" + (f" ({when})" if when else "") + " move, and to which day?")
        key, question = value_question(record_path("event", row["key"]), "date",
                                       [f.get("date", "")], text)
        out.append(Finding("question", question.fields(), [evidence], name=key))
    return out
